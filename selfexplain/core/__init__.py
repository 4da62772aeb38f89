"""The core floor: what a model is and how one input goes through it, lowest room first.

- :mod:`~selfexplain.core.modeling` (the network, native kernels, config, encoder families, model folders,
  cards) and :mod:`~selfexplain.core.formats` (every example reader);
- :mod:`~selfexplain.core.inputs`: one tokenisation, batches, windows, positions;
- :mod:`~selfexplain.core.results`: Explanation, Document, the JSON schema, words, readout;
- :mod:`~selfexplain.core.pipeline`: ``load_model`` and ``SelfExplainer``, the one route to the model.

Imports nothing itself: ``import selfexplain`` stays light.
"""
