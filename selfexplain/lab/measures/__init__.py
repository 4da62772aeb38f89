"""Measurements a user runs on finished models and their files (``selfexplain own-need``, ``needed-words``,
``deletion-direction``, ``token-labels``, ``paired-test``): one module each, registered by ``cli.py``."""
