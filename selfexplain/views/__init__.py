"""Everything that turns results into pictures, HTML and files (pure functions, no Streamlit).

- :mod:`~selfexplain.views.style`: the one place for colours, fonts and the figure layout.
- :mod:`~selfexplain.views.figures`: an Explanation's probability bars, alpha grid, attention, span table;
  :mod:`~selfexplain.views.model_view`: every layer x head in one figure; :mod:`~selfexplain.views.band`: the alpha
  grid of a long input as a band (start word across, span width down).
- :mod:`~selfexplain.views.word_attention`: attention on the alpha grid's words, and the head view (HTML, CSS hover).
- :mod:`~selfexplain.views.second_opinion`: alpha and another attribution method per word.
- :mod:`~selfexplain.views.present`: presentation mode's plain sentences and glossary.
- :mod:`~selfexplain.views.highlight`: the text with spans shaded, as escaped HTML.
- :mod:`~selfexplain.views.html_report`: a self-contained HTML report of one explanation.
- :mod:`~selfexplain.views.notebook`: an Explanation inline in Jupyter (static HTML and SVG) or as a file.
- :mod:`~selfexplain.views.compare`, :mod:`~selfexplain.views.document`, :mod:`~selfexplain.views.edits`:
  figures for two models side by side, a long document, and an edit's change in alpha.
- :mod:`~selfexplain.views.files`: figures written to a folder as offline HTML and PNG.

The feature wings keep their own figure modules (``anatomy/figures.py``, ``batch/figures.py``,
``faithfulness/figures.py``) beside their analyses; they take every colour, font and the layout from
:mod:`~selfexplain.views.style`.
"""
