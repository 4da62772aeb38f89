"""Analyses over a :class:`~selfexplain.pipeline.SelfExplainer` or its explanations: two models
compared on one input, word edits and what they change, and a second opinion beside alpha.
"""
