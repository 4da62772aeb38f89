"""A real browser (Debian's chromium via Playwright) drives `streamlit run serve.py`, the README's command
(the app's pages, with the default model loaded when the server starts).

Skipped when Playwright or chromium is missing; .ci/run installs both.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from browser_support import CHROMIUM, COLD_START_MS, DONE, app_server, chromium, drawn

from pages.ui.page_registry import PAGES as PAGE_REGISTRY
from selfexplain.views.style import HEAD_LINE_FOCUS

ROOT = Path(__file__).resolve().parents[1]
ARTIFACTS = ROOT / "artifacts"
XSS = "<img src=x onerror=alert(1)><script>alert(2)</script> **not bold** $x$ a dull film"

sync_api = pytest.importorskip("playwright.sync_api", reason="needs playwright")
pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="needs Debian's chromium"),
]


@pytest.fixture(scope="module")
def app_url() -> Iterator[str]:
    with app_server(script="serve.py", timeout=300) as app:
        yield app.url


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    with chromium() as launched:
        yield launched


WATCH_RERUNS = """() => {
    window.__reruns = 0;
    const app = document.querySelector("[data-testid='stApp']");
    new MutationObserver(() => {
        if (app.getAttribute("data-test-script-state") === "running") window.__reruns += 1;
    }).observe(app, {attributes: true, attributeFilter: ["data-test-script-state"]});
}"""


def open_page(browser, url: str, dialogs: list[str]):
    page = browser.new_page(viewport={"width": 1440, "height": 2400}, accept_downloads=True)
    # waits that name no timeout (the grid's redraw in click_grid_cell) outlast a machine busy with training
    page.set_default_timeout(60_000)
    page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    page.goto(url, timeout=COLD_START_MS)
    page.wait_for_selector("textarea", timeout=COLD_START_MS)  # the module's first page meets a cold server
    return page


def explain(page, text: str) -> None:
    """Type ``text``, run it and wait until the page shows *its* explanation. The first-open example is
    already explained, so its grid and an idle page are there before this run even starts: wait for the
    link to carry the whole new text (the app writes it during the run; the first-open example begins with
    the same 40 characters as the texts here, so a prefix would match it) and the highlight to show it."""
    box = page.locator("textarea").first
    box.fill(text)
    box.press("Control+Enter")
    page.wait_for_function(
        "t => decodeURIComponent(location.search.replace(/\\+/g, ' ')).includes(t)", arg=text, timeout=90_000
    )
    page.wait_for_selector(DONE, timeout=90_000)
    page.wait_for_function(
        "t => (document.querySelector('.selfexplain-highlight') || {}).innerText?.includes(t)",
        arg=text[:20],
        timeout=90_000,
    )
    page.wait_for_selector("text=Self-explaining alpha", timeout=90_000)


def alpha_grid(page):
    """The Explain page's alpha grid (a Plotly figure; the attention heatmaps are figures too)."""
    return page.locator(".js-plotly-plot").filter(has_text="Self-explaining alpha")


def click_grid_cell(page, grid, cell: int | str, shown: str) -> None:
    """Click point ``cell`` of the alpha grid (its index, or a function of the grid element that returns it)
    until ``shown`` appears. Plotly may redraw the grid once more after the run, and a click then is lost;
    each try waits on the grid itself (not any plot), since a redraw can leave it without ``_fullData``, and
    takes the grid afresh, since a redraw can also replace the element a handle holds. While a rerun
    replaces the grid, the old and the new one can both be on the page for a moment (the locator then
    matches two elements): that try waits a second and starts again."""
    for _ in range(5):
        try:
            handle = grid.element_handle()
            page.wait_for_function("e => e._fullData?.some(t => t.name === 'spans')", arg=handle, timeout=20_000)
        except sync_api.TimeoutError:
            continue  # a redraw replaced the element this handle holds: take the grid again
        except sync_api.Error as err:
            if "strict mode violation" not in str(err):
                raise
            page.wait_for_timeout(1_000)  # the old grid is still on the page beside the new one
            continue
        index = cell if isinstance(cell, int) else handle.evaluate(cell)
        assert index >= 0
        grid.locator(".scatterlayer .point").nth(index).click(force=True)
        try:
            page.wait_for_selector(shown, timeout=20_000)
            return
        except sync_api.TimeoutError:
            continue
    page.wait_for_selector(shown, timeout=1_000)


