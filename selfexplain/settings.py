"""Every ``SELFEXPLAIN_*`` environment setting, read in one place: one typed accessor per setting.

Each accessor reads the environment when it is called (nothing is cached at import), so a setting changed
in a running process, or by a test's ``monkeypatch.setenv``, takes effect on the next read. No other
module of the package, the pages, app.py or serve.py reads a ``SELFEXPLAIN_`` variable
(``tests/test_settings.py`` checks it); README.md's "Settings" table lists them all.

=============================  ======  ==========================================  ==========================
variable                       type    default                                     accessor
=============================  ======  ==========================================  ==========================
SELFEXPLAIN_MAX_CHARS          int     100,000                                     :func:`max_chars`
SELFEXPLAIN_MODELS_DIR         path    none (the shipped models only)              :func:`models_dir`
SELFEXPLAIN_RESTRICT_MODELS    bool    off (on in the app)                         :func:`restrict_models`
SELFEXPLAIN_HUB                bool    on (off in the app)                         :func:`hub`
SELFEXPLAIN_FUSED              bool    on                                          :func:`fused`
SELFEXPLAIN_CACHE              path    ``~/.cache/selfexplain``                    :func:`cache_dir`
SELFEXPLAIN_CACHE_MB           int     64                                          :func:`cache_mb`
SELFEXPLAIN_HOME               path    ``$XDG_DATA_HOME/selfexplain``              :func:`home`
SELFEXPLAIN_DB_URL             str     none (SQLite in ``SELFEXPLAIN_HOME``)       :func:`db_url`
=============================  ======  ==========================================  ==========================

Test-only variables (read by the tests, never by the package): ``SELFEXPLAIN_TEST_PG_URL`` and
``SELFEXPLAIN_ACCELERATE_TEST``.

Imports nothing but :mod:`selfexplain.errors`, so the command line can check a setting before torch
is loaded.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from selfexplain.errors import InvalidInputError

MAX_CHARS_VARIABLE = "SELFEXPLAIN_MAX_CHARS"
DEFAULT_MAX_INPUT_CHARS = 100_000
DEFAULT_CACHE_MB = 64  # ~90 short explanations with their attention maps; a rerun (a click) never recomputes

# A Streamlit server is a shared deployment: models load by name from the models folders and nothing is
# downloaded from the Hub, unless its operator opts in (SELFEXPLAIN_RESTRICT_MODELS=0, SELFEXPLAIN_HUB=1).
APP_DEFAULTS = {"SELFEXPLAIN_RESTRICT_MODELS": "1", "SELFEXPLAIN_HUB": "0"}


TRUE_WORDS = ("1", "true", "yes", "on")
FALSE_WORDS = ("0", "false", "no", "off")


def ascii_whole(text: str) -> bool:
    """Whether ``text`` is a non-empty run of the ASCII digits 0-9 (``str.isdigit`` also accepts ``²``,
    ``³`` and other scripts' digits, which ``int`` then refuses or reads as another number)."""
    return bool(text) and text.isascii() and text.isdecimal()


def parse_max_chars(value: str | int, source: str) -> int:
    """A character limit from ``value`` (ASCII digits, ``_`` or ``,`` separators allowed); ``source`` names
    where it came from in the error. Raises :class:`InvalidInputError` unless it is a whole number >= 1."""
    text = str(value).strip().replace("_", "").replace(",", "")
    if not ascii_whole(text) or int(text) < 1:
        raise InvalidInputError(f"{source} must be a whole number of characters, at least 1 (got {str(value)!r})")
    return int(text)


def flag(name: str, default: bool) -> bool:
    """The on/off setting ``name``: surrounding spaces dropped, any case, ``1``/``true``/``yes``/``on`` or
    ``0``/``false``/``no``/``off``; ``default`` when unset or blank. Any other value is refused in one line
    (:class:`InvalidInputError` naming the variable), never read as one or the other."""
    raw = os.environ.get(name, "")
    word = raw.strip().lower()
    if not word:
        return default
    if word in TRUE_WORDS:
        return True
    if word in FALSE_WORDS:
        return False
    raise InvalidInputError(f"{name} must be one of {', '.join(TRUE_WORDS + FALSE_WORDS)} (got {raw!r})")


def max_chars() -> int:
    """``SELFEXPLAIN_MAX_CHARS``: the longest text (in characters) accepted, 100,000 when it is unset or
    empty; :class:`InvalidInputError` naming the variable unless it is a whole number >= 1."""
    value = os.environ.get(MAX_CHARS_VARIABLE, "").strip()
    return parse_max_chars(value, MAX_CHARS_VARIABLE) if value else DEFAULT_MAX_INPUT_CHARS


@contextmanager
def max_chars_override(limit: int) -> Iterator[None]:
    """Within the block, ``SELFEXPLAIN_MAX_CHARS`` is ``limit`` (in this process and the workers it
    starts); the variable is restored afterwards."""
    saved = os.environ.get(MAX_CHARS_VARIABLE)
    os.environ[MAX_CHARS_VARIABLE] = str(limit)
    try:
        yield
    finally:
        if saved is None:
            os.environ.pop(MAX_CHARS_VARIABLE, None)
        else:
            os.environ[MAX_CHARS_VARIABLE] = saved


def models_dir() -> Path | None:
    """``SELFEXPLAIN_MODELS_DIR``: a folder searched for models by name before the shipped ones (none when
    unset or empty)."""
    extra = os.environ.get("SELFEXPLAIN_MODELS_DIR")
    return Path(extra) if extra else None


def restrict_models() -> bool:
    """``SELFEXPLAIN_RESTRICT_MODELS`` (a :func:`flag`): on loads models only by name or inside the models
    folders; off when unset (the library and CLI), on in the app (:func:`apply_app_defaults`)."""
    return flag("SELFEXPLAIN_RESTRICT_MODELS", False)


def hub() -> bool:
    """``SELFEXPLAIN_HUB`` (a :func:`flag`): whether an encoder that is not a local folder may be fetched
    from the Hugging Face Hub; on when unset (off in the app)."""
    return flag("SELFEXPLAIN_HUB", True)


def fused() -> bool:
    """``SELFEXPLAIN_FUSED`` (a :func:`flag`): off runs the span layer in eager PyTorch instead of the
    compiled kernels; on when unset."""
    return flag("SELFEXPLAIN_FUSED", True)


def cache_dir() -> Path:
    """``SELFEXPLAIN_CACHE``: the folder of built kernels (under ``native/``), ``~/.cache/selfexplain`` when
    unset or empty."""
    return Path(os.environ.get("SELFEXPLAIN_CACHE") or Path.home() / ".cache" / "selfexplain")


def cache_mb() -> int:
    """``SELFEXPLAIN_CACHE_MB``: the app's result cache budget in megabytes, at least 1; 64 when unset,
    blank or not a whole number in ASCII digits (the cache is built once per server, so a bad value falls
    back instead of stopping every page)."""
    text = os.environ.get("SELFEXPLAIN_CACHE_MB", "").strip()
    digits = text[1:] if text.startswith("-") else text
    return max(1, int(text)) if ascii_whole(digits) else DEFAULT_CACHE_MB


def home() -> Path:
    """``SELFEXPLAIN_HOME``: the gallery's folder (``~`` expanded); else ``$XDG_DATA_HOME/selfexplain``, else
    ``~/.local/share/selfexplain``."""
    explicit = os.environ.get("SELFEXPLAIN_HOME")
    if explicit:
        return Path(explicit).expanduser()
    data_home = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(data_home).expanduser() / "selfexplain"


def db_url() -> str | None:
    """``SELFEXPLAIN_DB_URL``: the gallery's SQLAlchemy URL (spaces around it dropped); None when unset or
    blank (the SQLite file in :func:`home`)."""
    explicit = os.environ.get("SELFEXPLAIN_DB_URL", "").strip()
    return explicit or None


def apply_app_defaults() -> None:
    """The app's deployment defaults (:data:`APP_DEFAULTS`: models restricted, no Hub), for each setting
    the operator has not set. The pages call it at the start of every run; importing them changes nothing."""
    for name, value in APP_DEFAULTS.items():
        os.environ.setdefault(name, value)
