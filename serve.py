"""Serve the app with the default model already loaded: ``streamlit run serve.py``.

The same pages as ``streamlit run app.py``; the difference is the start-up hook, which loads the default
model and explains its opening example before the server accepts its first connection, so a new
session's first paint does not wait for the model (see docs/performance.md).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import streamlit as st

from pages.ui.warmup import warm_default_model


@asynccontextmanager
async def lifespan(_app: st.App) -> AsyncIterator[None]:
    await asyncio.to_thread(warm_default_model)
    yield


app = st.App("app.py", lifespan=lifespan)
