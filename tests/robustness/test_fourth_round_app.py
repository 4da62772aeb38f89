"""Issue 59, hardening's fourth round, in the app: a broken model folder is named without server paths or a
library's message (row 3), one sentence over the dense limit opens without its grid (row 6), and a card's
metrics that are not numbers no longer crash Compare (row 11). Each failed before its fix."""

from __future__ import annotations

import html
import json
from pathlib import Path

import pytest
from helpers import save_tiny
from streamlit.testing.v1 import AppTest

ROOT = Path(__file__).resolve().parents[2]
APP, COMPARE = str(ROOT / "app.py"), str(ROOT / "pages" / "1_Compare.py")


def save_broken(encoder: Path, folder: Path) -> None:
    """The tiny model with its weights cut short (its config still names ``tiny-sst``)."""
    weights = save_tiny(encoder, folder, name="tiny-sst", seed=5) / "weights.safetensors"
    weights.write_bytes(weights.read_bytes()[:1000])


def save_listed(encoder: Path, folder: Path) -> None:
    """The tiny model with ``test_accuracy`` a list."""
    config_file = save_tiny(encoder, folder, seed=5) / "selfexplain.json"
    config = json.loads(config_file.read_text())
    config_file.write_text(json.dumps({**config, "metrics": {"test_accuracy": [1, 2]}}))


MODELS = {"tiny-sst": {"seed": 5}, "broken": save_broken, "listed": save_listed}  # the conftest's models_dir


def open_page(page: str, monkeypatch: pytest.MonkeyPatch, models_dir: Path, **params: str) -> AppTest:
    monkeypatch.setenv("SELFEXPLAIN_MODELS_DIR", str(models_dir))
    monkeypatch.setenv("SELFEXPLAIN_RESTRICT_MODELS", "1")  # a shared deployment, the app's default
    at = AppTest.from_file(page, default_timeout=300)
    for name, value in params.items():
        at.query_params[name] = value
    return at.run()


def shown(at: AppTest) -> str:
    return " ".join(str(e.value) for e in [*at.error, *at.warning, *at.info, *at.markdown, *at.caption])


@pytest.mark.parametrize("page", [APP, COMPARE])
def test_row3_a_broken_folder_is_named_without_server_paths(
    page: str, monkeypatch: pytest.MonkeyPatch, models_dir: Path
) -> None:
    params = {"model": "broken"} if page == APP else {"model_a": "tiny-sst", "model_b": "broken"}
    at = open_page(page, monkeypatch, models_dir, **params)
    assert not at.exception
    errors = html.unescape(" ".join(e.value for e in at.error))
    assert "model 'broken' cannot be loaded" in errors
    assert str(models_dir) not in shown(at) and "/tmp" not in shown(at) and "safetensor" not in errors.lower()


def test_row6_one_sentence_over_the_dense_limit_opens_without_its_grid(
    monkeypatch: pytest.MonkeyPatch, models_dir: Path
) -> None:
    at = open_page(APP, monkeypatch, models_dir, model="tiny-sst", text="good " * 9_000)
    assert not at.exception
    assert any("No grid for this sentence" in i.value and "9,000 tokens" in i.value for i in at.info)
    assert [m.label for m in at.metric][:1] == ["Prediction"]


def test_row11_metrics_that_are_not_numbers_do_not_crash_compare(
    monkeypatch: pytest.MonkeyPatch, models_dir: Path
) -> None:
    at = open_page(COMPARE, monkeypatch, models_dir, model_a="tiny-sst", model_b="listed")
    assert not at.exception
    assert any("model 'listed' cannot be loaded" in html.unescape(e.value) for e in at.error)