def test_type_click_highlight_download(browser, app_url: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    dialogs: list[str] = []
    page = open_page(browser, app_url, dialogs)
    explain(page, "The visuals are gorgeous, but the story is thin and the ending falls flat.")
    assert page.locator("text=Raw self-attention").count() >= 1
    assert page.locator(".selfexplain-highlight mark").count() >= 1
    # click a cell of the span grid: the transparent markers carry (start, end)
    grid = alpha_grid(page)
    # "Selected: rank N, alpha ...", or for a cell of a sparse alpha's zeros "Selected: alpha 0, not ranked"
    click_grid_cell(page, grid, 3, "text=Selected:")
    page.wait_for_selector(DONE, timeout=60_000)
    assert page.locator(".selfexplain-highlight [style*='outline']").count() >= 1
    # a download click must not rerun the script: a rerun replaces the deferred files, and a request that
    # arrives after it finished finds its file gone (issue 23 defect 5); watch the script state meanwhile
    page.evaluate(WATCH_RERUNS)
    with page.expect_download() as download_info:
        page.get_by_text("Download explanation (JSON)").click()
    data = json.loads(Path(download_info.value.path()).read_text(encoding="utf-8"))
    assert data["label"] in data["probabilities"]
    assert sum(s["alpha"] for s in data["spans"]) == pytest.approx(1.0, abs=1e-3)
    # then the report (issue 23 defect 5: a rerun started by the first download dropped the second's
    # deferred file, so no report arrived and the server logged MediaFileStorageError)
    with page.expect_download() as report_info:
        page.get_by_text("Download report (HTML, works offline)").click()
    report = Path(report_info.value.path()).read_text(encoding="utf-8")
    assert report_info.value.suggested_filename == "selfexplain-report.html"
    assert "<html" in report.lower() and "gorgeous" in report
    page.wait_for_timeout(500)
    assert page.evaluate("window.__reruns") == 0, "a download click reran the script"
    page.screenshot(path=str(ARTIFACTS / "explain-page.png"), full_page=True)
    assert dialogs == []


def test_table_then_grid_selection_goes_idle(browser, app_url: str) -> None:
    """Tick a row of the span table, then click a grid cell: one rerun each, then silence (this
    used to rerun about once a second forever)."""
    dialogs: list[str] = []
    page = open_page(browser, app_url, dialogs)
    frames: list[int] = []
    page.on("websocket", lambda ws: ws.on("framereceived", lambda _: frames.append(1)))
    page.reload()
    page.wait_for_selector("textarea", timeout=90_000)
    explain(page, "The visuals are gorgeous, but the story is thin and the ending falls flat.")
    table = page.locator("[data-testid='stDataFrame']").first
    table.scroll_into_view_if_needed()
    box = table.bounding_box()
    assert box is not None
    page.mouse.click(box["x"] + 18, box["y"] + 35 + 17)  # the first row's selection checkbox
    page.wait_for_selector("text=Selected: rank 1,", timeout=60_000)
    page.wait_for_selector(DONE, timeout=60_000)
    click_grid_cell(page, alpha_grid(page), 3, "text=Selected:")
    page.wait_for_timeout(2000)
    page.wait_for_selector(DONE, timeout=60_000)
    selected = page.locator("text=Selected:").inner_text()  # a zero cell: "Selected: alpha 0, not ranked"
    frames.clear()
    states = []
    for _ in range(30):  # 6 s of watching
        page.wait_for_timeout(200)
        states.append(page.locator("[data-testid='stApp']").get_attribute("data-test-script-state"))
    assert set(states) == {"notRunning"}
    assert len(frames) <= 2, f"{len(frames)} messages from the server while idle"
    assert page.locator("text=Selected:").inner_text() == selected  # the grid's pick is kept
    assert page.locator(".selfexplain-highlight [style*='outline']").count() >= 1
    assert dialogs == []


def test_edit_a_span_see_what_moved_and_undo(browser, app_url: str) -> None:
    """Pick a span in the grid, delete its words from the text: a new prediction, the difference grid
    and the moved spans appear; Undo brings the text back."""
    ARTIFACTS.mkdir(exist_ok=True)
    dialogs: list[str] = []
    page = open_page(browser, app_url, dialogs)
    original = "The visuals are gorgeous, but the story is thin and the ending falls flat."
    explain(page, original)
    grid = alpha_grid(page)
    # the top span's cell: a sparse alpha leaves most spans at 0, and deleting one of those moves nothing
    top_cell = "el => Array.from(el._fullData.find(t => t.name === 'spans').customdata, r => Number(r[3])).indexOf(1)"
    click_grid_cell(page, grid, top_cell, "text=Selected: rank 1")
    page.wait_for_selector(DONE, timeout=60_000)
    page.get_by_role("button", name="Delete selected span").click()
    page.wait_for_selector("text=How the edit moved alpha", timeout=90_000)
    page.wait_for_selector(DONE, timeout=90_000)
    edited = page.locator("textarea").first.input_value()
    assert edited != original and len(edited) < len(original)
    assert page.locator("text=Prediction after the edit").count() == 1
    assert page.locator("text=Edits so far").count() == 1
    page.locator("text=How the edit moved alpha").scroll_into_view_if_needed()
    page.screenshot(path=str(ARTIFACTS / "edit.png"), full_page=True)
    page.get_by_role("button", name="Undo").click()
    page.wait_for_function(f"() => document.querySelector('textarea').value === {json.dumps(original)}")
    page.wait_for_selector(DONE, timeout=90_000)
    assert page.locator("text=How the edit moved alpha").count() == 0
    assert dialogs == []


def test_presentation_mode(browser, app_url: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    dialogs: list[str] = []
    page = browser.new_page(viewport={"width": 1440, "height": 1600})
    page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    page.goto(f"{app_url}/?present=1&text=The+cast+is+wonderful+but+the+plot+never+takes+off.")
    page.wait_for_selector("text=How much each phrase counted", timeout=90_000)
    page.wait_for_selector(DONE, timeout=90_000)
    assert page.locator("text=Spans to show").count() == 0 and page.locator("text=Change the input").count() == 1
    assert page.locator("text=sure the answer is").count() == 1 and page.locator("text=The model decided").count() == 1
    assert page.locator("[data-testid='stSidebar']").is_hidden()  # no sidebar, no Pin box in front of a room
    assert page.locator("text=Note for the gallery").count() == 0
    # the predicted label is drawn large enough to read from the back of a room (48 px and more)
    innermost = "e => { let n = e; while (n.firstElementChild) n = n.firstElementChild; return n; }"
    label = page.locator("[data-testid='stMetricValue']").first.evaluate_handle(innermost)
    assert float(label.evaluate("n => parseFloat(getComputedStyle(n).fontSize)")) >= 48
    page.screenshot(path=str(ARTIFACTS / "presentation.png"), full_page=True)
    assert dialogs == []


def rgb(colour: str) -> str:
    """``#rrggbb`` as getComputedStyle writes it."""
    return "rgb({}, {}, {})".format(*(int(colour[i : i + 2], 16) for i in (1, 3, 5)))


def test_hovering_a_head_view_word_focuses_its_lines(browser, app_url: str) -> None:
    """The head view is HTML and CSS (st.html keeps no SVG, runs no script): hovering a word on the left
    keeps it and its lines at full strength in the focus colour and fades the other words; leaving restores
    them, and no hover reruns the script."""
    ARTIFACTS.mkdir(exist_ok=True)
    dialogs: list[str] = []
    page = open_page(browser, app_url, dialogs)
    explain(page, "The visuals are gorgeous, but the story is thin and the ending falls flat.")
    page.get_by_text("Head view: lines between words").click()
    page.wait_for_selector(".se-hv-q .se-hv-l", timeout=60_000)  # the sanitiser kept the words and their lines
    page.wait_for_selector(DONE, timeout=60_000)
    words = page.locator(".se-hv-q")
    assert words.count() >= 5 and page.locator(".se-hv-k").count() == words.count()
    opacity = "els => els.map(e => Number(getComputedStyle(e).opacity))"
    assert set(words.evaluate_all(opacity)) == {1.0}
    page.evaluate(WATCH_RERUNS)
    focused = words.nth(2)
    focused.hover()
    page.wait_for_timeout(300)
    shown = words.evaluate_all(opacity)
    assert shown[2] == 1.0 and max(shown[:2] + shown[3:]) < 0.5, shown
    colours = focused.locator(".se-hv-l").evaluate_all("els => els.map(e => getComputedStyle(e).backgroundColor)")
    assert colours and set(colours) == {rgb(HEAD_LINE_FOCUS)}
    other = words.nth(0).locator(".se-hv-l").evaluate_all("els => els.map(e => getComputedStyle(e).backgroundColor)")
    assert rgb(HEAD_LINE_FOCUS) not in other
    assert "attends to" in (focused.get_attribute("title") or "")  # its numbers, on a rest
    page.locator(".se-hv-title").scroll_into_view_if_needed()
    page.screenshot(path=str(ARTIFACTS / "head-view-hover.png"), full_page=True)
    page.mouse.move(1, 1)
    page.wait_for_timeout(300)
    assert set(words.evaluate_all(opacity)) == {1.0}
    assert page.evaluate("window.__reruns") == 0, "hovering the head view reran the script"
    assert dialogs == []


def test_markup_in_text_is_inert(browser, app_url: str) -> None:
    dialogs: list[str] = []
    page = open_page(browser, app_url, dialogs)
    explain(page, XSS)
    page.wait_for_timeout(1000)
    assert dialogs == []
    assert page.locator("img[src='x']").count() == 0
    highlight = page.locator(".selfexplain-highlight").inner_text()
    assert "<img src=x onerror=alert(1)>" in highlight and "**not bold**" in highlight
    page.screenshot(path=str(ARTIFACTS / "markup-is-inert.png"), full_page=True)


PAGES = tuple(page.address for page in PAGE_REGISTRY.values() if page.address)  # every page but the landing one


def test_every_page_opens_and_is_captured(browser, app_url: str) -> None:
    """Each page opens at 1440 px with no exception box and no script running; a screenshot of each
    lands in artifacts/ (the README's pictures come from these)."""
    ARTIFACTS.mkdir(exist_ok=True)
    dialogs: list[str] = []
    page = open_page(browser, app_url, dialogs)
    explain(
        page,
        "Despite a sluggish first act, the film finds its footing and the final scenes make it quietly unforgettable.",
    )
    drawn(page)
    page.screenshot(path=str(ARTIFACTS / "page-explain.png"), full_page=True)
    for name in PAGES:
        page.goto(f"{app_url}/{name}")
        page.wait_for_selector("h1", timeout=90_000)
        page.wait_for_selector(DONE, timeout=90_000)
        assert page.locator("[data-testid='stException']").count() == 0, name
        drawn(page)
        page.screenshot(path=str(ARTIFACTS / f"page-{name.lower()}.png"), full_page=True)
    assert dialogs == []


NAV_LABELS = ["Explain", "Compare", "Faithfulness", "Attention anatomy", "Probing", "Adversarial", "Batch", "Explorer",
              "Gallery", "Model card"]  # fmt: skip


def test_sidebar_names_every_page_and_its_links_open_them(browser, app_url: str) -> None:
    """The sidebar lists the pages by name ("Explain", never "app"), with no second list from Streamlit;
    a link opens its page at its usual address, and the links are there too."""
    dialogs: list[str] = []
    page = open_page(browser, app_url, dialogs)
    page.wait_for_selector(DONE, timeout=90_000)
    sidebar = page.locator("[data-testid='stSidebar']")
    links = sidebar.locator("[data-testid='stPageLink'] a")
    # the links' text arrives after the script run (read at once it was empty now and then): wait for it
    sync_api.expect(links).to_have_text(NAV_LABELS, timeout=60_000)
    assert page.locator("[data-testid='stSidebarNav']").count() == 0
    assert sidebar.get_by_text("app", exact=True).count() == 0
    sidebar.get_by_role("link", name="Faithfulness").click()
    page.wait_for_url(re.compile(re.escape(app_url) + r"/Faithfulness(\?.*)?$"), timeout=60_000)
    page.wait_for_selector("h1:has-text('Faithfulness lab')", timeout=90_000)
    page.wait_for_selector(DONE, timeout=90_000)
    sync_api.expect(links).to_have_text(NAV_LABELS, timeout=60_000)
    sidebar.get_by_role("link", name="Explain").click()
    page.wait_for_url(re.compile(re.escape(app_url) + r"/(\?.*)?$"), timeout=60_000)
    page.wait_for_selector("textarea", timeout=90_000)
    assert dialogs == []


BAND_TEXT = " ".join(
    (
        "Despite a sluggish first act, the film finds its footing and the final scenes make it quietly "
        "unforgettable. The cast is warm, the score is gorgeous, and the story, though thin in places, earns "
        "every tear it asks for. I would gladly watch it again with friends on a rainy Sunday afternoon at home."
    ).split()
)

HEAVIEST_BAND_CELL = """e => {
    // the band cell with the most alpha: its trace, point, axes and its centre in page pixels
    let best = null;
    e._fullData.forEach((t, i) => {
        if (t.name !== 'spans') return;
        t.customdata.forEach((c, j) => { if (!best || c[2] > best.alpha) best = {trace: i, point: j, alpha: c[2]}; });
    });
    const t = e._fullData[best.trace], L = e._fullLayout;
    const xa = L[t.xaxis.replace('x', 'xaxis')], ya = L[t.yaxis.replace('y', 'yaxis')];
    const box = e.getBoundingClientRect();
    return {x: box.left + xa._offset + xa.d2p(t.x[best.point]), y: box.top + ya._offset + ya.d2p(t.y[best.point]),
            text: t.text[best.point], start: t.customdata[best.point][0], end: t.customdata[best.point][1]};
}"""


def test_a_long_text_draws_a_band_whose_shaded_cell_is_hit_where_it_is_drawn(browser, app_url: str) -> None:
    """Past 48 words the grid is a band (issue 58 item 3): every word labelled, and the pointer on the centre
    of the heaviest cell hovers that cell and a click there selects its span."""
    assert len(BAND_TEXT.split()) > 48
    dialogs: list[str] = []
    # a model whose spans are at most 4 words wide (the default, sst5-minilm, has no width limit: a square grid)
    page = open_page(browser, f"{app_url}/?model=sst2-mpnet", dialogs)
    explain(page, BAND_TEXT)
    grid = alpha_grid(page)
    page.wait_for_selector("text=spans drawn as a band")
    handle = grid.element_handle()
    page.wait_for_function("e => e._fullData?.some(t => t.name === 'spans')", arg=handle)
    labels = handle.evaluate(
        "e => Object.keys(e._fullLayout).filter(k => /^xaxis\\d*$/.test(k))"
        ".sort((a, b) => (+a.slice(5) || 1) - (+b.slice(5) || 1)).flatMap(k => e._fullLayout[k].ticktext)"
    )
    assert labels == re.findall(r"\w+|[^\w\s]", BAND_TEXT)  # a label on every word (punctuation is a word here)
    grid.scroll_into_view_if_needed()
    cell = handle.evaluate(HEAVIEST_BAND_CELL)  # its position after the scroll
    page.mouse.move(cell["x"], cell["y"])
    hover = page.wait_for_selector(".hoverlayer .hovertext", timeout=20_000)
    assert cell["text"].replace("&amp;", "&") in hover.text_content()
    assert "rank 1" in hover.text_content()
    page.mouse.click(cell["x"], cell["y"])
    try:
        page.wait_for_selector("text=Selected:", timeout=60_000)
    finally:
        page.screenshot(path=str(ARTIFACTS / "band-hit.png"), full_page=True)
    assert page.locator("text=Selected:").inner_text().startswith("Selected: rank 1,")  # the heaviest span
    page.screenshot(path=str(ARTIFACTS / "band-hit.png"), full_page=True)
    assert dialogs == []
