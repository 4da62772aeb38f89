"""A private gallery (issue 24.6, attack row 10): its folder is refused when others can write to it, when it
is someone else's or a link; it is created 0700 and the database (with its WAL files) 0600."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from selfexplain.cli import main
from selfexplain.errors import GalleryDatabaseError
from selfexplain.gallery.location import database_url
from selfexplain.gallery.store import GalleryStore


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.delenv("SELFEXPLAIN_DB_URL", raising=False)
    monkeypatch.setenv("SELFEXPLAIN_HOME", str(tmp_path / "home"))
    return tmp_path / "home"


def mode(path: Path) -> int:
    return path.stat().st_mode & 0o777


def test_created_0700_and_the_database_0600_whatever_the_umask(home: Path, explanation_of) -> None:
    old = os.umask(0)
    try:
        store = GalleryStore()
        store.add(explanation_of("A fine film."), "tiny-sst")
    finally:
        os.umask(old)
    assert mode(home) == 0o700
    files = sorted(home.iterdir())
    assert [f.name for f in files][:1] == ["gallery.sqlite3"] and len(files) >= 2  # with its -wal and -shm
    assert all(mode(f) == 0o600 for f in files), [(f.name, oct(mode(f))) for f in files]
    store.close()


def test_an_existing_database_of_ours_is_narrowed_to_0600(home: Path) -> None:
    home.mkdir(mode=0o700)
    (home / "gallery.sqlite3").touch(mode=0o644)
    os.chmod(home / "gallery.sqlite3", 0o644)
    GalleryStore().close()
    assert mode(home / "gallery.sqlite3") == 0o600


def test_an_existing_folder_of_ours_others_can_read_is_narrowed_to_0700(home: Path) -> None:
    """Attack row 10: a gallery folder made 0755 before was kept though the docs say 0700."""
    home.mkdir()
    os.chmod(home, 0o755)
    GalleryStore().close()
    assert mode(home) == 0o700


@pytest.mark.parametrize("bits", [0o777, 0o775, 0o1777])
def test_a_folder_others_can_write_is_refused(home: Path, bits: int, capsys: pytest.CaptureFixture[str]) -> None:
    home.mkdir()
    os.chmod(home, bits)
    with pytest.raises(GalleryDatabaseError, match="writable by other users"):
        database_url()
    assert main(["gallery", "list"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "SELFEXPLAIN_HOME" in err and not (home / "gallery.sqlite3").exists()


def test_links_are_refused(home: Path, tmp_path: Path) -> None:
    real = tmp_path / "real"
    real.mkdir(mode=0o700)
    home.symlink_to(real)
    with pytest.raises(GalleryDatabaseError, match="not a plain folder"):
        database_url()
    home.unlink()
    home.mkdir(mode=0o700)
    (home / "gallery.sqlite3").symlink_to(tmp_path / "elsewhere.sqlite3")
    with pytest.raises(GalleryDatabaseError, match="not a plain file"):
        database_url()
    assert not (tmp_path / "elsewhere.sqlite3").exists()


@pytest.mark.skipif(os.getuid() != 0, reason="giving a folder to another user needs root")
def test_a_folder_of_another_user_is_refused(home: Path) -> None:
    home.mkdir(mode=0o700)
    os.chown(home, 12345, 12345)
    with pytest.raises(GalleryDatabaseError, match="owned by another user"):
        database_url()
    os.chown(home, 0, 0)
    (home / "gallery.sqlite3").touch()
    os.chown(home / "gallery.sqlite3", 12345, 12345)
    with pytest.raises(GalleryDatabaseError, match="owned by another user"):
        database_url()


@pytest.fixture
def explanation_of(tiny_explainer):
    return lambda text: tiny_explainer.explain(text, attentions=False)
