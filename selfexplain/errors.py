"""The errors a user can cause; the CLI turns these into one-line messages (exit 2)."""

from __future__ import annotations

from selfexplain.checkpoint import ModelDirectoryError
from selfexplain.data import DataError
from selfexplain.encoders import EncoderNotFoundError, UnsafeWeightsError
from selfexplain.encoding import InputTooLongError


class InvalidInputError(ValueError):
    """The text given to explain is empty, too long or does not fit the model."""


class UnknownModelError(LookupError):
    """No shipped model has this name and no folder exists at this path."""


USER_ERRORS: tuple[type[BaseException], ...] = (
    DataError,
    EncoderNotFoundError,
    UnsafeWeightsError,
    ModelDirectoryError,
    InputTooLongError,
    InvalidInputError,
    UnknownModelError,
    OSError,  # unreadable input, full disk, read-only output folder: reported, never a traceback
)
