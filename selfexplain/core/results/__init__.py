"""What an explained input is: :class:`~selfexplain.core.results.explanation.Explanation` (one input that fits
the encoder), :class:`~selfexplain.core.results.document.Document` (a long text read in windows), their one JSON
schema, their words and attention aggregates, and how a forward pass is read out as them.

Plain data (numpy arrays, tuples, strings): cached, serialised and compared without a model. Results
import no view; notebook display is supplied by :mod:`selfexplain.views` (:mod:`selfexplain.core.results.display`).
"""
