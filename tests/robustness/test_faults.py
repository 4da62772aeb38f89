"""Faults: training killed with SIGKILL resumes to the same result; a full or unwritable disk is
reported and earlier checkpoints stay intact."""

from __future__ import annotations

import errno
import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from selfexplain.cli import main
from selfexplain.core.modeling.checkpoint import load_model_directory

ROOT = Path(__file__).resolve().parents[2]
WORDS = {1: ["great", "superb", "moving", "fine"], 0: ["dull", "awful", "boring", "weak"]}


def write_toy_data(folder: Path) -> tuple[Path, Path]:
    lines = [f"{i % 2} the film was {WORDS[i % 2][i % 4]} and long" for i in range(48)]
    train, dev = folder / "train.txt", folder / "dev.txt"
    train.write_text("\n".join(lines) + "\n")
    dev.write_text("\n".join(lines[:16]) + "\n")
    return train, dev


def train_command(encoder: Path, train: Path, dev: Path, out: Path) -> list[str]:
    return [
        sys.executable, "-m", "selfexplain.cli", "train", "--encoder", str(encoder), "--train", str(train),
        "--dev", str(dev), "--out", str(out), "--labels", "neg,pos", "--epochs", "3", "--batch-size", "8",
        "--lr", "1e-3", "--head-lr", "1e-2", "--lambda", "0", "--seed", "3", "--no-progress",
    ]  # fmt: skip


def history(out: Path) -> list[dict]:
    return json.loads((out / "metrics.json").read_text())["history"]


@pytest.mark.slow
def test_sigkill_mid_training_resumes_to_the_same_metrics(tiny_encoder: Path, tmp_path: Path) -> None:
    train, dev = write_toy_data(tmp_path)
    env = {**os.environ, "OMP_NUM_THREADS": "1", "PYTHONPATH": str(ROOT)}
    reference = tmp_path / "uninterrupted"
    subprocess.run(train_command(tiny_encoder, train, dev, reference), check=True, env=env, capture_output=True)

    killed = tmp_path / "killed"
    process = subprocess.Popen(train_command(tiny_encoder, train, dev, killed), env=env, stdout=subprocess.DEVNULL)
    deadline = time.time() + 120
    while not (killed / "last" / "training_state.json").exists():
        assert process.poll() is None, "training ended before the first checkpoint"
        assert time.time() < deadline
        time.sleep(0.05)
    time.sleep(random.Random(0).uniform(0.0, 0.5))  # somewhere in epoch 2
    process.send_signal(signal.SIGKILL)
    process.wait()
    state = json.loads((killed / "last" / "training_state.json").read_text())
    assert state["epoch"] >= 1
    load_model_directory(killed / "last")  # the checkpoint on disk is whole
    subprocess.run(train_command(tiny_encoder, train, dev, killed), check=True, env=env, capture_output=True)
    resumed, expected = history(killed), history(reference)
    assert [h["epoch"] for h in resumed] == [1, 2, 3]
    for got, want in zip(resumed, expected):
        assert got["dev_accuracy"] == want["dev_accuracy"]
        assert got["train_loss"] == pytest.approx(want["train_loss"], rel=1e-5)


def test_disk_full_is_reported_and_earlier_checkpoints_survive(
    tiny_encoder: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    train, dev = write_toy_data(tmp_path)
    out = tmp_path / "run"
    argv = train_command(tiny_encoder, train, dev, out)[3:]
    argv[argv.index("--epochs") + 1] = "1"
    assert main(argv) == 0
    before = (out / "best" / "weights.safetensors").read_bytes()

    def no_space(*args, **kwargs):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr("selfexplain.core.modeling.checkpoint.save_file", no_space)
    argv[argv.index("--epochs") + 1] = "2"
    capsys.readouterr()
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert "No space left on device" in err and len(err.splitlines()) == 1
    assert (out / "best" / "weights.safetensors").read_bytes() == before
    load_model_directory(out / "last")
    assert not [p for p in out.iterdir() if p.name.startswith(".")]  # no half-written folders left


def test_unwritable_output_folder_is_a_clear_error(tiny_encoder: Path, tmp_path: Path, capsys) -> None:
    train, dev = write_toy_data(tmp_path)
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    argv = train_command(tiny_encoder, train, dev, blocker / "run")[3:]
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("selfexplain: error:") and len(err.splitlines()) == 1
