"""The errors a user can cause; the CLI turns these into one-line messages (exit 2).

This module is the bottom of the package: it imports nothing from selfexplain (nor torch), so
``selfexplain --help`` and the error handling load in milliseconds. The modules that raise these
errors import them from here.
"""

from __future__ import annotations


class DataError(ValueError):
    """A data file cannot be read; the message names the file and line."""


class EncoderNotFoundError(RuntimeError):
    """The encoder could not be found locally or loaded."""


class EncoderNotInstalledError(EncoderNotFoundError):
    """A packaged encoder whose packages are not installed; the message names them and holds no path."""


class UnsafeWeightsError(RuntimeError):
    """A model directory holds only pickle weights, which are never loaded."""


class ModelDirectoryError(RuntimeError):
    """A folder is not a loadable selfexplain model."""


class InputTooLongError(ValueError):
    """The input has more tokens than the model accepts."""

    def __init__(self, n_tokens: int, max_length: int) -> None:
        super().__init__(
            f"the input is {n_tokens} tokens long (special tokens included) but the model takes at most "
            f"{max_length}; shorten the text"
        )
        self.n_tokens = n_tokens
        self.max_length = max_length


class InvalidInputError(ValueError):
    """The text given to explain is empty, too long or does not fit the model."""


class UnknownModelError(LookupError):
    """No shipped model has this name and no folder exists at this path."""


class TrainingDivergedError(RuntimeError):
    """Training kept producing a non-finite loss or gradient; the last finished epoch stays saved."""


USER_ERRORS: tuple[type[BaseException], ...] = (
    DataError,
    EncoderNotFoundError,
    UnsafeWeightsError,
    ModelDirectoryError,
    InputTooLongError,
    InvalidInputError,
    UnknownModelError,
    TrainingDivergedError,
    OSError,  # unreadable input, full disk, read-only output folder: reported, never a traceback
)


class SchemaError(DataError):
    """A JSON record (an Explanation, a gallery pin, a batch record) breaks the one schema
    (:mod:`selfexplain.core.results.schema`); the message names the field."""


class GalleryDatabaseError(RuntimeError):
    """The gallery database cannot be used: a bad URL, a missing driver, a server that does not answer,
    or a schema written by a newer selfexplain."""


class PinNotFoundError(LookupError):
    """No pin in the gallery has this id."""


class GalleryImportError(ValueError):
    """A pin file (JSONL) cannot be read or holds an invalid record; the message names the line."""


USER_ERRORS += (GalleryDatabaseError, PinNotFoundError, GalleryImportError)
