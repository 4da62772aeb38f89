"""The floor of first paint: a bare Streamlit page shaped like the Explain page's first view (a title,
a text box, a highlighted sentence and one 20 x 20 plotly heatmap), with no model and no work.

``python benchmarks/browser_load.py --first 5`` opens it with the same harness as ``app.py`` and
``serve.py``: whatever it takes is Streamlit's frontend and plotly in Chromium, which no change to
selfexplain can remove."""

import numpy as np
import plotly.graph_objects as go
import streamlit as st

st.set_page_config(page_title="floor", layout="wide")
st.title("selfexplain")
st.text_area("Text", "the plot is thin and the acting wooden .")
st.markdown("**Self-explaining alpha**: the plot is <mark>thin</mark> and the acting wooden .", unsafe_allow_html=True)
grid = np.triu(np.random.default_rng(0).random((20, 20)))
st.plotly_chart(go.Figure(go.Heatmap(z=grid)), use_container_width=True)
