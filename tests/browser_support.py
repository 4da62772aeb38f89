"""The app in a real browser: ``streamlit run app.py`` on a free port, and Debian's Chromium through
Playwright. Used by the browser tests and by ``benchmarks/browser_load.py`` (which puts tests/ on its
path); imports neither pytest nor Playwright at module level, so a test can skip before either is needed.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
DEBIAN_CHROMIUM = "/usr/bin/chromium"


def _system_chromium() -> str:
    """Debian's Chromium where it exists, else a ``chromium`` on PATH that is not a browser Playwright
    downloaded (``~/.cache/ms-playwright``), else Debian's path (missing: the browser tests skip)."""
    if Path(DEBIAN_CHROMIUM).exists():
        return DEBIAN_CHROMIUM
    found = shutil.which("chromium")
    if found and "ms-playwright" not in str(Path(found).resolve()):
        return found
    return DEBIAN_CHROMIUM


CHROMIUM = _system_chromium()  # every browser test launches this executable, never Playwright's download
CHROMIUM_ARGS = ("--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update")
DONE = "[data-testid='stApp'][data-test-script-state='notRunning']"  # the script run has finished
# A fresh server's first page draws its text box only after importing torch and transformers, loading the
# model and explaining the first example: seconds on an idle machine, minutes on a loaded one (the browser
# tests used to wait 90 s and timed out under load). Later waits on a warm server stay short.
COLD_START_MS = 300_000
LOG_TAIL = 4000  # characters of the server log shown when something fails


def free_port() -> int:
    """A free TCP port on the loopback interface."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass(frozen=True)
class AppServer:
    """A running app: its base URL (``http://127.0.0.1:PORT``) and the server's process id."""

    url: str
    pid: int


def _tail(log: Path) -> str:
    text = log.read_text(encoding="utf-8", errors="replace")
    return text[-LOG_TAIL:] if text.strip() else "(the server wrote nothing)"


def _healthy(url: str) -> bool:
    try:
        with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as reply:
            return reply.read() == b"ok"
    except OSError:
        return False


@contextmanager
def app_server(
    env: Mapping[str, str | None] | None = None, port: int | None = None, timeout: float = 90.0, script: str = "app.py"
) -> Iterator[AppServer]:
    """Run ``streamlit run SCRIPT`` (``app.py``, or ``serve.py``, which loads the default model first;
    headless, on 127.0.0.1:``port`` or a free port, offline) until the block ends, once
    ``/_stcore/health`` answers ``ok``.

    ``env`` is laid over this process's environment; a ``None`` value removes that variable. The
    server's output goes to a log file: if it does not answer within ``timeout`` seconds or exits
    first, RuntimeError carries the log's tail; if the block raises or the server died while it ran,
    the tail goes to stderr (pytest shows it with the failure).
    """
    port = port or free_port()
    environment = {**os.environ, "HF_HUB_OFFLINE": "1"}
    for name, value in (env or {}).items():
        if value is None:
            environment.pop(name, None)
        else:
            environment[name] = value
    command = [
        sys.executable, "-m", "streamlit", "run", str(ROOT / script),
        "--server.headless", "true", "--server.port", str(port), "--server.address", "127.0.0.1",
        "--browser.gatherUsageStats", "false", "--server.fileWatcherType", "none",
    ]  # fmt: skip
    url = f"http://127.0.0.1:{port}"
    with tempfile.TemporaryDirectory(prefix="selfexplain-app-") as folder:
        log = Path(folder) / "server.log"
        with log.open("wb") as sink:
            server = subprocess.Popen(command, cwd=ROOT, env=environment, stdout=sink, stderr=subprocess.STDOUT)
        try:
            deadline = time.monotonic() + timeout
            while not _healthy(url):
                if server.poll() is not None:
                    raise RuntimeError(f"streamlit exited with code {server.returncode}; its log:\n{_tail(log)}")
                if time.monotonic() > deadline:
                    raise RuntimeError(f"streamlit did not answer within {timeout:.0f} s; its log:\n{_tail(log)}")
                time.sleep(0.5)
            try:
                yield AppServer(url, server.pid)
            except BaseException as error:
                if not isinstance(error, (GeneratorExit, KeyboardInterrupt)):
                    print(f"streamlit log ({url}):\n{_tail(log)}", file=sys.stderr)
                raise
            if server.poll() is not None:
                print(f"streamlit exited with code {server.returncode} while in use; its log:", file=sys.stderr)
                print(_tail(log), file=sys.stderr)
        finally:
            server.terminate()
            try:
                server.wait(timeout=30)
            except subprocess.TimeoutExpired:
                server.kill()
                server.wait()


def drawn(page: Any, timeout_ms: int = 60_000) -> None:
    """Wait until every element is drawn. A finished script run (:data:`DONE`) is not enough: Streamlit
    loads the code of tables, charts and buttons on first use and shows a grey placeholder
    (``stSkeleton``) until then, so a table or button counted at once may not be there yet."""
    page.wait_for_function("() => !document.querySelector(\"[data-testid='stSkeleton']\")", timeout=timeout_ms)
    page.wait_for_timeout(500)  # plotly draws after its code loads


@contextmanager
def chromium() -> Iterator[Any]:
    """A headless Chromium (Playwright's ``Browser`` on :data:`CHROMIUM`, Debian's), closed when the block
    ends. Never a browser Playwright downloaded: without :data:`CHROMIUM` this raises instead.

    (The ``Browser``'s repr names ``BrowserType.executable_path``, the path of the browser Playwright
    *would* download, whichever executable was launched; the running process is :data:`CHROMIUM`'s.)"""
    from playwright.sync_api import sync_playwright

    if not Path(CHROMIUM).exists() or "ms-playwright" in str(Path(CHROMIUM).resolve()):
        raise FileNotFoundError(f"no system Chromium at {CHROMIUM} (install Debian's: apt-get install chromium)")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=list(CHROMIUM_ARGS))
        try:
            yield browser
        finally:
            browser.close()
