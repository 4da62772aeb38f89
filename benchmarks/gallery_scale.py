"""The gallery at scale (issue 24.5): import, export, list and open the Gallery page with many pins.

    python benchmarks/gallery_scale.py [--pins 150000] [--words 6] [--work DIR] [--json out.json]

Writes ``--pins`` synthetic pins (valid records of ``--words``-word texts, the 20 top spans stored, as
the app stores them) to a JSONL file, then, each step in a fresh process (its peak resident memory is
its own): imports a quarter of them with ``selfexplain gallery import`` and exports them, imports the
rest and exports all (time of 4x the pins over time of 1x: about 4 when export is linear), lists the
first page and a page from the middle (keyset), lists a page with the CLI, and opens the Gallery page
once (Streamlit's AppTest: the script run the server would do, without a browser). Needs no model.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
WORDS = "film story plot cast scene music ending actor pace script camera score humour drama twist heart".split()
LABELS = ["very negative", "negative", "neutral", "positive", "very positive"]


def synthetic_pin(n: int, words: int, rng: random.Random) -> dict:
    """A valid pin record: ``words`` tokens, every span (i, j) with a random alpha, the top 20 stored."""
    tokens, text = [], ""
    for _ in range(words):
        word = rng.choice(WORDS)
        start = len(text) + (1 if text else 0)
        text = f"{text} {word}" if text else word
        tokens.append({"text": word, "start": start, "end": start + len(word), "segment": 0, "piece": word})
    spans = [(i, j) for i in range(words) for j in range(i, words)]
    alpha = [rng.random() for _ in spans]
    total = sum(alpha)
    ranked = sorted(zip(spans, (a / total for a in alpha)), key=lambda s: -s[1])[:20]
    probs = [rng.random() for _ in LABELS]
    probs = [p / sum(probs) for p in probs]
    label = LABELS[max(range(len(LABELS)), key=probs.__getitem__)]
    explanation = {
        "model": "bench-model", "text": text, "pair": None, "label": label,
        "probabilities": dict(zip(LABELS, probs)), "tokens": tokens,
        "spans": [
            {"start_token": i, "end_token": j, "start_char": tokens[i]["start"], "end_char": tokens[j]["end"],
             "segment": 0, "text": text[tokens[i]["start"]:tokens[j]["end"]], "alpha": a, "rank": r}
            for r, ((i, j), a) in enumerate(ranked, start=1)
        ],
        "num_valid_spans": len(spans), "span_unit": "word",
        "stored": {"top_k": 20, "alpha_grid": False, "attentions": False},
    }  # fmt: skip
    created = datetime(2025, 1, 1, tzinfo=UTC) + timedelta(seconds=n)
    return {"id": f"b{n:08d}", "created": created.isoformat(), "model": "bench-model", "text": text, "pair": None,
            "note": f"pin {n}", "label": label, "explanation": explanation}  # fmt: skip


def peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def step(work: Path, name: str, *args: str) -> dict:
    """Run ``--step name`` in a fresh process with the gallery in ``work/home``; its JSON result."""
    env = {**os.environ, "SELFEXPLAIN_HOME": str(work / "home")}
    env.pop("SELFEXPLAIN_DB_URL", None)
    command = [sys.executable, __file__, "--work", str(work), "--step", name, *args]
    done = subprocess.run(command, env=env, cwd=ROOT, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"step {name} failed:\n{done.stdout}\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def run_step(work: Path, name: str, extra: list[str]) -> dict:
    """One measured step in this process (called through :func:`step`)."""
    from selfexplain.cli import main as cli

    before = peak_mb()
    began = time.perf_counter()
    if name in ("import", "export"):
        if cli(["gallery", name, extra[0]]) != 0:
            raise SystemExit(f"gallery {name} failed")
    elif name == "list":
        import sqlalchemy as sa

        from selfexplain.gallery.schema import PINS
        from selfexplain.gallery.store import GalleryStore

        store = GalleryStore()
        newest_first = sa.select(PINS.c.id).order_by(PINS.c.created_at.desc(), PINS.c.id.desc())
        with store.engine.connect() as connection:  # a pin half-way down (found by offset, not timed)
            middle = connection.execute(newest_first.offset(store.count() // 2).limit(1)).scalar()
        began = time.perf_counter()
        first, _ = store.page(limit=50)
        after_first = time.perf_counter()
        deep, _ = store.page(limit=50, after=middle)
        after_deep = time.perf_counter()
        with open(os.devnull, "w") as sink:
            stdout, sys.stdout = sys.stdout, sink
            try:
                cli(["gallery", "list"])
            finally:
                sys.stdout = stdout
        return {"first_page_s": after_first - began, "middle_page_s": after_deep - after_first,
                "cli_list_s": time.perf_counter() - after_deep, "count": store.count(),
                "peak_rss_mb": peak_mb()}  # fmt: skip
    elif name == "page":
        from streamlit.testing.v1 import AppTest

        sys.path.insert(0, str(ROOT))  # the page imports pages.ui
        at = AppTest.from_file(str(ROOT / "pages" / "8_Gallery.py"), default_timeout=600).run()
        if at.exception:
            raise SystemExit(f"the page raised: {at.exception[0].message}")
        return {"seconds": time.perf_counter() - began, "rows_shown": len(at.dataframe[0].value),
                "peak_rss_mb": peak_mb(), "rss_before_mb": before}  # fmt: skip
    return {"seconds": time.perf_counter() - began, "peak_rss_mb": peak_mb(), "rss_before_mb": before}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pins", type=int, default=150_000)
    parser.add_argument("--words", type=int, default=6)
    parser.add_argument("--work", type=Path, default=None, help="folder for the files and the gallery (default: temp)")
    parser.add_argument("--json", type=Path, default=None)
    parser.add_argument("--step", default=None, help=argparse.SUPPRESS)
    args, extra = parser.parse_known_args()
    if args.step:
        print(json.dumps(run_step(args.work, args.step, extra)))
        return
    work = args.work or Path(tempfile.mkdtemp(prefix="gallery-scale-"))
    work.mkdir(parents=True, exist_ok=True)
    rng = random.Random(0)
    quarter, rest = work / "quarter.jsonl", work / "rest.jsonl"
    with quarter.open("w", encoding="utf-8") as first, rest.open("w", encoding="utf-8") as second:
        for n in range(args.pins):
            (first if n < args.pins // 4 else second).write(json.dumps(synthetic_pin(n, args.words, rng)) + "\n")
    size = quarter.stat().st_size + rest.stat().st_size
    result: dict = {"pins": args.pins, "words": args.words, "jsonl_mb": size / 2**20}
    result["import_quarter"] = step(work, "import", str(quarter))
    result["export_quarter"] = step(work, "export", str(work / "export-quarter.jsonl"))
    result["import_rest"] = step(work, "import", str(rest))
    result["export_all"] = step(work, "export", str(work / "export-all.jsonl"))
    result["export_time_ratio_4x"] = result["export_all"]["seconds"] / result["export_quarter"]["seconds"]
    result["list"] = step(work, "list")
    result["page"] = step(work, "page")
    text = json.dumps(result, indent=2)
    print(text)
    if args.json:
        args.json.write_text(text + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
