"""The batch runner: records, resume after a kill, sharding across processes, the CLI."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import selfexplain.batch.runner as runner
from selfexplain.batch.reader import BatchInputError, Row, RowReader
from selfexplain.batch.records import entropy
from selfexplain.batch.runner import BatchOptions, explain_window, run_batch
from selfexplain.cli import main
from selfexplain.core.pipeline import SelfExplainer
from selfexplain.support.progress_log import iter_rows

WORDS = "good bad plot actors boring lovely slow fun dull bright story film".split()


def corpus(path: Path, rows: int = 11, seed: int = 0) -> Path:
    rng = np.random.default_rng(seed)
    lines = ["text,label"]
    for i in range(rows):
        text = " ".join(rng.choice(WORDS, size=int(rng.integers(2, 9))))
        lines.append(f"{text},{i % 5}" if i != 7 else ",3")  # row 8 has an empty text
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


OPTIONS = BatchOptions(top_k=3, batch_size=2, window=4, attention=True)
FAST = BatchOptions(top_k=3, batch_size=4, window=4)  # one forward pass a window


def test_records_are_in_input_order_with_predictions_and_errors(tiny_explainer: SelfExplainer, tmp_path: Path) -> None:
    rows = list(RowReader(corpus(tmp_path / "d.csv", 8), label_column="label"))
    records = explain_window(tiny_explainer, rows, OPTIONS)
    assert [r["index"] for r in records] == list(range(8))
    assert records[7]["error"] == "row 8 (line 9): empty text in column 'text'" and records[7]["label"] is None
    for row, record in zip(rows[:7], records[:7]):
        single = tiny_explainer.explain(row.text, attentions=True)
        assert record["label"] == single.label and record["gold"] == tiny_explainer.config.label_names[int(row.gold)]
        assert record["correct"] == (record["gold"] == record["label"])
        assert record["confidence"] == pytest.approx(single.confidence, abs=1e-5)
        assert [s["text"] for s in record["spans"]] == [s.text for s in single.top_spans(3)]
        assert record["alpha_entropy"] == pytest.approx(entropy(single.alpha[single.span_mask]), abs=1e-5)
        assert 0 <= record["attention_in_top_span"] <= 1
        assert record["top_attention_token"]["text"] in row.text


def test_entropy() -> None:
    assert entropy(np.array([1.0, 0.0])) == 0.0
    assert entropy(np.array([1.0, 1.0, 1.0, 1.0])) == pytest.approx(np.log(4))
    assert entropy(np.array([])) == 0.0


def test_unknown_gold_label_is_a_row_error(tiny_explainer: SelfExplainer, tmp_path: Path) -> None:
    path = tmp_path / "d.csv"
    path.write_text("text,label\nfine film,positive\nok film,great\n", encoding="utf-8")
    records = explain_window(tiny_explainer, list(RowReader(path, label_column="label")), OPTIONS)
    assert records[0]["gold"] == "positive" and records[0]["error"] is None
    assert records[1]["error"].startswith("row 2 (line 3): gold label 'great' is not a label of this model")


def test_resume_after_kill_gives_the_uninterrupted_output(
    tiny_explainer: SelfExplainer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = corpus(tmp_path / "d.csv")
    reader = RowReader(data, label_column="label")
    full = tmp_path / "full.jsonl"
    assert run_batch(tiny_explainer, reader, full, FAST, progress=False) == 11
    real, calls = runner.explain_window, {"n": 0}

    def dying(*args: object, **kwargs: object) -> list:
        calls["n"] += 1
        if calls["n"] == 3:
            raise KeyboardInterrupt  # killed while explaining the third window
        return real(*args, **kwargs)

    out = tmp_path / "resumed.jsonl"
    monkeypatch.setattr(runner, "explain_window", dying)
    with pytest.raises(KeyboardInterrupt):
        run_batch(tiny_explainer, reader, out, FAST, progress=False)
    assert len(list(iter_rows(out))) == 8
    with out.open("ab") as handle:  # a kill in the middle of a write leaves half a line
        handle.write(b'{"index": 8, "li')
    monkeypatch.setattr(runner, "explain_window", real)
    assert run_batch(tiny_explainer, reader, out, FAST, progress=False) == 3
    assert out.read_bytes() == full.read_bytes()
    assert [r["index"] for r in iter_rows(out)] == list(range(11))
    assert run_batch(tiny_explainer, reader, out, FAST, progress=False) == 0  # complete: nothing to do


def test_resume_refuses_other_settings_and_foreign_files(tiny_explainer: SelfExplainer, tmp_path: Path) -> None:
    reader = RowReader(corpus(tmp_path / "d.csv", 5), label_column="label")
    out = tmp_path / "o.jsonl"
    run_batch(tiny_explainer, reader, out, FAST, progress=False)
    with pytest.raises(BatchInputError, match=r"holds a run with other settings \(top_k\)"):
        run_batch(tiny_explainer, reader, out, BatchOptions(top_k=5, batch_size=4, window=4))
    same_size = tmp_path / "d.csv"  # same name and size, other bytes: a different file
    data = bytearray(same_size.read_bytes())
    data[-2] = ord("x") if data[-2] != ord("x") else ord("y")
    same_size.write_bytes(bytes(data))
    with pytest.raises(BatchInputError, match=r"other settings \(input_sha256\)"):
        run_batch(tiny_explainer, RowReader(same_size, label_column="label"), out, FAST, progress=False)
    foreign = tmp_path / "notes.jsonl"
    foreign.write_text("my notes\n")
    with pytest.raises(BatchInputError, match="not a resumable batch output"):
        run_batch(tiny_explainer, reader, foreign, FAST, progress=False)


def test_two_shards_merge_into_the_single_process_output(tiny_explainer: SelfExplainer, tmp_path: Path) -> None:
    reader = RowReader(corpus(tmp_path / "d.csv"), label_column="label")
    single = tmp_path / "single.jsonl"
    run_batch(tiny_explainer, reader, single, FAST, progress=False)
    sharded = tmp_path / "sharded.jsonl"
    # what two processes do: each explains its windows; rank 0 merges once both are complete
    assert run_batch(tiny_explainer, reader, sharded, FAST, rank=1, world=2, progress=False) == 4
    assert run_batch(tiny_explainer, reader, sharded, FAST, rank=0, world=2, progress=False) == 7
    assert sharded.read_bytes() == single.read_bytes()
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "d.csv",
        "sharded.jsonl",
        "sharded.jsonl.progress.json",
        "single.jsonl",
        "single.jsonl.progress.json",
    ]


def test_merge_refuses_an_unfinished_shard(tiny_explainer: SelfExplainer, tmp_path: Path) -> None:
    reader = RowReader(corpus(tmp_path / "d.csv"), label_column="label")
    with pytest.raises(BatchInputError, match=r"part1-of-2: this shard did not finish"):
        run_batch(tiny_explainer, reader, tmp_path / "o.jsonl", FAST, rank=0, world=2, progress=False)


def test_cli_explains_a_file_and_prints_a_summary(
    tiny_model_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = corpus(tmp_path / "d.csv", 6)
    out = tmp_path / "o.jsonl"
    args = ["batch", str(data), "--model", str(tiny_model_dir), "--out", str(out), "--label-column", "label"]
    assert main([*args, "--top-k", "0", "--batch-size", "4", "--no-progress"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert (summary["rows"], summary["explained"], summary["errors"], summary["labelled"]) == (6, 6, 0, 6)
    records = list(iter_rows(out))
    assert [len(r["spans"]) for r in records] == [r["num_valid_spans"] for r in records]  # --top-k 0 keeps all
    # a bfloat16 rerun into the same file is another run's settings, not a resume
    assert main([*args, "--top-k", "0", "--batch-size", "4", "--no-progress", "--precision", "bfloat16"]) == 2
    assert "other settings (precision)" in capsys.readouterr().err
    bf16 = tmp_path / "bf16.jsonl"
    argv = ["batch", str(data), "--model", str(tiny_model_dir), "--out", str(bf16), "--precision", "bfloat16"]
    assert main([*argv, "--no-progress"]) == 0
    assert len(list(iter_rows(bf16))) == 6


def test_cli_bad_input_exits_2_naming_file_and_row(
    tiny_model_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = tmp_path / "bad.csv"
    data.write_bytes(b"text\nok\n\xff\xfe\n")
    assert main(["batch", str(data), "--model", str(tiny_model_dir), "--out", str(tmp_path / "o.jsonl")]) == 2
    assert "bad.csv: line 3: not UTF-8 text" in capsys.readouterr().err
    assert (
        main(
            [
                "batch",
                str(data),
                "--model",
                str(tiny_model_dir),
                "--out",
                str(tmp_path / "x.jsonl"),
                "--text-column",
                "x",
            ]
        )
        == 2
    )
    assert "no column 'x' (columns: text)" in capsys.readouterr().err
    assert not (tmp_path / "x.jsonl").exists()  # nothing written for a file that cannot be read


@pytest.mark.skipif(
    not os.environ.get("SELFEXPLAIN_ACCELERATE_TEST"),
    reason="starts two Python processes (over a minute on a busy machine); set SELFEXPLAIN_ACCELERATE_TEST=1",
)
def test_accelerate_launch_two_cpu_processes_matches_one(tiny_model_dir: Path, tmp_path: Path) -> None:
    """The real thing: ``accelerate launch --cpu --num_processes 2`` shards windows and merges them."""
    data = corpus(tmp_path / "d.csv", 12)  # --batch-size 1: windows of 8 rows, so each process gets one
    common = ["batch", str(data), "--model", str(tiny_model_dir), "--batch-size", "1", "--label-column", "label"]
    single = tmp_path / "one.jsonl"
    assert main([*common, "--out", str(single), "--no-progress"]) == 0
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1]), "OMP_NUM_THREADS": "1"}
    launch = [sys.executable, "-m", "accelerate.commands.launch", "--cpu", "--num_processes", "2"]
    launch += ["--num_machines", "1", "--mixed_precision", "no", "--dynamo_backend", "no"]
    two = tmp_path / "two.jsonl"
    done = subprocess.run(
        [*launch, "-m", "selfexplain.cli", *common, "--out", str(two), "--no-progress"],
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert json.loads(done.stdout.strip().splitlines()[-1])["rows"] == 12
    assert two.read_bytes() == single.read_bytes()
    assert not list(tmp_path.glob("two.jsonl.part*"))


def test_only_over_long_rows_are_truncated_and_say_so(tiny_explainer: SelfExplainer) -> None:
    long_text = " ".join(WORDS * 20)  # 240 words, over the tiny model's 128 tokens
    rows = [Row(0, 2, "good film"), Row(1, 3, long_text), Row(2, 4, "dull plot")]
    records = explain_window(tiny_explainer, rows, FAST)
    assert [r["truncated"] for r in records] == [False, True, False]
    kept, _, cut = tiny_explainer.truncate_to_fit(long_text)
    assert cut and long_text.startswith(kept) and len(kept) < len(long_text)
    assert records[1]["num_tokens"] == len(tiny_explainer.explain(kept, attentions=False).tokens)
    assert tiny_explainer.token_counts(["good film", long_text]) == [4, 242]


def test_throughput_benchmark_reports_every_setting(tiny_model_dir: Path, tmp_path: Path) -> None:
    from selfexplain.batch.benchmark import SETTINGS, measure

    data = tmp_path / "sst.txt"
    data.write_text("".join(f"{i % 5} {' '.join(WORDS[i : i + 4])}\n" for i in range(9)), encoding="utf-8")
    result = measure(str(tiny_model_dir), data, limit=9, batch_size=2, rounds=2)
    assert result["sentences"] == 9 and result["rounds"] == 2
    for name in SETTINGS:
        assert result[f"{name}_per_s"] > 0 and result[f"{name}_speedup"] > 0
    # the native span layer gives the eager layer's labels and spans; bf16 may differ
    assert result["float32_fused_label_agreement"] == 1.0
    assert result["float32_fused_top_span_agreement"] == 1.0
    assert 0.0 <= result["bfloat16_fused_label_agreement"] <= 1.0
