"""Self-explaining surrogates of another classifier (``selfexplain distill``).

A user's own classifier (a Hugging Face sequence-classification folder, or a selfexplain folder) is the
*teacher*; a self-explaining *student* learns the teacher's probabilities on unlabelled text, and its
fidelity, how often it predicts the teacher's label and how far its probabilities are from the teacher's,
is measured on a held-out split it never trained on. The numbers go into the student's
``selfexplain.json`` (``metrics``: ``surrogate_agreement``, ``surrogate_tvd``, ``surrogate_examples``,
``surrogate_top_span_share``) and its model card (``surrogate_of``, ``fidelity``). See ``docs/surrogates.md``.

- :mod:`selfexplain.lab.distill.teacher`: reading a teacher (family, label names) and its probabilities;
- :mod:`selfexplain.lab.distill.fidelity`: the splits and the fidelity measures;
- :mod:`selfexplain.lab.distill.carrier`: the held-out check of alpha for a carrier span;
- :mod:`selfexplain.lab.distill.run`: the distillation run; :mod:`selfexplain.lab.distill.cli`: the commands.
"""
