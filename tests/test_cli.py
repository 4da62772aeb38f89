from __future__ import annotations

import json
from pathlib import Path

import pytest

from selfexplain.cli import main


def test_explain_json(tiny_model_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = "not a bad film , really"
    assert main(["explain", text, "--model", str(tiny_model_dir), "--json", "--top-k", "0"]) == 0
    data = json.loads(capsys.readouterr().out)
    n = len(data["tokens"])
    assert len(data["spans"]) == n * (n + 1) // 2
    assert sum(s["alpha"] for s in data["spans"]) == pytest.approx(1.0, abs=1e-4)
    alphas = [s["alpha"] for s in data["spans"]]
    assert alphas == sorted(alphas, reverse=True)
    for token in data["tokens"]:
        assert text[token["start"] : token["end"]] == token["text"]
    assert data["label"] in data["probabilities"] and data["model"] == "tiny-sst"


def test_explain_plain_text_lists_top_k(tiny_model_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["explain", "good acting", "--model", str(tiny_model_dir), "--top-k", "2"]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert len(lines) == 3 and lines[1].strip().startswith("1.")


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["explain", "", "--model", "MODEL"], "empty"),
        (["explain", "x", "--model", "/no/such/model"], "no model named"),
        (["explain", "x", "--pair", "y", "--model", "MODEL"], "single text"),
        (["eval", "--model", "MODEL", "--data", "/no/such/file.txt"], "no such file"),
    ],
)
def test_user_errors_exit_2_with_one_line(tiny_model_dir: Path, capsys, argv: list[str], message: str) -> None:
    argv = [str(tiny_model_dir) if a == "MODEL" else a for a in argv]
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert message in err and len(err.splitlines()) == 1 and "Traceback" not in err


