"""The browser tests' helpers: the app server (environment, failure reports, shutdown) and the browser they
launch (Debian's Chromium, never one Playwright downloaded)."""

from __future__ import annotations

import os
import socket
import time
import urllib.request
from pathlib import Path

import psutil
import pytest
from browser_support import CHROMIUM, DEBIAN_CHROMIUM, app_server, chromium


@pytest.mark.slow
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


@pytest.mark.slow
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


@pytest.mark.browser
@pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="needs Debian's chromium")
def test_the_browser_tests_run_debians_chromium() -> None:
    """Issue 24 item 8: every browser test launches Debian's Chromium where it is installed, never a browser
    Playwright downloaded into its cache. Checked on the running processes (the Browser's repr names
    Playwright's own path whatever was launched)."""
    pytest.importorskip("playwright.sync_api", reason="needs playwright")
    if Path(DEBIAN_CHROMIUM).exists():
        assert CHROMIUM == DEBIAN_CHROMIUM
    with chromium() as browser:
        assert browser.is_connected()
        executables = set()
        for process in psutil.Process(os.getpid()).children(recursive=True):
            try:
                executables.add(process.exe())
            except psutil.Error:
                continue
    browsers = {exe for exe in executables if "chrom" in Path(exe).name}
    assert browsers, executables
    assert not [exe for exe in executables if "ms-playwright" in exe], executables
    if CHROMIUM == DEBIAN_CHROMIUM:
        assert all(exe.startswith("/usr/lib/chromium/") for exe in browsers), browsers
