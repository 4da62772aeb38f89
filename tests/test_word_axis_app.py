"""Issue 23 item 2 on the Explain page: attention on the alpha grid's words beside it, encoder tokens behind a
toggle, and the head view."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

from helpers import open_page

APP = str(Path(__file__).resolve().parents[1] / "app.py")
TEXT = "The visuals are gorgeous, but the storytelling is unbelievably thin."


def charts(at) -> dict[str, dict]:
    specs = [json.loads(c.proto.spec) for c in at.get("plotly_chart")]
    return {s["layout"]["title"]["text"]: s for s in specs}


def test_attention_shares_the_grids_words_and_tokens_are_a_toggle(tiny_model_dir: Path) -> None:
    at = open_page(APP, tiny_model_dir)
    at.text_area(key="text").input(TEXT).run()
    assert not at.exception
    shown = charts(at)
    grid = next(s for t, s in shown.items() if t.startswith("Self-explaining alpha"))
    attention = next(s for t, s in shown.items() if t.startswith("Raw self-attention"))
    level = at.segmented_control(key="grid_level").value
    assert attention["layout"]["title"]["text"].endswith(f"{level} level")
    for axis in ("xaxis", "yaxis"):
        assert attention["layout"][axis]["ticktext"] == grid["layout"][axis]["ticktext"]
        assert attention["layout"][axis]["tickvals"] == grid["layout"][axis]["tickvals"]
    assert any("sum over" in c.value and "mean over" in c.value for c in at.caption)  # the merge rule is stated
    at.toggle(key="attn_tokens").set_value(True).run()
    attention = next(s for t, s in charts(at).items() if t.startswith("Raw self-attention"))
    assert "[CLS]" in attention["layout"]["xaxis"]["ticktext"] and "level" not in attention["layout"]["title"]["text"]
    at.toggle(key="show_head_view").set_value(True).run()
    assert not at.exception
    assert not any(t.startswith("Head view") for t in charts(at))  # HTML now, focused by hovering a word
    head = next(e.proto.body for e in at.get("html") if 'class="se-hv"' in e.proto.body)
    assert "Head view: Raw self-attention" in head and "<script" not in head
    words = [html.unescape(w) for w in re.findall(r'<span class="se-hv-w">(.*?)</span>', head)]
    assert words == [html.unescape(t) for t in grid["layout"]["xaxis"]["ticktext"]]
    assert any(f"Hover a {level} on the left to focus its lines" in c.value for c in at.caption)
