"""Faithfulness lab: perturbation metrics for every explainer, and tests on alpha itself.

``metrics`` (pure numpy definitions), ``tokens`` (token-level experiments for one input),
``alpha_tests`` (experiments on the span layer), ``experiment`` (runs over a data set with
a resumable JSONL log), ``summary`` (tables), ``figures`` (plotly), ``cli``.
"""
