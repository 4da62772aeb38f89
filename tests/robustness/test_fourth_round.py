"""Issue 59, hardening's fourth round: the command line, the library and settings. Each test failed before
its fix (the row of the issue's table is in its name); the app's rows are in test_fourth_round_app.py."""

from __future__ import annotations

import json
import os
import resource
import signal
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from selfexplain import settings
from selfexplain.batch.export import to_csv
from selfexplain.batch.reader import RowReader
from selfexplain.batch.runner import BatchOptions, run_batch
from selfexplain.cli import main
from selfexplain.errors import InvalidInputError
from selfexplain.gallery.transfer import write_lines

HOSTILE_NOTE = "\x1b]0;PWNED\x07\x1b[2J\x1b[31mRED \x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\ \u202egnp.exe \x9b"


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.delenv("SELFEXPLAIN_DB_URL", raising=False)
    monkeypatch.setenv("SELFEXPLAIN_HOME", str(tmp_path / "home"))
    return tmp_path / "home"


def gallery(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["gallery", *argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def pin_line(note: str = "", text: str = "good film") -> str:
    """One valid pin (JSONL) without a model: a stored explanation of ``text`` as one token."""
    explanation = {
        "text": text,
        "pair": None,
        "label": "pos",
        "probabilities": {"neg": 0.25, "pos": 0.75},
        "tokens": [{"text": text, "start": 0, "end": len(text), "segment": 0, "piece": text}],
        "spans": [
            {"start_token": 0, "end_token": 0, "start_char": 0, "end_char": len(text), "segment": 0}
            | {"text": text, "alpha": 1.0, "rank": 1}
        ],
        "num_valid_spans": 1,
    }
    record = {"id": "abc123", "created": "2024-01-02T03:04:05+00:00", "model": "tiny-sst", "text": text}
    record |= {"pair": None, "note": note, "label": "pos", "explanation": explanation}
    return json.dumps(record) + "\n"


def test_row1_export_refuses_a_device_a_fifo_and_a_link(tmp_path: Path) -> None:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    target = tmp_path / "kept.txt"
    target.write_text("mine\n", encoding="utf-8")
    link = tmp_path / "link"
    link.symlink_to(target)
    for path, kind in ((fifo, "named pipe"), (link, "symbolic link"), (tmp_path, "folder")):
        with pytest.raises(InvalidInputError, match=kind):
            write_lines(["a\n"], path)
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode) and link.is_symlink() and target.read_text() == "mine\n"
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]  # no temporary file left
    assert write_lines(["a\n"], target) == 1 and target.read_text() == "a\n"  # a regular file is replaced
    assert write_lines(["b\n"], tmp_path / "new.jsonl") == 1


