"""``selfexplain gallery ...`` end to end on a SQLite file in a temporary SELFEXPLAIN_HOME."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from selfexplain.cli import main

ROOT = Path(__file__).resolve().parents[1]
TEXT = "A <b>gorgeous</b> film, but the story is thin."


@pytest.fixture(autouse=True)
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.delenv("SELFEXPLAIN_DB_URL", raising=False)
    monkeypatch.setenv("SELFEXPLAIN_HOME", str(tmp_path / "home"))
    return tmp_path / "home"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["gallery", *argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_add_list_show_remove(capsys: pytest.CaptureFixture[str], tiny_model_dir: Path, home: Path) -> None:
    code, out, _ = run(capsys, "add", TEXT, "--model", str(tiny_model_dir), "--note", "for *Monday*")
    pin_id = out.strip()
    assert code == 0 and len(pin_id) == 12 and int(pin_id, 16) >= 0
    assert (home / "gallery.sqlite3").is_file() and home.stat().st_mode & 0o777 == 0o700
    code, out, _ = run(capsys, "list")
    assert code == 0 and out.startswith(pin_id) and "tiny-sst" in out and "[for *Monday*]" in out
    code, out, _ = run(capsys, "list", "--json")
    listed = json.loads(out)
    assert [p["id"] for p in listed] == [pin_id] and listed[0]["text"] == TEXT and "explanation" not in listed[0]
    assert json.loads(run(capsys, "list", "--json", "--search", "no such words")[1]) == []
    code, out, _ = run(capsys, "show", pin_id, "--json")
    shown = json.loads(out)
    explanation = shown["explanation"]
    assert shown["note"] == "for *Monday*" and shown["model"] == "tiny-sst" and shown["pair"] is None
    assert explanation["label"] == shown["label"] and explanation["text"] == TEXT
    assert sum(explanation["probabilities"].values()) == pytest.approx(1.0, abs=1e-5)
    assert len(explanation["spans"]) == 20 and explanation["stored"]["alpha_grid"] is False
    code, out, _ = run(capsys, "show", pin_id)
    top = explanation["spans"][0]
    assert f"pin {pin_id}" in out and f"text: {TEXT}" in out and "note: for *Monday*" in out
    assert f"  1. {top['alpha']:.4f}  {top['text']}" in out
    assert run(capsys, "remove", pin_id)[:2] == (0, f"removed {pin_id}\n")
    assert run(capsys, "list")[1] == "no pins\n"


def test_export_import_between_homes(
    capsys: pytest.CaptureFixture[str], tiny_model_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ids = [run(capsys, "add", f"{TEXT} {n}", "--model", str(tiny_model_dir))[1].strip() for n in range(2)]
    export = tmp_path / "pins.jsonl"
    assert run(capsys, "export", str(export))[:2] == (0, f"exported 2 pin(s) to {export}\n")
    monkeypatch.setenv("SELFEXPLAIN_HOME", str(tmp_path / "second"))
    assert run(capsys, "import", str(export))[:2] == (0, f"imported 2 pin(s) from {export}\n")
    assert run(capsys, "import", str(export))[1] == f"imported 0 pin(s) from {export}; 2 already present\n"
    assert sorted(p["id"] for p in json.loads(run(capsys, "list", "--json")[1])) == sorted(ids)


def test_bad_input_exits_2_with_one_line(capsys: pytest.CaptureFixture[str], tiny_model_dir: Path, tmp_path: Path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "x"}\n', encoding="utf-8")
    cases = [
        (["show", "0123456789ab"], "no pin with id '0123456789ab'"),
        (["remove", "nope"], "no pin with id 'nope'"),
        (["import", str(bad)], f"{bad}, line 1: missing field(s): created, model"),
        (["import", str(tmp_path / "missing.jsonl")], "cannot read"),
        (["add", TEXT, "--model", str(tiny_model_dir), "--pair", "a hypothesis"], "takes a single text"),
        (["add", "   ", "--model", str(tiny_model_dir)], "empty"),
        (["add", TEXT, "--model", "no-such-model"], "no model named 'no-such-model'"),
    ]
    for argv, message in cases:
        code, out, err = run(capsys, *argv)
        assert code == 2 and out == "", argv
        assert err.startswith("selfexplain: error: ") and message in err and err.count("\n") == 1, err


def test_bad_database_url(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SELFEXPLAIN_DB_URL", "nosuchdb://somewhere/x")
    code, _, err = run(capsys, "list")
    assert code == 2 and err.startswith("selfexplain: error: bad gallery database URL 'nosuchdb://somewhere/x'")
    monkeypatch.setenv("SELFEXPLAIN_DB_URL", "postgresql+psycopg://nobody:secret@127.0.0.1:1/x")
    code, _, err = run(capsys, "list")
    assert code == 2 and "127.0.0.1" in err and "secret" not in err  # the password is never printed


def test_help_loads_neither_torch_nor_sqlalchemy() -> None:
    probe = (
        "import sys\nfrom selfexplain.cli import build_parser\nbuild_parser()\n"
        "print(sorted(m for m in ('torch', 'sqlalchemy') if m in sys.modules))"
    )
    result = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "[]"
    result = subprocess.run(
        [sys.executable, "-m", "selfexplain.cli", "gallery", "--help"], cwd=ROOT, capture_output=True, text=True
    )
    assert result.returncode == 0 and all(a in result.stdout for a in ("add", "list", "show", "export", "import"))
