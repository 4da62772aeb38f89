"""Sessions of the Explain page through Streamlit's own websocket protocol, without a browser.

A browser session is a websocket to ``/_stcore/stream`` that sends a ``rerun_script`` message (the
page's query string) and receives the page as ``delta`` messages until ``script_finished``. This
client does exactly that and draws nothing, so N of them measure what the *server* delivers to N
remote users at once, with this machine's cores left to the app (N local Chromium renderers would
take them: see ``browser_load.py --sessions``).
"""

from __future__ import annotations

import asyncio
import time
import urllib.parse
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import websockets
from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

GRID_TITLE = "Self-explaining alpha"


@dataclass(frozen=True)
class SessionResult:
    seconds: float  # from sending the rerun to ``script_finished``
    deltas: int  # page elements received
    grid: bool  # the alpha grid was among them
    exception: bool  # the page reported an exception


async def run_session(base_url: str, query: dict[str, str], timeout: float = 300.0) -> SessionResult:
    """Open one session, run the page with ``query`` and wait for the run to finish."""
    stream = base_url.replace("http", "ws", 1).rstrip("/") + "/_stcore/stream"
    async with websockets.connect(stream, subprotocols=["streamlit"], max_size=2**28) as socket:
        request = BackMsg()
        request.rerun_script.query_string = urllib.parse.urlencode(query)
        request.rerun_script.page_script_hash = ""  # the main page
        start = time.perf_counter()
        await socket.send(request.SerializeToString())
        deltas, grid, exception = 0, False, False
        while True:
            message = ForwardMsg()
            message.ParseFromString(await asyncio.wait_for(socket.recv(), timeout))
            kind = message.WhichOneof("type")
            if kind == "delta":
                deltas += 1
                element = message.delta.new_element
                kind = element.WhichOneof("type")
                grid = grid or (kind == "plotly_chart" and GRID_TITLE in element.plotly_chart.spec)
                exception = exception or kind == "exception"
            elif kind == "script_finished":
                return SessionResult(time.perf_counter() - start, deltas, grid, exception)


async def _all(base_url: str, queries: list[dict[str, str]]) -> list[SessionResult]:
    return list(await asyncio.gather(*(run_session(base_url, q) for q in queries)))


def run_sessions(base_url: str, queries: list[dict[str, str]]) -> list[SessionResult]:
    """All ``queries`` as sessions opened at the same moment; results in the same order. Runs its own
    event loop in a worker thread (a caller such as Playwright's sync API may hold one already)."""
    with ThreadPoolExecutor(1) as worker:
        return worker.submit(asyncio.run, _all(base_url, queries)).result()
