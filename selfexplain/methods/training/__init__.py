"""Making a model: the training loop (:mod:`~selfexplain.methods.training.loop`), its extra objectives, warm start
and distillation targets, and batched evaluation through a :class:`~selfexplain.core.pipeline.SelfExplainer`.
"""
