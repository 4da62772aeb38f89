"""Server memory over many long texts, in one session and across three (issue 24 item 7).

    python benchmarks/long_memory.py [--texts 30] [--words 1000] [--model sst5-minilm] [--json out.json]

Starts ``streamlit run app.py`` (headless) and drives Debian's Chromium through Playwright. Phase
"one session": one page, ``--texts`` texts of ``--words`` words each, typed one after another (each over
1,000 tokens, so the Explain page opens it as a document). Phase "three sessions": three more pages
taking turns, ``--texts`` new texts in all. After each text the server's resident set is read, which
gives the curve. Texts are written here from a seeded grammar of film-review sentences (no data set;
no two texts alike). Target: after the 10th text of a phase, the server's RSS stays within 100 MB of
its value then.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path

import psutil
from playwright.sync_api import Page

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))  # the browser tests' server and Chromium launcher
sys.path.insert(0, str(ROOT / "benchmarks"))
from browser_support import DONE, app_server, chromium, drawn  # noqa: E402
from long_inputs import review_sentence  # noqa: E402

TARGET_MB = 100.0


def review(words: int, seed: int) -> str:
    """About ``words`` words of film-review sentences in paragraphs of five (seeded)."""
    rng = random.Random(seed)
    sentences: list[str] = []
    count = 0
    while count < words:
        sentence = review_sentence(rng)
        sentences.append(sentence)
        count += len(sentence.split())
    paragraphs = [" ".join(sentences[i : i + 5]) for i in range(0, len(sentences), 5)]
    return f"Review {seed}. " + "\n\n".join(paragraphs)


def explain(page: Page, text: str, timeout_ms: int = 600_000) -> float:
    """Type ``text``, press Ctrl+Enter and wait until the run that read it has finished and drawn."""
    box = page.locator("textarea").first
    box.fill(text)
    start = time.perf_counter()
    box.press("Control+Enter")
    head = text.split(".")[0]  # "Review N": the app writes the text into the link during the run
    page.wait_for_function(
        "t => decodeURIComponent(location.search.replace(/\\+/g, ' ')).includes(t)", arg=head, timeout=timeout_ms
    )
    page.wait_for_selector(DONE, timeout=timeout_ms)
    drawn(page, timeout_ms)
    return time.perf_counter() - start


def summary(name: str, curve: list[float]) -> dict[str, object]:
    """The curve in MB and its growth after the 10th text."""
    tenth = curve[min(9, len(curve) - 1)]
    after = curve[10:] or [tenth]
    growth, end = max(after) - tenth, curve[-1] - tenth
    verdict = "met" if growth <= TARGET_MB else "missed"
    print(f"{name}: RSS {curve[0]:.0f} MB after the 1st text, {tenth:.0f} MB after the 10th, peak after it "
          f"{max(after):.0f} MB ({growth:+.0f} MB), {curve[-1]:.0f} MB at the end ({end:+.0f} MB); "
          f"target within {TARGET_MB:.0f} MB of the 10th: {verdict} (ratio {growth / TARGET_MB:.2f})")  # fmt: skip
    return {"rss_mb": curve, "after_10th_mb": tenth, "peak_growth_mb": growth, "end_growth_mb": end}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--texts", type=int, default=30, help="texts per phase")
    parser.add_argument("--words", type=int, default=1000, help="words per text")
    parser.add_argument("--model", default="sst5-minilm")
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args()
    result: dict[str, object] = {"model": args.model, "texts": args.texts, "words": args.words}
    with app_server(timeout=300) as app, chromium() as browser:
        server = psutil.Process(app.pid)
        pages = [browser.new_page(viewport={"width": 1440, "height": 1000}) for _ in range(4)]
        for page in pages:
            page.goto(f"{app.url}/?model={args.model}", timeout=300_000)
            page.wait_for_selector(DONE, timeout=300_000)
        turns = [pages[1 + i % 3] for i in range(args.texts)]
        phases = {"one session": [pages[0]] * args.texts, "three sessions": turns}
        seed = 0
        for name, order in phases.items():
            curve, seconds = [], []
            for page in order:
                seconds.append(explain(page, review(args.words, seed)))
                seed += 1
                curve.append(server.memory_info().rss / 2**20)
            result[name] = {**summary(name, curve), "seconds": seconds}
    if args.json:
        args.json.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
