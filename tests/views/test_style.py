"""The one style module: the layout function, presentation mode, and no look defined anywhere else."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import plotly.graph_objects as go
import plotly.io as pio
import pytest
from test_explanation import make_explanation

from selfexplain.views import style
from selfexplain.views.figures import span_grid_figure
from selfexplain.views.style import LEGEND_BELOW, PALETTE, apply_layout, label_colours, label_room

ROOT = Path(__file__).resolve().parents[2]
LOOK = {"title", "title_font", "font", "margin", "template", "height", "legend"}  # apply_layout's keywords


def test_layout_sets_title_size_margins_font_and_template() -> None:
    fig = apply_layout(go.Figure(go.Bar(x=[1, 2], y=[3, 4])), "Two bars")
    layout = fig.layout
    assert (layout.title.text, layout.title.x, layout.title.y, layout.title.font.size) == ("Two bars", 0.0, 1.0, 16)
    assert layout.height == 420 and layout.font.size == 14 and layout.legend.y is None
    assert (layout.margin.l, layout.margin.r, layout.margin.t, layout.margin.b) == (10, 10, 60, 10)
    # plotly_white's layout (white background, its grid colours), without its per-trace defaults
    assert layout.template.layout == pio.templates["plotly_white"].layout and not layout.template.data.bar
    assert layout.template.layout.plot_bgcolor == "white"
    placed = apply_layout(go.Figure(), "Legend below", 300, legend=LEGEND_BELOW)
    assert placed.layout.height == 300 and (placed.layout.legend.orientation, placed.layout.legend.y) == ("h", -0.2)


def test_presentation_is_a_larger_copy_that_keeps_the_figure() -> None:
    grid = span_grid_figure(make_explanation(n=6))
    height = grid.layout.height
    big = apply_layout(grid, present=True)
    assert big is not grid and big.layout.title.text == grid.layout.title.text
    assert big.layout.height == int(height * 4 / 3) and big.layout.font.size == 20 and big.layout.title.font.size == 22
    assert big.layout.xaxis.tickfont.size == 15 == big.layout.yaxis.tickfont.size
    assert big.layout.clickmode == "event+select" and big.layout.xaxis.ticktext == grid.layout.xaxis.ticktext
    assert grid.layout.height == height and grid.layout.font.size == 14 and grid.layout.xaxis.tickfont.size == 11
    built = apply_layout(go.Figure(), "Presented", 300, present=True)
    assert (built.layout.title.text, built.layout.height, built.layout.font.size) == ("Presented", 400, 20)


@pytest.mark.parametrize("count", [3, len(PALETTE) + 2])
def test_label_colours_follow_the_order_and_cycle(count: int) -> None:
    labels = [f"label {i}" for i in range(count)]
    colours = label_colours(labels)
    assert [colours[label] for label in labels] == [PALETTE[i % len(PALETTE)] for i in range(count)]


def test_report_css_uses_the_style_colours() -> None:
    assert style.INK in style.REPORT_STYLE and style.RULE in style.REPORT_STYLE
    assert style.FONT_FAMILY in style.REPORT_STYLE


def _sources() -> list[Path]:
    files = [*(ROOT / "selfexplain").rglob("*.py"), *(ROOT / "pages").rglob("*.py"), ROOT / "app.py"]
    return [f for f in files if f != ROOT / "selfexplain" / "views" / "style.py"]


def _literal(node: ast.expr) -> bool:
    """A dict written out with constant values only (a font fixed in place, not taken from the style)."""
    return isinstance(node, ast.Dict) and all(isinstance(v, ast.Constant) for v in node.values)


@pytest.mark.slow
def test_no_colour_scale_font_or_layout_is_defined_outside_the_style_module() -> None:
    hex_colour = re.compile(r"#[0-9a-fA-F]{6}\b|rgba?\(\d")
    found = []
    for path in _sources():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        name = path.relative_to(ROOT)
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and hex_colour.search(node.value):
                found.append(f"{name}:{node.lineno} colour {node.value[:40]!r}")
            if isinstance(node, ast.keyword) and node.arg in ("colorscale", "color_continuous_scale", "template"):
                if isinstance(node.value, ast.Constant):
                    found.append(f"{name}:{node.lineno} {node.arg}={node.value.value!r}")
            if isinstance(node, ast.keyword) and (node.arg or "").endswith("font") and _literal(node.value):
                found.append(f"{name}:{node.lineno} {node.arg}={ast.unparse(node.value)}")
            if isinstance(node, ast.Dict):
                for key, value in zip(node.keys, node.values):
                    if isinstance(key, ast.Constant) and key.value == "colorscale" and isinstance(value, ast.Constant):
                        found.append(f"{name}:{node.lineno} colorscale {value.value!r}")
                    if isinstance(key, ast.Constant) and str(key.value).endswith("font") and _literal(value):
                        found.append(f"{name}:{node.lineno} {key.value}: {ast.unparse(value)}")
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
                if node.func.attr == "update_layout" and LOOK & {k.arg for k in node.keywords}:
                    found.append(f"{name}:{node.lineno} update_layout({sorted(LOOK & {k.arg for k in node.keywords})})")
            if isinstance(node, ast.FunctionDef) and "layout" in node.name:
                found.append(f"{name}:{node.lineno} def {node.name}")
    assert not found, "\n".join(found)


def test_the_style_module_has_one_layout_function() -> None:
    tree = ast.parse((ROOT / "selfexplain" / "views" / "style.py").read_text(encoding="utf-8"))
    functions = [node for node in tree.body if isinstance(node, ast.FunctionDef) and node.args.args]
    takes_a_figure = [f.name for f in functions if ast.unparse(f.args.args[0].annotation) == "go.Figure"]
    assert takes_a_figure == ["apply_layout"]


def test_a_labelled_grid_gets_fixed_margins_for_its_longest_label_and_keeps_them_when_presented() -> None:
    grid = span_grid_figure(make_explanation(n=6))
    labels = [*grid.layout.xaxis.ticktext, *grid.layout.yaxis.ticktext]
    assert grid.layout.xaxis.automargin is False and grid.layout.yaxis.automargin is False
    assert grid.layout.xaxis.tickangle == -90
    assert grid.layout.margin.l == grid.layout.margin.b == label_room(labels, 11)
    assert label_room(["unforgettable"], 11) > label_room(["a"], 11)
    big = apply_layout(grid, present=True)
    assert big.layout.margin.l == label_room(labels, 15) > grid.layout.margin.l


def test_a_colour_bar_above_lies_across_the_top_with_room_for_it_under_the_title() -> None:
    fig = apply_layout(go.Figure(go.Heatmap(z=[[0.0, 1.0]], colorbar={"title": "alpha"})), "Grid", 400)
    top = fig.layout.margin.t
    apply_layout(fig, colorbar_above=True)
    bar = fig.data[0].colorbar
    assert (bar.orientation, bar.y, bar.yanchor, bar.len) == ("h", 1.0, "bottom", 1.0)
    assert bar.ticklabelposition == "outside top" and bar.tickangle == 0  # numbers above the bar, level
    assert (bar.title.text, bar.title.side) == ("alpha", "top")
    assert fig.layout.margin.t == top + style.COLORBAR_ROOM and fig.layout.height == 400 + style.COLORBAR_ROOM
