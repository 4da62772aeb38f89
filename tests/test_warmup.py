"""``streamlit run serve.py`` loads the default model and explains its opening example before the first
visitor, into the same caches the pages read (issue 23 item 6)."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from pages.ui.examples import examples_for, opening_example
from pages.ui.loading import cached_explainer, results_cache
from pages.ui.warmup import warm_default_model
from selfexplain.core.pipeline import DEFAULT_MODEL, resolve_model

ROOT = Path(__file__).resolve().parents[1]


def test_the_first_session_reads_what_the_warm_up_computed(monkeypatch: pytest.MonkeyPatch) -> None:
    results_cache.clear()
    seconds = warm_default_model()
    assert seconds is not None and seconds > 0
    directory = str(resolve_model(DEFAULT_MODEL))
    example = opening_example(examples_for(cached_explainer(directory).name))
    assert example is not None
    warmed = results_cache().get(("explanation", directory, example["text"], None))
    assert warmed is not None and warmed.text == example["text"]

    import selfexplain.core.pipeline as pipeline

    def no_forward(*args: object, **kwargs: object) -> None:
        raise AssertionError("the first session ran the model again")

    monkeypatch.setattr(pipeline.SelfExplainer, "explain", no_forward)
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120).run()
    assert not at.exception
    assert at.text_area(key="text").value == example["text"]
    assert at.metric[0].value == warmed.label
    results_cache.clear()


def test_a_model_that_cannot_load_is_left_to_the_page(tmp_path: Path) -> None:
    assert warm_default_model(str(tmp_path / "missing")) is None


def test_serve_py_wraps_the_same_pages() -> None:
    from streamlit.web.server.app_discovery import discover_asgi_app

    found = discover_asgi_app(ROOT / "serve.py")
    assert found.is_asgi_app and found.app_name == "app"


@pytest.mark.slow
def test_the_warm_up_loads_every_module_the_explain_page_imports() -> None:
    """In a fresh process (a new server): after the warm-up, the first session's run of app.py imports
    nothing the pages share (those imports took about 0.8 s of the first session's first paint)."""
    import ast
    import json
    import subprocess
    import sys

    tree = ast.parse((ROOT / "app.py").read_text(encoding="utf-8"))
    found = {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module}
    wanted = sorted(m for m in found if m.startswith("pages."))
    assert "pages.parts.evidence_panel" in wanted
    script = (
        "import json, sys; from pages.ui.warmup import warm_default_model; "
        f"before = {{m for m in {wanted!r} if m in sys.modules}}; "
        "assert warm_default_model() is not None; "
        f"print(json.dumps([sorted(before), [m for m in {wanted!r} if m not in sys.modules]]))"
    )
    run = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr[-2000:]
    before, missing = json.loads(run.stdout.strip().splitlines()[-1])
    assert missing == []
    assert len(before) < len(wanted)  # the warm-up, not the import of serve.py, loaded them
