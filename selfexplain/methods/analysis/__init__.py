"""Analyses over a :class:`~selfexplain.core.pipeline.SelfExplainer` or its explanations: two models
compared on one input, word edits and what they change, and a second opinion beside alpha.
"""
