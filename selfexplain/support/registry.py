"""One registry base for every kind of extension: attribution methods, span normalisers, sharpness measures,
text perturbations, encoder families and the app's pages.

A :class:`Registry` maps a name to an entry (a class, a function, a small record). An extension adds itself
with :meth:`Registry.register` (or the :meth:`Registry.add` decorator) where it is defined, so a new one is
one file; the command line's choices, the config's validation and the app's lists read :meth:`Registry.names`
and :meth:`Registry.get`, never a list written by hand. :func:`import_modules` imports every module of a
package, which is how a package of extensions fills its registry on import.

A registry is a read-only :class:`~collections.abc.Mapping` (name -> entry) in registration order, or in the
order of its ``order`` key when it has one; an alias resolves to its entry in :meth:`get` but is not listed. A
registry whose entries register themselves in a package of their own can name a ``fill`` (e.g. importing that
package): it runs once, before the registry is first read, so a reader never depends on which modules happen
to have been imported, and the package is imported only when someone reads the registry.
"""

from __future__ import annotations

import importlib
import pkgutil
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any, Generic, TypeVar

T = TypeVar("T")
E = TypeVar("E")
_MISSING: Any = object()


class Registry(Mapping[str, T], Generic[T]):
    """Named entries of one kind.

    ``kind``: what an entry is, in messages ("attribution method"); ``error``: the exception an unknown name
    raises in :meth:`get` (a :class:`ValueError` subclass, e.g. the package's ``InvalidInputError``);
    ``order``: a sort key of ``(name, entry)`` that keeps the entries in that order (else registration order);
    ``identity``: what makes two entries the same one, so registering it again is a no-op (default: equality;
    a class can be told by its ``__qualname__``, so a re-imported module registers again quietly); ``fill``:
    called once before the first read (a lookup, the names, iteration, the length), typically to import the
    modules that register the entries; registering never calls it."""

    def __init__(
        self,
        kind: str,
        *,
        error: type[ValueError] = ValueError,
        order: Callable[[tuple[str, T]], Any] | None = None,
        identity: Callable[[T], object] | None = None,
        fill: Callable[[], object] | None = None,
    ) -> None:
        self.kind = kind
        self.error = error
        self._order = order
        self._identity = identity or (lambda entry: entry)
        self._entries: dict[str, T] = {}
        self.aliases: dict[str, str] = {}  # alias -> the name it stands for
        self._fill = fill  # None once it has run
        self._filling = False
        self._lock = threading.RLock()  # another thread's first read waits for the fill; the filling thread does not

    def _filled(self) -> dict[str, T]:
        """The entries, after running ``fill`` if it has not run yet (if it raises, the next read runs it again).
        A read from inside the fill sees the entries registered so far."""
        if self._fill is not None:
            with self._lock:
                if self._fill is not None and not self._filling:
                    self._filling = True
                    try:
                        self._fill()
                        self._fill = None
                    finally:
                        self._filling = False
        return self._entries

    # the Mapping: names in order -> entries; aliases are not keys
    def __getitem__(self, name: str) -> T:
        return self._filled()[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._filled())

    def __len__(self) -> int:
        return len(self._filled())

    def __repr__(self) -> str:
        return f"Registry({self.kind!r}: {', '.join(self._filled())})"

    def register(self, name: str, entry: T, aliases: Iterable[str] = ()) -> T:
        """Add ``entry`` as ``name`` (and as each of ``aliases``) and return it. A name or alias held by another
        entry is a :class:`ValueError`, a programming error; registering the same entry again changes nothing."""
        aliases = tuple(aliases)
        for taken in (name, *aliases):
            holder = self._entries.get(self.aliases.get(taken, taken))
            if holder is not None and self._identity(holder) != self._identity(entry):
                raise ValueError(f"{self.kind} name {taken!r} is taken by {_describe(holder)} (registered twice)")
        self._entries[name] = entry
        self.aliases.update({alias: name for alias in aliases})
        if self._order is not None:
            ordered = sorted(self._entries.items(), key=self._order)
            self._entries.clear()
            self._entries.update(ordered)
        return entry

    def add(self, name: str, aliases: Iterable[str] = ()) -> Callable[[E], E]:
        """Decorator form of :meth:`register` for entries that are the decorated object itself."""

        def decorate(entry: E) -> E:
            self.register(name, entry, aliases)  # type: ignore[arg-type]
            return entry

        return decorate

    def names(self, where: Callable[[T], bool] | None = None) -> tuple[str, ...]:
        """The names in order, all of them or those whose entry passes ``where``."""
        return tuple(name for name, entry in self._filled().items() if where is None or where(entry))

    def known(self, name: str) -> bool:
        """Whether ``name`` is a registered name or an alias of one."""
        return name in self._filled() or name in self.aliases

    def canonical(self, name: str) -> str:
        """The registered name ``name`` stands for (itself unless it is an alias); unknown names as they are."""
        self._filled()
        return self.aliases.get(name, name)

    def get(self, name: str, default: Any = _MISSING) -> T:  # type: ignore[override]
        """The entry registered as ``name`` or as an alias of it. An unknown name raises :attr:`error` with a
        one-line message listing the choices, unless a ``default`` is given (then that is returned, as a
        mapping's ``get`` does)."""
        if not self.known(name):
            if default is not _MISSING:
                return default
            raise self.error(f"unknown {self.kind} {name!r}; choose from {', '.join(self._entries)}")
        return self._entries[self.canonical(name)]


def _describe(entry: object) -> str:
    """An entry in a message: a class or function by its qualified name, anything else by its repr."""
    return getattr(entry, "__qualname__", None) or repr(entry)


def import_modules(package: str, path: Iterable[str]) -> tuple[str, ...]:
    """Import every module of ``package`` (its ``__name__``) found on ``path`` (its ``__path__``), in name
    order, so each registers what it defines; returns the modules' full names."""
    names = tuple(f"{package}.{info.name}" for info in sorted(pkgutil.iter_modules(path), key=lambda i: i.name))
    for name in names:
        importlib.import_module(name)
    return names