def test_row1_export_refuses_a_device_node(tmp_path: Path) -> None:
    device = tmp_path / "null"
    try:
        os.mknod(device, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
    except (PermissionError, OSError) as err:
        pytest.skip(f"cannot make a device node here: {err}")
    with pytest.raises(InvalidInputError, match="character device"):
        write_lines(["a\n"], device)
    assert stat.S_ISCHR(os.lstat(device).st_mode)


def test_row1_gallery_export_to_a_link_exits_2(capsys: pytest.CaptureFixture[str], home: Path, tmp_path: Path) -> None:
    source = tmp_path / "pins.jsonl"
    source.write_text(pin_line(), encoding="utf-8")
    assert gallery(capsys, "import", str(source))[0] == 0
    link = tmp_path / "out"
    link.symlink_to("/proc/self/fd/1")
    code, _, err = gallery(capsys, "export", str(link))
    assert code == 2 and "symbolic link" in err and link.is_symlink()


def test_row1_batch_output_refuses_a_fifo(
    tiny_model_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = tmp_path / "d.txt"
    data.write_text("good film\n", encoding="utf-8")
    fifo = tmp_path / "out.jsonl"
    os.mkfifo(fifo)
    reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)  # a writer that opened the FIFO would not block
    try:
        code = main(["batch", str(data), "--model", str(tiny_model_dir), "--out", str(fifo), "--no-progress"])
    finally:
        os.close(reader)
    assert code == 2 and stat.S_ISFIFO(os.lstat(fifo).st_mode)
    assert "is a named pipe (FIFO); exports write only to a new path or a regular file" in capsys.readouterr().err


def test_row2_stored_text_reaches_the_terminal_escaped(
    capsys: pytest.CaptureFixture[str], home: Path, tmp_path: Path
) -> None:
    source = tmp_path / "pins.jsonl"
    source.write_text(pin_line(HOSTILE_NOTE, text="a \u202egnp.exe film"), encoding="utf-8")
    assert gallery(capsys, "import", str(source))[0] == 0
    outputs = [gallery(capsys, *argv)[1] for argv in (("list",), ("show", "abc123"), ("list", "--json"))]
    outputs.append(gallery(capsys, "show", "abc123", "--json")[1])
    for out in outputs:
        assert not any(ch in out for ch in "\x1b\x07\x9b\u202e"), out
    assert "\\x1b]0;PWNED\\x07" in outputs[1] and "\\u202egnp.exe" in outputs[1]
    assert json.loads(outputs[3])["note"] == HOSTILE_NOTE  # the JSON still holds the note as stored


def test_row2_printable_escapes_controls_bidi_and_surrogates() -> None:
    from selfexplain.support.terminal import printable

    assert printable("a\x1b[2Jb\tc\nd\u202e\u2066\x00\x7f\x85\udcff é") == (
        "a\\x1b[2Jb\tc\nd\\u202e\\u2066\\x00\\x7f\\x85\\xff é"
    )
    assert printable("a\tb\nc\r", lines=False) == "a\\tb\\nc\\x0d"


def test_row4_csv_cells_that_start_a_formula_get_a_quote() -> None:
    from selfexplain.support.csv_cells import neutralise

    record = {"index": 0, "line": 1, "text": "=cmd|' /C calc'!A0", "pair": "+SUM(A1)", "gold": "@x", "label": "-y"}
    record |= {"probabilities": {"neg": 0.5, "pos": 0.5}, "spans": [{"text": "\tgood", "alpha": 0.5}]}
    text = to_csv([record, {**record, "index": 1, "text": "\rplain", "label": "ok"}])
    cells = text.splitlines()[1]
    assert "'=cmd|" in cells and "'+SUM(A1)" in cells and "'@x" in cells and "'-y" in cells
    assert ",'\tgood," in cells and ",0.5," in cells  # the top span's text; a number stays a number
    assert "'\rplain" in text
    assert [neutralise(v) for v in ("a=b", "-", -1.5, None)] == ["a=b", "'-", -1.5, None]


def test_row5_a_lone_surrogate_is_one_bad_row_and_the_output_is_kept(
    tiny_model_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = tmp_path / "s.jsonl"
    data.write_text('{"text":"good"}\n{"text":"\\ud800 bad"}\n{"text":"\\ud83d\\ude00 fine"}\n', encoding="utf-8")
    rows = list(RowReader(data))
    assert "\\ud800, half of a surrogate pair" in rows[1].problem and rows[2].text == "\U0001f600 fine"
    out = tmp_path / "o.jsonl"
    code = main(["batch", str(data), "--model", str(tiny_model_dir), "--out", str(out), "--no-progress"])
    assert code == 0
    records = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert [r["error"] is None for r in records] == [True, False, True]
    first = tmp_path / "first.jsonl"
    first.write_text('{"text":"\\udc00"}\n', encoding="utf-8")
    assert main(["batch", str(first), "--model", str(tiny_model_dir), "--out", str(tmp_path / "f.jsonl")]) == 2
    assert "surrogate" in capsys.readouterr().err


def test_row7_flags_are_read_strictly(monkeypatch: pytest.MonkeyPatch) -> None:
    for raw in (" 1", "on", "yes ", "TRUE", " On\n"):
        monkeypatch.setenv("SELFEXPLAIN_RESTRICT_MODELS", raw)
        assert settings.restrict_models() is True
    for raw in ("0", " off ", "No", ""):
        monkeypatch.setenv("SELFEXPLAIN_RESTRICT_MODELS", raw)
        assert settings.restrict_models() is False
    monkeypatch.setenv("SELFEXPLAIN_RESTRICT_MODELS", "enabled")
    with pytest.raises(InvalidInputError, match="SELFEXPLAIN_RESTRICT_MODELS must be one of"):
        settings.restrict_models()


def test_row7_restriction_with_spaces_refuses_an_outside_folder(
    tiny_model_dir: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("SELFEXPLAIN_RESTRICT_MODELS", " 1")
    assert main(["explain", "good film", "--model", str(tiny_model_dir)]) == 2
    assert "no model named" in capsys.readouterr().err


@pytest.mark.parametrize("value", ["³", "²", "١٢", "1²"])
def test_row14_digits_are_ascii_only(
    value: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["explain", "good", "--max-chars", value]) == 2
    assert "--max-chars must be a whole number" in capsys.readouterr().err
    monkeypatch.setenv("SELFEXPLAIN_MAX_CHARS", value)
    with pytest.raises(InvalidInputError, match="SELFEXPLAIN_MAX_CHARS must be"):
        settings.max_chars()
    monkeypatch.setenv("SELFEXPLAIN_CACHE_MB", value)
    assert settings.cache_mb() == settings.DEFAULT_CACHE_MB


def test_row14_a_tree_label_in_other_digits_is_one_line(tmp_path: Path) -> None:
    from selfexplain.core.formats.sst_trees import parse_tree
    from selfexplain.errors import DataError

    with pytest.raises(DataError, match="numeric label"):
        parse_tree("(³ (2 good) (3 film))", "trees.txt:1")


def test_row15_an_sqlite_url_gets_the_default_paths_privacy_checks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o777)
    monkeypatch.setenv("SELFEXPLAIN_DB_URL", f"sqlite:///{shared}/g.db")
    code, _, err = gallery(capsys, "list")
    assert code == 2 and "writable by other users" in err and not (shared / "g.db").exists()
    mine = tmp_path / "mine"
    monkeypatch.setenv("SELFEXPLAIN_DB_URL", f"sqlite:///{mine}/g.db")
    assert gallery(capsys, "list")[:2] == (0, "no pins\n")
    assert stat.S_IMODE((mine / "g.db").stat().st_mode) == 0o600 and stat.S_IMODE(mine.stat().st_mode) == 0o700
    monkeypatch.setenv("SELFEXPLAIN_DB_URL", "sqlite://")
    assert gallery(capsys, "list")[0] == 0


def test_row16_a_home_that_is_not_utf8_is_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("SELFEXPLAIN_DB_URL", raising=False)
    monkeypatch.setenv("SELFEXPLAIN_HOME", os.fsdecode(os.fsencode(str(tmp_path)) + b"/bad\xff"))
    code, out, err = gallery(capsys, "list")
    assert code == 2 and out == ""
    assert err.startswith("selfexplain: error: SELFEXPLAIN_HOME ") and "bad\\xff is not valid UTF-8" in err
    err.encode("utf-8")  # printable: no lone surrogate left
    monkeypatch.setenv("SELFEXPLAIN_DB_URL", "sqlite:///" + os.fsdecode(b"/tmp/x\xfe.db"))
    code, _, err = gallery(capsys, "list")
    assert code == 2 and "x\\xfe.db is not valid UTF-8" in err


@contextmanager
def file_size_limit(size: int) -> Iterator[None]:
    """Within the block, no file of this process may grow past ``size`` bytes: a write across the limit is
    cut short and the next one fails (EFBIG), as on a full disk."""
    soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
    handler = signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (size, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))
        signal.signal(signal.SIGXFSZ, handler)


def test_row13_a_batch_cut_short_by_a_full_disk_resumes(tiny_model_dir: Path, tmp_path: Path) -> None:
    from selfexplain.core.pipeline import load_model

    explainer = load_model(tiny_model_dir)
    data = tmp_path / "d.txt"
    data.write_text("".join(f"good film number {n} with a plot\n" for n in range(10)), encoding="utf-8")
    options = BatchOptions(top_k=3, batch_size=4, window=4)
    full = tmp_path / "full.jsonl"
    run_batch(explainer, RowReader(data), full, options, progress=False)
    first_line = len(full.read_bytes().split(b"\n")[0]) + 1
    out = tmp_path / "out.jsonl"
    with file_size_limit(first_line + 40), pytest.raises(OSError):  # the first window's write is cut short
        run_batch(explainer, RowReader(data), out, options, progress=False)
    assert out.read_bytes() == b""  # whole lines only: the cut window is gone, not half written
    assert json.loads((tmp_path / "out.jsonl.progress.json").read_text())["bytes"] == 0
    assert run_batch(explainer, RowReader(data), out, options, progress=False) == 10  # space freed: resumed
    assert out.read_bytes() == full.read_bytes()


def model_copy(source: Path, target: Path, **config: object) -> Path:
    """A copy of the model folder ``source`` at ``target`` with ``config`` written over its selfexplain.json."""
    import shutil

    shutil.copytree(source, target)
    path = target / "selfexplain.json"
    path.write_text(json.dumps({**json.loads(path.read_text()), **config}), encoding="utf-8")
    return target


@pytest.mark.parametrize("value", ["NaN", "Infinity", "-Infinity"])
@pytest.mark.parametrize("field", ["span_length_prior", "lambda_", "dropout"])
def test_row8_non_finite_numbers_in_a_config_are_one_line(
    field: str, value: str, tiny_model_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = model_copy(tiny_model_dir, tmp_path / "nan")
    path = folder / "selfexplain.json"
    config = json.loads(path.read_text())
    config[field] = "PLACEHOLDER"
    path.write_text(json.dumps(config).replace('"PLACEHOLDER"', value), encoding="utf-8")  # JSON's NaN, Infinity
    assert main(["explain", "good film", "--model", str(folder)]) == 2
    assert f"{field} must be a finite number" in capsys.readouterr().err


def test_row10_a_huge_config_is_refused_unread(tiny_model_dir: Path, tmp_path: Path) -> None:
    from selfexplain.core.modeling.config import MAX_CONFIG_BYTES, ModelConfig

    folder = model_copy(tiny_model_dir, tmp_path / "huge")
    with (folder / "selfexplain.json").open("r+b") as handle:
        handle.truncate(3 * 2**30)  # a sparse 3 GB file: costs no disk, and must cost no memory
    with pytest.raises(ValueError, match=f"larger than {MAX_CONFIG_BYTES:,} bytes"):
        ModelConfig.load(folder)
    assert main(["explain", "good film", "--model", str(folder)]) == 2


def test_row11_metrics_must_be_numbers(
    tiny_model_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for n, metrics in enumerate(({"test_accuracy": [1, 2]}, {"test_accuracy": "high"}, {"epoch": True})):
        folder = model_copy(tiny_model_dir, tmp_path / f"m{n}", metrics=metrics)
        assert main(["explain", "good film", "--model", str(folder)]) == 2
        assert "metrics must map names to numbers" in capsys.readouterr().err


def test_row12_a_folder_cannot_take_another_models_name(
    tiny_model_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from selfexplain.core.pipeline import load_model

    models = tmp_path / "models"
    model_copy(tiny_model_dir, models / "impostor", name="sst5-minilm")
    model_copy(tiny_model_dir, models / "renamed", name="My model")
    monkeypatch.setenv("SELFEXPLAIN_MODELS_DIR", str(models))
    impostor = load_model("impostor")
    assert impostor.name == "impostor" and impostor.explain("good film").model_name == "impostor"
    assert load_model("renamed").name == "My model"  # a name of its own is kept
    assert load_model(tiny_model_dir).name == "tiny-sst"


def test_also_seen_a_million_labels_and_a_huge_name_are_refused_early(tmp_path: Path) -> None:
    from selfexplain.core.modeling.config import MAX_LABELS, ModelConfig

    with pytest.raises(ValueError, match=f"at most {MAX_LABELS:,} labels"):
        ModelConfig(encoder="x", label_names=[f"l{n}" for n in range(1_000_000)])
    with pytest.raises(ValueError, match="name must be at most 200 characters"):
        ModelConfig(encoder="x", label_names=["a", "b"], name="n" * 100_000)
    with pytest.raises(ValueError, match="every label name must be 1 to 200 characters"):
        ModelConfig(encoder="x", label_names=["a", "b" * 201])


def test_row9_gallery_add_refuses_a_text_it_cannot_keep_before_explaining(
    capsys: pytest.CaptureFixture[str], home: Path, tiny_model_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import selfexplain.core.pipeline as pipeline

    def no_model(*args: object, **kwargs: object) -> None:
        raise AssertionError("the model was loaded for a text the gallery cannot keep")

    monkeypatch.setattr(pipeline, "load_model", no_model)
    code, out, err = gallery(capsys, "add", "good " * 6_000, "--model", str(tiny_model_dir))
    assert code == 2 and out == ""
    assert "the gallery keeps a text of at most 20,000 characters; this one has 30,000" in err


def test_also_seen_a_pin_dated_in_the_future_is_not_imported(
    capsys: pytest.CaptureFixture[str], home: Path, tmp_path: Path
) -> None:
    source = tmp_path / "pins.jsonl"
    source.write_text(pin_line().replace("2024-01-02", "9999-01-02"), encoding="utf-8")
    code, _, err = gallery(capsys, "import", str(source))
    assert code == 2 and "line 1: created 9999-01-02T03:04:05+00:00 is in the future" in err


def test_also_seen_warnings_print_one_line_without_source(capsys: pytest.CaptureFixture[str]) -> None:
    import warnings

    saved = warnings.formatwarning
    try:
        assert main(["explain", "good", "--top-k", "-1"]) == 2  # any command installs the format
        line = warnings.formatwarning("kernels \x1b[2Junavailable", UserWarning, "/srv/app/native_spans.py", 77, "x()")
    finally:
        warnings.formatwarning = saved
    assert line == "selfexplain: warning: kernels \\x1b[2Junavailable\n"
