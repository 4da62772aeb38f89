"""The registry of attribution methods (a :class:`~selfexplain.support.registry.Registry`), filled by the
methods themselves.

Every subclass of :class:`~selfexplain.methods.explainers.base.AttributionMethod` that sets its own ``name``
registers itself when its class is defined (``AttributionMethod.__init_subclass__`` calls :func:`register`);
importing :mod:`selfexplain.methods.explainers` imports every module of the package, so every method is here.
The metadata a method carries decides where it appears:

- ``rank``: its place in :data:`METHODS` (lower first), which is the order of the menus and of the
  default sets below (a run's settings keep that order, so a resumed run must see the same one);
- ``core``: one of the lab's twelve own methods, which ``selfexplain faithfulness`` runs by default
  (:data:`~selfexplain.methods.explainers.CORE_METHODS`); captum's extras, which repeat or approximate them at
  more cost, are opt-in;
- ``fast``: in the quick default selection of :class:`~selfexplain.lab.faithfulness.experiment.LabOptions`
  and the Faithfulness page (:data:`~selfexplain.methods.explainers.FAST_METHODS`): the core set without
  integrated gradients, ``attention_mean`` and ``rollout``;
- ``windows``: it also scores a text read in several windows;
- ``aliases``: other names that resolve to the same class (a results folder or a command written with an
  older name still works); an alias is not listed in :data:`METHODS`, so menus offer each method once.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

from selfexplain.errors import InvalidInputError
from selfexplain.support.registry import Registry

if TYPE_CHECKING:
    from selfexplain.methods.explainers.base import AttributionMethod

Flag = Literal["core", "fast", "windows"]

# name -> class, kept in (rank, name) order; a class re-defined under the same qualified name is the same method
METHODS: Registry[type[AttributionMethod]] = Registry(
    "attribution method",
    error=InvalidInputError,
    order=lambda item: (item[1].rank, item[0]),
    identity=lambda cls: cls.__qualname__,
)
ALIASES: dict[str, str] = METHODS.aliases  # alias -> the registry name it stands for


def register(cls: type[AttributionMethod]) -> type[AttributionMethod]:
    """Add ``cls`` under ``cls.name`` (and its ``aliases``), keeping :data:`METHODS` in ``(rank, name)``
    order; a name or alias already taken by another class is a ``ValueError`` (a programming error)."""
    if not cls.label:
        raise ValueError(f"attribution method {cls.name!r} has no label")
    return METHODS.register(cls.name, cls, cls.aliases)


def is_method(name: str) -> bool:
    """Whether ``name`` is a registry name or an alias of one."""
    return METHODS.known(name)


def method_class(name: str) -> type[AttributionMethod]:
    """The class registered as ``name`` or as an alias of it; an unknown name is an
    :class:`~selfexplain.errors.InvalidInputError` that lists the registry names."""
    return METHODS.get(name)


def get_method(name: str) -> AttributionMethod:
    """The registered attribution method ``name`` (or an alias of it) with its default parameters."""
    return method_class(name)()


def method_names(flag: Flag | None = None) -> tuple[str, ...]:
    """The registry names in :data:`METHODS` order, all of them or those whose class sets ``flag``."""
    return METHODS.names(None if flag is None else lambda cls: bool(getattr(cls, flag)))


def method_label(name: str) -> str:
    """The human name of ``name``: its class's ``label``; for an alias, that label followed by the alias
    (so two names of one method stay apart in a table); an unknown name as is."""
    if name in METHODS:
        return METHODS[name].label
    if name in ALIASES:
        return f"{METHODS[ALIASES[name]].label} ({name})"
    return name
