"""The app server helper of the browser tests: environment, failure reports, shutdown (no browser)."""

from __future__ import annotations

import socket
import time
import urllib.request

import psutil
import pytest
from browser_support import app_server


def test_a_server_that_cannot_start_fails_at_once_with_its_log() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        start = time.monotonic()
        with pytest.raises(RuntimeError, match=f"exited with code 1; its log:\n.*Port {port} is not available"):
            with app_server(port=port, timeout=120):
                pass
    assert time.monotonic() - start < 60  # it saw the process exit instead of waiting for the timeout


def test_server_environment_log_on_failure_and_shutdown(monkeypatch, capsys) -> None:
    monkeypatch.setenv("SELFEXPLAIN_DB_URL", "sqlite:////nowhere/gallery.sqlite3")
    with pytest.raises(ValueError, match="a failing test"):
        with app_server({"SELFEXPLAIN_MODELS_DIR": "/tmp/models-x", "SELFEXPLAIN_DB_URL": None}) as app:
            with urllib.request.urlopen(f"{app.url}/_stcore/health", timeout=5) as reply:
                assert reply.read() == b"ok"
            environment = psutil.Process(app.pid).environ()
            assert environment["SELFEXPLAIN_MODELS_DIR"] == "/tmp/models-x"
            assert environment["HF_HUB_OFFLINE"] == "1"
            assert "SELFEXPLAIN_DB_URL" not in environment
            raise ValueError("a failing test")
    assert f"streamlit log ({app.url}):" in capsys.readouterr().err
    assert not psutil.pid_exists(app.pid)
