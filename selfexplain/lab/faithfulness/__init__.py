"""Faithfulness lab: perturbation metrics for every explainer, and tests on alpha itself.

``metrics`` (pure numpy definitions), ``tokens`` (token-level experiments for one input),
``alpha_tests`` (experiments on the span layer), ``flip`` (the flip certificate of one input, from the
span layer's linear view), ``experiment`` (runs over a data set with a resumable JSONL log, in worker
processes with ``workers``), ``summary`` (tables), ``figures`` (plotly), ``cli``.
"""
