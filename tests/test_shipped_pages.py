"""Every shipped model opens on Explain, Compare and Model card without an error (issue 58's first target),
with the real shipped folders: MiniLM and MPNet, self-explaining models and their plain baselines, single
texts and pairs."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from selfexplain.core.modeling.config import ModelConfig
from selfexplain.core.modeling.model_folders import SHIPPED_MODELS_DIR

ROOT = Path(__file__).resolve().parents[1]
SHIPPED = sorted(p.parent.name for p in SHIPPED_MODELS_DIR.glob("*/selfexplain.json"))
TEXT = "The visuals are gorgeous, but the story is thin."
PREMISE, HYPOTHESIS = "A man is playing a guitar on a stage.", "Someone is making music."

pytestmark = pytest.mark.slow


def open_page(page: str, **params: str) -> AppTest:
    at = AppTest.from_file(str(ROOT / page), default_timeout=300)
    at.query_params.update(params)
    return at.run()


def texts(name: str) -> dict[str, str]:
    if ModelConfig.load(SHIPPED_MODELS_DIR / name).pair:
        return {"text": PREMISE, "pair": HYPOTHESIS}
    return {"text": TEXT}


def test_the_shipped_models_are_the_documented_ones() -> None:
    assert {"sst5-minilm", "sst5-minilm-mean", "snli-minilm", "snli-minilm-mean", "sst2-mpnet"} <= set(SHIPPED)
    assert {"sst5-mpnet", "sst5-mpnet-mean", "snli-mpnet", "snli-mpnet-mean"} <= set(SHIPPED)


@pytest.mark.parametrize("name", SHIPPED)
def test_a_shipped_model_opens_on_explain_compare_and_its_card(name: str) -> None:
    at = open_page("app.py", model=name, **texts(name))
    assert not at.exception and not at.error, name
    assert at.metric and at.metric[0].value  # the prediction
    at = open_page("pages/1_Compare.py", model_a=name, **texts(name))
    assert not at.exception and not at.error, name
    at = open_page("pages/9_Model_card.py", model=name)
    assert not at.exception and not at.error, name
    shown = [h.value for h in [*at.title, *at.header, *at.subheader, *at.markdown, *at.caption]]
    assert any(name in value for value in shown), name
