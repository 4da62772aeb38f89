"""Issue 23 defect 6: Probing showed a full progress bar and "Computing…" for minutes, had no stated time
bound, and kept computing after its tab was closed."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import open_page

from selfexplain.core.pipeline import SelfExplainer
from selfexplain.data import Example
from selfexplain.lab.anatomy.probing import TASKS, cache_hidden_states, probe_by_layer

PAGE = Path(__file__).resolve().parents[1] / "pages" / "4_Probing.py"


def test_the_progress_callback_states_the_bound_and_stops() -> None:
    from pages.ui.bounded import RunStopped, bounded_report

    now = [0.0]
    shown: list[tuple[float, str]] = []
    report = bounded_report(
        lambda f, t: shown.append((f, t)), "Probes:", 120.0, alive=lambda: True, clock=lambda: now[0]
    )
    now[0] = 30.0
    report(0.25)
    assert shown == [(0.25, "Probes: 25% · 30 s of at most 120 s")]
    now[0] = 121.0
    with pytest.raises(RunStopped, match="time bound of 120 s"):
        report(0.5)
    gone = bounded_report(lambda f, t: None, "x", 120.0, alive=lambda: False, clock=lambda: 0.0)
    with pytest.raises(RunStopped, match="session .* has ended"):
        gone(0.1)


@pytest.mark.slow
def test_probe_fits_report_their_progress(tiny_explainer: SelfExplainer) -> None:
    examples = [Example(f"sentence number {i} is fine", None, i % 2) for i in range(12)]
    cache = cache_hidden_states(tiny_explainer, examples, progress=False)
    seen: list[float] = []
    probe_by_layer(cache, TASKS, folds=3, progress=False, on_progress=seen.append)
    jobs = len(TASKS) * cache.sentence.shape[0]
    assert len(seen) == jobs and seen == sorted(seen) and seen[-1] == 1.0 and seen[0] > 0


@pytest.mark.slow
def test_the_page_states_its_bound_and_stops_when_the_session_ends(
    tiny_model_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    at = open_page(PAGE, tiny_model_dir)
    assert any("stopped after 120 s" in c.value for c in at.caption)
    monkeypatch.setattr("pages.ui.bounded.session_alive", lambda: False)  # the tab was closed
    at.number_input(key="probe_seed").set_value(7).run()  # settings no other test has cached
    at.button(key="probe_run").click().run()
    assert not at.exception and not at.get("plotly_chart")
    assert any("the browser session that started it has ended" in w.value for w in at.warning)
    monkeypatch.setattr("pages.ui.bounded.session_alive", lambda: True)
    at.button(key="probe_run").click().run()  # nothing was cached: it runs again, to the end
    assert not at.exception and at.get("plotly_chart")
