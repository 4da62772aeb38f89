"""Explain page section for a surrogate (``selfexplain distill``) whose teacher is on this machine: the
teacher's prediction next to the surrogate's for this input, and a warning where they differ ("the
surrogate disagrees with your model here; its explanation does not apply").

The teacher's folder is the one the surrogate's model card records; a shared deployment
(``SELFEXPLAIN_RESTRICT_MODELS=1``) loads it only from inside its models folders, and never from the Hub.
Hook: ``render_surrogate_check(explanation, st.session_state.model_directory)`` after the prediction.
"""

from __future__ import annotations

import numpy as np
import streamlit as st

from pages.ui.picker import model_card
from selfexplain.core.modeling.model_folders import models_folders, restricted
from selfexplain.core.results.explanation import Explanation
from selfexplain.data import Example
from selfexplain.errors import USER_ERRORS
from selfexplain.lab.distill.fidelity import DECISIVE_MARGIN, decisive
from selfexplain.lab.distill.predictor import TeacherPredictor, load_teacher, teacher_location
from selfexplain.views.highlight import escape_text

DISAGREE = "The surrogate disagrees with your model here; its explanation does not apply."
HESITANT = (
    "Your model hesitates here: its two most likely labels, {first} ({p:.0%}) and {second} ({q:.0%}), are "
    "less than {margin:g} apart. Most disagreements between a surrogate and its model sit on such inputs, "
    "so a small change of wording may part them; the model card gives the agreement where your model is "
    "decisive."
)


@st.cache_resource(show_spinner="Loading the model the surrogate imitates…", max_entries=2)
def cached_teacher(location: str) -> TeacherPredictor:
    """One teacher per folder and process."""
    return load_teacher(location)


def surrogate_teacher(directory: str) -> str | None:
    """The local folder of the loaded surrogate's teacher, or None (no surrogate, no card, not here)."""
    try:
        card = model_card(directory)
    except USER_ERRORS:
        return None
    return teacher_location(card, models_folders() if restricted() else None)


def teacher_prediction(teacher: TeacherPredictor, explanation: Explanation) -> np.ndarray | None:
    """The teacher's probabilities for the explained input, in the explanation's label order; None when
    the two models' labels differ."""
    if sorted(teacher.label_names) != sorted(explanation.label_names):
        return None
    probabilities = teacher.probabilities([Example(explanation.text, explanation.pair)])[0]
    order = [list(teacher.label_names).index(name) for name in explanation.label_names]
    return probabilities[order]


def render_surrogate_check(explanation: Explanation, directory: str) -> None:
    """Both predictions for this input and whether they agree; nothing for a model that is no surrogate
    or whose teacher is not on this machine."""
    location = surrogate_teacher(directory)
    if location is None:
        return
    try:
        teacher = cached_teacher(location)
        theirs = teacher_prediction(teacher, explanation)
    except USER_ERRORS as err:
        st.caption(f"The model this surrogate imitates cannot be run here: {escape_text(str(err))}")
        return
    if theirs is None:
        st.caption("The model this surrogate imitates has other labels; its prediction is not compared.")
        return
    names = explanation.label_names
    ours = np.asarray(explanation.probabilities, dtype=float)
    mine, yours = int(ours.argmax()), int(np.argmax(theirs))
    tvd = 0.5 * float(np.abs(ours - theirs).sum())
    name = escape_text(teacher.teacher.name)
    columns = st.columns(2)
    columns[0].metric(f"Your model ({name})", names[yours], f"{theirs[yours]:.1%}", delta_color="off")
    columns[1].metric("The surrogate (explained here)", names[mine], f"{ours[mine]:.1%}", delta_color="off")
    if mine != yours:
        st.warning(DISAGREE)
    else:
        st.caption(
            f"The surrogate agrees with your model on this input (total-variation distance {tvd:.3f}): its "
            "spans show what suffices for the surrogate to give the same answer, not what your model read."
        )
    if not bool(decisive(theirs[None, :])[0]):
        first, second = (int(i) for i in np.argsort(-theirs, kind="stable")[:2])
        st.caption(
            HESITANT.format(
                first=escape_text(names[first]),
                p=theirs[first],
                second=escape_text(names[second]),
                q=theirs[second],
                margin=DECISIVE_MARGIN,
            )  # fmt: skip
        )
