"""Streamlit helpers shared by the app's pages (kept out of ``selfexplain/``: the library never imports Streamlit).

- :mod:`pages.ui.loading`: models and results cached per server process
- :mod:`pages.ui.picker`: the sidebar model picker, in-page model choosers, model cards
- :mod:`pages.ui.examples`: shipped examples, the Batch sample file, uploaded files read as examples
- :mod:`pages.ui.gallery`: the pin store and the Pin box
- :mod:`pages.ui.navigation`: the sidebar links to every page
- :mod:`pages.ui.surrogate`: a surrogate's note (whose model it imitates, how closely: ``selfexplain distill``)

Importing any of them applies the deployment defaults below and defines the constants every page shares.
"""

from __future__ import annotations

import os
from pathlib import Path

# A Streamlit server is a shared deployment: models load by name from the models folders and nothing is
# downloaded from the Hub, unless its operator opts in (SELFEXPLAIN_RESTRICT_MODELS=0, SELFEXPLAIN_HUB=1).
os.environ.setdefault("SELFEXPLAIN_RESTRICT_MODELS", "1")
os.environ.setdefault("SELFEXPLAIN_HUB", "0")

ASSETS = Path(__file__).resolve().parents[2] / "assets"
# plotly toolbar for every chart: no logo, PNG export at twice the screen resolution
PLOT_CONFIG = {"displaylogo": False, "toImageButtonOptions": {"format": "png", "scale": 2}}