def test_eval_writes_predictions(tiny_model_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = tmp_path / "dev.txt"
    data.write_text("4 a triumph\n0 a mess\n2 it exists\n", encoding="utf-8")
    out = tmp_path / "pred.jsonl"
    assert (
        main(["eval", "--model", str(tiny_model_dir), "--data", str(data), "--predictions", str(out), "--no-progress"])
        == 0
    )
    summary = json.loads(capsys.readouterr().out)
    assert summary["examples"] == 3 and 0.0 <= summary["accuracy"] <= 1.0
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert [r["gold"] for r in rows] == ["very positive", "very negative", "neutral"]
    assert sum(sum(r["probabilities"].values()) for r in rows) == pytest.approx(3.0, abs=1e-4)


def test_eval_record_stores_test_accuracy(tiny_model_dir: Path, tmp_path: Path, capsys) -> None:
    import shutil

    from selfexplain.core.modeling.config import ModelConfig

    copy = tmp_path / "copy"
    shutil.copytree(tiny_model_dir, copy)
    data = tmp_path / "test.txt"
    data.write_text("4 a triumph\n0 a mess\n", encoding="utf-8")
    assert main(["eval", "--model", str(copy), "--data", str(data), "--record", "--no-progress"]) == 0
    accuracy = json.loads(capsys.readouterr().out)["accuracy"]
    assert ModelConfig.load(copy).metrics["test_accuracy"] == accuracy


def test_train_with_shuffled_words(tiny_encoder: Path, tmp_path: Path, capsys) -> None:
    data = tmp_path / "train.txt"
    data.write_text("".join(f"{i % 2} the film was {'great' if i % 2 else 'dull'} and long\n" for i in range(16)))
    out = tmp_path / "run"
    argv = ["train", "--encoder", str(tiny_encoder), "--train", str(data), "--dev", str(data), "--out", str(out)]
    argv += ["--labels", "neg,pos", "--epochs", "1", "--batch-size", "8", "--shuffle-words", "--no-progress"]
    assert main(argv) == 0
    assert "best dev accuracy" in capsys.readouterr().out
    assert (out / "best" / "selfexplain.json").is_file()


def test_train_uniform_alpha_on_windows_keeps_its_settings(tiny_encoder: Path, tmp_path: Path, capsys) -> None:
    from selfexplain.core.modeling.config import ModelConfig
    from selfexplain.core.pipeline import load_model

    data = tmp_path / "train.txt"
    long_text = " ".join(["a long and winding film"] * 8)
    data.write_text("".join(f"{i % 2} {long_text} {'great' if i % 2 else 'dull'}\n" for i in range(6)))
    out = tmp_path / "run"
    argv = ["train", "--encoder", str(tiny_encoder), "--train", str(data), "--dev", str(data), "--out", str(out)]
    argv += ["--labels", "neg,pos", "--epochs", "1", "--batch-size", "3", "--no-progress", "--uniform-alpha"]
    argv += ["--long-inputs", "windows", "--max-length", "16", "--window-stride", "8", "--max-span-width", "4"]
    assert main(argv) == 0
    config = ModelConfig.load(out / "best")
    assert config.uniform_alpha and config.max_length == 16 and config.window_stride == 8
    explanation = load_model(out / "best").explain(long_text)
    assert explanation.windows is not None and len(explanation.windows) > 1
    weights = explanation.alpha[explanation.span_mask]
    assert weights.max() - weights.min() < 1e-6  # alpha stays uniform over the spans of all windows


def test_help_loads_no_torch() -> None:
    """The errors module is the bottom of the package and the parser imports no model stack."""
    import subprocess
    import sys

    code = (
        "import sys; from selfexplain.cli import build_parser; build_parser(); "
        "import selfexplain.errors; print(sorted(m for m in ('torch', 'transformers', 'pandas') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


@pytest.mark.slow
def test_explain_reads_standard_input_and_files(tiny_model_dir, tmp_path, monkeypatch, capsys) -> None:
    import io
    import json as json_module

    from selfexplain.cli import main

    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO("\ufeffA dull film.\x00 Truly.".encode())))
    assert main(["explain", "-", "--model", str(tiny_model_dir), "--json"]) == 0
    assert json_module.loads(capsys.readouterr().out)["text"] == "A dull film.\x00 Truly."
    source = tmp_path / "review.txt"
    source.write_text("A bright, warm film.", encoding="utf-8")
    assert main(["explain", "--file", str(source), "--model", str(tiny_model_dir), "--json"]) == 0
    assert json_module.loads(capsys.readouterr().out)["text"] == "A bright, warm film."
    source.write_bytes(b"\xff\xfe not utf-8")
    assert main(["explain", "--file", str(source), "--model", str(tiny_model_dir)]) == 2
    assert "not UTF-8" in capsys.readouterr().err
    assert main(["explain", "--model", str(tiny_model_dir)]) == 2
    assert main(["explain", "x", "--top-k", "-1", "--model", str(tiny_model_dir)]) == 2


def test_version(capsys) -> None:
    import pytest as pytest_module

    from selfexplain.cli import main

    with pytest_module.raises(SystemExit) as stop:
        main(["--version"])
    assert stop.value.code == 0 and capsys.readouterr().out.startswith("selfexplain ")


def test_train_with_span_edges_on_words(tiny_encoder: Path, tmp_path: Path) -> None:
    from selfexplain.core.modeling.config import ModelConfig
    from selfexplain.core.pipeline import load_model

    data = tmp_path / "train.txt"
    data.write_text("".join(f"{i % 2} the film was {'great' if i % 2 else 'dull'} .\n" for i in range(8)))
    out = tmp_path / "run"
    argv = ["train", "--encoder", str(tiny_encoder), "--train", str(data), "--dev", str(data), "--out", str(out)]
    argv += ["--labels", "neg,pos", "--epochs", "1", "--batch-size", "4", "--no-progress", "--span-edges", "words"]
    assert main(argv) == 0
    assert ModelConfig.load(out / "best").span_edges == "words"
    explanation = load_model(out / "best").explain("the film was dull .")
    rows, cols = explanation.span_mask.nonzero()
    assert "." not in {explanation.tokens[k].text for k in [*rows, *cols]} and len(rows) == 10
