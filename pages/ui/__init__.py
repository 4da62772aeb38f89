"""Streamlit helpers shared by the app's pages (kept out of ``selfexplain/``: the library never imports Streamlit).

- :mod:`pages.ui.loading`: models and results cached per server process
- :mod:`pages.ui.picker`: the sidebar model picker, in-page model choosers, model cards
- :mod:`pages.ui.examples`: shipped examples, the Batch sample file, uploaded files read as examples
- :mod:`pages.ui.gallery`: the pin store and the Pin box
- :mod:`pages.ui.navigation`: the sidebar links to every page
- :mod:`pages.ui.surrogate`: a surrogate's note (whose model it imitates, how closely: ``selfexplain distill``)

This package defines the constants every page shares; importing it changes nothing. The deployment
defaults (models restricted to the models folders, no Hub downloads: :func:`selfexplain.settings.apply_app_defaults`)
are applied at the start of every page's run by :func:`pages.ui.navigation.sidebar_navigation`, and by the
start-up hook of ``serve.py`` (:func:`pages.ui.warmup.warm_default_model`).
"""

from __future__ import annotations

from pathlib import Path

ASSETS = Path(__file__).resolve().parents[2] / "assets"
# plotly toolbar for every chart: no logo, PNG export at twice the screen resolution
PLOT_CONFIG = {"displaylogo": False, "toImageButtonOptions": {"format": "png", "scale": 2}}
