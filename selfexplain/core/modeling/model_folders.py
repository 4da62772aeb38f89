"""Finding models: shipped ones by name in ``assets/models/NAME/``, others in the folder named by
``SELFEXPLAIN_MODELS_DIR``, or any model folder by path (re-exported by :mod:`selfexplain.core.pipeline`)."""

from __future__ import annotations

from pathlib import Path

from selfexplain import settings
from selfexplain.core.modeling.config import CONFIG_FILE
from selfexplain.errors import UnknownModelError

SHIPPED_MODELS_DIR = Path(__file__).resolve().parents[3] / "assets" / "models"
DEFAULT_MODEL = "sst5-minilm"


def models_folders() -> list[Path]:
    """Folders searched for models by name: ``$SELFEXPLAIN_MODELS_DIR`` first, then the shipped ones."""
    extra = settings.models_dir()
    return ([extra] if extra is not None else []) + [SHIPPED_MODELS_DIR]


def available_models() -> dict[str, Path]:
    """Model name -> folder, for every model folder in :func:`models_folders`."""
    found: dict[str, Path] = {}
    for folder in reversed(models_folders()):
        if folder.is_dir():
            for config in sorted(folder.glob(f"*/{CONFIG_FILE}")):
                found[config.parent.name] = config.parent
    return found


def restricted() -> bool:
    """``SELFEXPLAIN_RESTRICT_MODELS=1`` (the app's default; off for the library and CLI): models load by
    name, or by a path inside the models folders, and nothing else."""
    return settings.restrict_models()


def resolve_model(name_or_path: str | Path | None = None) -> Path:
    """A model folder from a shipped model's name, a folder path, or ``None`` (the default)."""
    name = str(name_or_path) if name_or_path is not None else DEFAULT_MODEL
    known = available_models()
    if name in known:
        return known[name]
    path = Path(name).expanduser()
    if any(path.absolute() == folder.absolute() for folder in known.values()):
        # a models folder's entry given by its path (a card's teacher_folder, say): the folder that name
        # loads, even where it is a link to a folder elsewhere
        return path
    choices = ", ".join(sorted(known)) or "none installed"
    if restricted():
        # One answer for every path outside the models folders, whether or not it exists: a shared
        # deployment must not tell a visitor which server paths exist.
        allowed = [folder.resolve() for folder in models_folders()]
        inside = any(path.resolve().is_relative_to(folder) for folder in allowed)
        if inside and (path / CONFIG_FILE).is_file():
            return path
        raise UnknownModelError(f"no model named {name!r} in this deployment (models: {choices})")
    if path.is_dir():
        return path
    raise UnknownModelError(f"no model named {name!r} and no folder at that path (shipped models: {choices})")
