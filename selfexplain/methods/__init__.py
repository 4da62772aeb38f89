"""The methods floor, over the core: :mod:`~selfexplain.methods.explainers` (attribution methods, a
registry) and :mod:`~selfexplain.methods.training` (loop, objectives, warm start, evaluation), then
:mod:`~selfexplain.methods.analysis` (two models compared, word edits, a second opinion).

Imports nothing itself: ``import selfexplain`` stays light.
"""
