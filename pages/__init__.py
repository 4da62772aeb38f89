"""The app's pages: every ``pages/N_Name.py`` is one Streamlit page (``app.py`` is the landing page).

Streamlit serves each ``*.py`` file of this folder as a page, so modules live in subfolders:
``pages/ui/`` holds the helpers every page shares (cached loading, the model picker, examples and
uploads, the gallery's Pin box, the sidebar links) and ``pages/parts/`` the sections of the Explain page.
"""
