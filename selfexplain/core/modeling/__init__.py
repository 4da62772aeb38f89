"""The model: encoder, span layer (and its native kernels), interpretation and output; its config, the
encoder families, loading encoders, saving and finding model folders, and model cards.

Nothing here imports the inputs, the result types, the pipeline or a feature: below it are only
:mod:`selfexplain.support`, :mod:`selfexplain.settings` and :mod:`selfexplain.errors`.
"""
