"""The walk of one typed text to the alpha grid (issue 60): the rooms it passes and how often control climbs
back up, that is a room calling into a room on a higher floor (a callback handed down), traced with
``sys.setprofile`` on a tiny model. Floors and rooms are those of test_layers.py."""

from __future__ import annotations

import sys
from collections import Counter

from test_layers import FLOORS, ROOMS

from selfexplain.core.pipeline import SelfExplainer
from selfexplain.views.figures import span_grid_figure

FLOOR = {part: i for i, parts in enumerate(FLOORS) for part in parts}


def _place(module: str) -> tuple[tuple[int, int], str]:
    """``((floor, room level), room name)`` of a ``selfexplain`` module."""
    parts = module.split(".")
    folder = parts[1] if len(parts) > 1 else ""
    rooms = ROOMS.get(folder)
    level = 0
    if rooms is not None and len(parts) > 2:
        level = {room: i for i, names in enumerate(rooms) for room in names}[parts[2]]
    return (FLOOR[folder], level), ".".join(parts[: 3 if rooms is not None else 2])


def _walk(explainer: SelfExplainer, text: str) -> tuple[list[str], Counter]:
    rooms: list[str] = []
    climbs: Counter = Counter()

    def watch(frame, event, arg) -> None:  # noqa: ANN001 (sys.setprofile's signature)
        module = frame.f_globals.get("__name__", "")
        caller = frame.f_back
        if event != "call" or not module.startswith("selfexplain.") or caller is None:
            return
        level, room = _place(module)
        if room not in rooms:
            rooms.append(room)
        source = caller.f_globals.get("__name__", "")
        if source.startswith("selfexplain."):
            from_level, from_room = _place(source)
            if level > from_level:
                climbs[(from_room, caller.f_code.co_name, room, frame.f_code.co_name)] += 1

    sys.setprofile(watch)
    try:
        explanation = explainer.explain(text)
        span_grid_figure(explanation, level="word", max_width=4)
    finally:
        sys.setprofile(None)
    return rooms, climbs


def test_text_to_grid_passes_few_rooms_and_never_climbs_back_up(tiny_explainer: SelfExplainer) -> None:
    tiny_explainer.explain("warm up")  # first-call caches are not the walk
    rooms, climbs = _walk(tiny_explainer, "The film is warm and funny, but the plot is thin.")
    assert rooms[0] == "selfexplain.core.pipeline"
    assert "selfexplain.views" in rooms and "selfexplain.core.modeling" in rooms
    assert len(rooms) <= 9, rooms
    assert sum(1 for _ in climbs) <= 2, climbs  # issue 60's ceiling; today none
    assert not climbs, climbs


def test_the_tracer_sees_a_climb_when_there_is_one(tiny_explainer: SelfExplainer, monkeypatch) -> None:
    """The test above can fail: a callback from the model back into the pipeline is counted."""
    import selfexplain.core.modeling.model as model_module
    from selfexplain.core import pipeline

    # A forward whose frame belongs to the model's module (its globals say so), calling up into the pipeline.
    space = {
        "__name__": model_module.__name__,
        "original": model_module.SelfExplainingModel.forward,
        "name": pipeline.SelfExplainer.name.fget,
        "explainer": tiny_explainer,
    }
    exec(  # noqa: S102 (a fixed string: the test's stand-in for a callback handed down)
        "def forward(self, *args, **kwargs):\n    name(explainer)\n    return original(self, *args, **kwargs)\n",
        space,
    )
    forward = space["forward"]

    monkeypatch.setattr(model_module.SelfExplainingModel, "forward", forward)
    _, climbs = _walk(tiny_explainer, "A short one.")
    assert any(key[0] == "selfexplain.core.modeling" and key[2] == "selfexplain.core.pipeline" for key in climbs)
