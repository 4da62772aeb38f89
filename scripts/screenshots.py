"""Screenshots of every page at 1,440 px and 1,024 px: the pictures README.md links to.

The test run never writes them (its screenshots go to artifacts/); this command regenerates them on
purpose, from the shipped models, in Debian's Chromium:

    python scripts/screenshots.py                      # into assets/screenshots/
    python scripts/screenshots.py --out artifacts/shots --widths 1440
    python scripts/screenshots.py --pages compare --widths 1024 --out artifacts/shots

Each page is opened on its defaults (the Explain page on a 19-word review, and once in presentation
mode), waited for until its script has finished and every chart is drawn, and captured whole:
``NAME.png`` at 1,440 px, ``NAME-1024.png`` at 1,024 px. Look at them before committing.
"""

from __future__ import annotations

import argparse
import sys
import urllib.parse
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))  # the browser tests' server and Chromium launcher
sys.path.insert(0, str(ROOT))  # the app's pages package
from browser_support import COLD_START_MS, DONE, app_server, chromium, drawn  # noqa: E402

from pages.ui.page_registry import PAGES as PAGE_REGISTRY  # noqa: E402

REVIEW = "Despite a sluggish first act, the film finds its footing and the final scenes make it quietly unforgettable."
# (file name, path and query after the server's address): the Explain page on a review and in presentation
# mode, then every other page of the app (pages/ui/page_registry.py) on its defaults
PAGES: tuple[tuple[str, str], ...] = (
    ("explain", "/?" + urllib.parse.urlencode({"text": REVIEW})),
    ("presentation", "/?" + urllib.parse.urlencode({"text": "The visuals are gorgeous, but the story is thin.",
                                                     "present": "1"})),
    *((page.address.lower(), f"/{page.address}") for page in PAGE_REGISTRY.values() if page.address),
)  # fmt: skip
HEIGHT = 1000  # the viewport's height; each capture is of the whole page


def capture(url: str, out: Path, widths: tuple[int, ...], names: set[str] | None = None) -> list[Path]:
    """Open every page of the app at ``url`` (those in ``names``, when given) at each width and save a
    whole-page PNG of it under ``out``."""
    out.mkdir(parents=True, exist_ok=True)
    saved: list[Path] = []
    with chromium() as browser:
        for width in widths:
            page = browser.new_page(viewport={"width": width, "height": HEIGHT})
            for name, path in PAGES:
                if names and name not in names:
                    continue
                page.goto(url + path, timeout=COLD_START_MS)
                page.wait_for_selector("h1", timeout=COLD_START_MS)
                page.wait_for_selector(DONE, timeout=COLD_START_MS)
                drawn(page)
                # the page scrolls inside stMain: a viewport as tall as its content puts all of it in one picture
                tall = page.evaluate("document.querySelector(\"[data-testid='stMain']\").scrollHeight")
                page.set_viewport_size({"width": width, "height": max(HEIGHT, int(tall) + 40)})
                page.wait_for_timeout(1000)  # plotly redraws at the new size
                target = out / (f"{name}.png" if width == 1440 else f"{name}-{width}.png")
                page.screenshot(path=str(target), full_page=True)
                page.set_viewport_size({"width": width, "height": HEIGHT})
                saved.append(target)
                if page.locator("[data-testid='stException']").count():
                    print(f"{name} at {width} px shows an exception: {target}", file=sys.stderr)
            page.close()
    return saved


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=ROOT / "assets" / "screenshots", help="folder for the PNGs")
    parser.add_argument("--widths", default="1440,1024", help="viewport widths in pixels, comma-separated")
    parser.add_argument("--pages", default="", help="only these pages, comma-separated (e.g. compare,explain)")
    args = parser.parse_args(argv)
    widths = tuple(int(w) for w in args.widths.split(","))
    names = {n.strip() for n in args.pages.split(",") if n.strip()}
    unknown = names - {name for name, _ in PAGES}
    if unknown:
        parser.error(f"no page named {', '.join(sorted(unknown))}; the pages: {', '.join(n for n, _ in PAGES)}")
    with app_server(script="serve.py", timeout=COLD_START_MS / 1000) as server:
        for path in capture(server.url, args.out, widths, names):
            print(path)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
