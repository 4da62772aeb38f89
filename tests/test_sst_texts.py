"""scripts/sst_texts.py: the sentences of an SST tree file, then its long phrases, all or a seeded sample."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "sst_texts.py"
TREES = (
    "(3 (2 (2 a) (2 quiet)) (3 (2 film) (3 (2 that) (3 (2 trusts) (2 (2 its) (2 (2 own) (2 audience)))))))\n"
    "(1 (2 it) (1 (2 never) (1 (2 lands))))\n"
)


def _run(tmp_path: Path, *options: str) -> tuple[list[str], str, int]:
    trees = tmp_path / "train.txt"
    trees.write_text(TREES, encoding="utf-8")
    target = tmp_path / "texts.txt"
    done = subprocess.run(
        [sys.executable, str(SCRIPT), str(trees), str(target), *options], capture_output=True, text=True
    )
    texts = target.read_text(encoding="utf-8").splitlines() if target.exists() else []
    return texts, done.stdout + done.stderr, done.returncode


def test_sentences_first_then_every_phrase_of_enough_words(tmp_path: Path) -> None:
    texts, out, code = _run(tmp_path, "--min-words", "4")
    assert code == 0, out
    assert texts[:2] == ["a quiet film that trusts its own audience", "it never lands"]
    # the phrases of 4+ words under the first sentence, each once; the short sentence adds none
    assert sorted(texts[2:]) == ["film that trusts its own audience", "that trusts its own audience",
                                 "trusts its own audience"]  # fmt: skip
    assert "5 texts" in out


def test_a_seeded_sample_of_the_phrases(tmp_path: Path) -> None:
    first, _, _ = _run(tmp_path, "--min-words", "4", "--phrases", "2")
    again, _, _ = _run(tmp_path, "--min-words", "4", "--phrases", "2")
    assert first == again and len(first) == 4 and first[:2] == ["a quiet film that trusts its own audience",
                                                                "it never lands"]  # fmt: skip
    assert set(first[2:]) < {"film that trusts its own audience", "that trusts its own audience",
                             "trusts its own audience"}  # fmt: skip


def test_too_many_phrases_is_refused_with_the_count(tmp_path: Path) -> None:
    texts, out, code = _run(tmp_path, "--min-words", "4", "--phrases", "9")
    assert code != 0 and texts == [] and "between 0 and 3" in out
