"""The app's Streamlit settings: upload limit, XSRF protection on, tracebacks kept from users."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

CONFIG = Path(__file__).resolve().parents[2] / ".streamlit" / "config.toml"


def test_streamlit_config_limits_and_protections() -> None:
    config = tomllib.loads(CONFIG.read_text(encoding="utf-8"))
    assert config["server"]["enableXsrfProtection"] is True
    assert 0 < config["server"]["maxUploadSize"] <= 50
    assert config["client"]["showErrorDetails"] == "none"  # `false` is Streamlit's "stacktrace": paths shown
    assert config["browser"]["gatherUsageStats"] is False


@pytest.mark.slow
def test_the_app_restricts_models_and_the_hub_unless_the_operator_opts_in() -> None:
    import os
    import subprocess
    import sys

    env = {k: v for k, v in os.environ.items() if k not in ("SELFEXPLAIN_RESTRICT_MODELS", "SELFEXPLAIN_HUB")}
    probe = (  # every page's run starts with sidebar_navigation, which applies the deployment defaults
        "import os; from pages.ui.navigation import sidebar_navigation; sidebar_navigation(); "
        "print(os.environ['SELFEXPLAIN_RESTRICT_MODELS'], os.environ['SELFEXPLAIN_HUB'])"
    )
    root = CONFIG.parents[1]
    shown = subprocess.run([sys.executable, "-c", probe], cwd=root, env=env, capture_output=True, text=True, check=True)
    assert shown.stdout.split() == ["1", "0"]
    env.update(SELFEXPLAIN_RESTRICT_MODELS="0", SELFEXPLAIN_HUB="1")
    shown = subprocess.run([sys.executable, "-c", probe], cwd=root, env=env, capture_output=True, text=True, check=True)
    assert shown.stdout.split() == ["0", "1"]


def test_restricted_picker_offers_no_typed_paths(monkeypatch) -> None:  # noqa: ANN001
    from streamlit.testing.v1 import AppTest

    monkeypatch.setenv("SELFEXPLAIN_RESTRICT_MODELS", "1")
    at = AppTest.from_file(str(CONFIG.parents[1] / "app.py"), default_timeout=120)
    at.query_params["text"] = "a fine film"
    at.run()
    assert not at.exception
    assert "Other folder…" not in at.selectbox(key="model_choice").options


def test_no_hub_download_when_the_hub_is_off(monkeypatch) -> None:  # noqa: ANN001
    import pytest

    from selfexplain.core.modeling.encoders import EncoderNotFoundError, load_encoder, load_tokenizer

    monkeypatch.setenv("SELFEXPLAIN_HUB", "0")
    for load in (load_encoder, load_tokenizer):
        with pytest.raises(EncoderNotFoundError, match="does not download from the Hugging Face Hub"):
            load("someone/not-a-local-model")
