"""The app's Streamlit settings: upload limit, XSRF protection on, tracebacks kept from users."""

from __future__ import annotations

import tomllib
from pathlib import Path

CONFIG = Path(__file__).resolve().parents[2] / ".streamlit" / "config.toml"


def test_streamlit_config_limits_and_protections() -> None:
    config = tomllib.loads(CONFIG.read_text(encoding="utf-8"))
    assert config["server"]["enableXsrfProtection"] is True
    assert 0 < config["server"]["maxUploadSize"] <= 50
    assert config["client"]["showErrorDetails"] is False
    assert config["browser"]["gatherUsageStats"] is False
