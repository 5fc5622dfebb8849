"""A thread-safe table of named entries, the one mechanism behind the weights manifest, the
feature-extractor and preprocessing registries and the COMET models: add (a different entry
under a taken name needs ``overwrite=True``), remove, look up (a KeyError lists the known names)."""

from __future__ import annotations

import threading
from typing import Generic, Protocol, TypeVar

__all__ = ["NamedTable"]


class _Named(Protocol):
    @property
    def name(self) -> str: ...


E = TypeVar("E", bound=_Named)


class NamedTable(Generic[E]):
    """Entries of type ``entry_type`` by their ``name``; ``kind`` names them in errors
    (``"extractor"``: "extractor 'x' is already registered", "no extractor called 'x'")."""

    def __init__(self, kind: str, entry_type: type[E]) -> None:
        self.kind = kind
        self.entry_type = entry_type
        self._lock = threading.Lock()
        self._entries: dict[str, E] = {}

    def add(self, entry: E, *, overwrite: bool, caller: str) -> E:
        """Store ``entry`` under its name (and return it). An object of another type is a
        TypeError naming ``caller``; another entry under a taken name is a ValueError unless
        ``overwrite`` (the same entry again is no change)."""
        self.swap(entry, overwrite=overwrite, caller=caller)
        return entry

    def swap(self, entry: E, *, overwrite: bool, caller: str) -> E | None:
        """:meth:`add`, returning the entry that was under the name before (None if none), read
        under the same lock as the write (for callers that must clean up after a replaced entry)."""
        if not isinstance(entry, self.entry_type):
            raise TypeError(f"{caller} needs a {self.entry_type.__name__}, got {type(entry).__name__}")
        with self._lock:
            old = self._entries.get(entry.name)
            if old is not None and old != entry and not overwrite:
                raise ValueError(f"{self.kind} {entry.name!r} is already registered; pass overwrite=True to replace it")
            self._entries[entry.name] = entry
        return old

    def remove(self, name: str) -> None:
        """Forget an entry (no error when there is none)."""
        with self._lock:
            self._entries.pop(name, None)

    def find(self, name: str) -> E | None:
        """The entry called ``name``, or None."""
        with self._lock:
            return self._entries.get(name)

    def get(self, name: str) -> E:
        """The entry called ``name``; a ``KeyError`` lists the known names."""
        found = self.find(name)
        if found is None:
            raise KeyError(f"no {self.kind} called {name!r}; known: {', '.join(self.names()) or '(none)'}")
        return found

    def names(self) -> list[str]:
        """The names, sorted."""
        with self._lock:
            return sorted(self._entries)

    def values(self) -> list[E]:
        """The entries, sorted by name."""
        with self._lock:
            return [self._entries[n] for n in sorted(self._entries)]

    def __contains__(self, name: object) -> bool:
        with self._lock:
            return name in self._entries
