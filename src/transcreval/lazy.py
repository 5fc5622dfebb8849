"""Lazy package exports (PEP 562), built from one ``name -> module`` table.

A package that loads its public names on first use writes them once, as a table, and gets its
``__all__``, ``__getattr__`` and ``__dir__`` from :func:`lazy_exports`::

    _EXPORTS = {"ReplayJudge": "transcreval.engines.judge.replay", ...}
    __all__, __getattr__, __dir__ = lazy_exports(globals(), _EXPORTS)

    if TYPE_CHECKING:
        from transcreval.engines.judge.replay import ReplayJudge as ReplayJudge

``__getattr__`` imports a name's module the first time the name is asked for and keeps the value
in the package's namespace (later lookups do not call it again); names listed in ``submodules``
import ``<package>.<name>``; ``dir(package)`` is the public names and the submodules. Type
checkers cannot read a table, so each package also imports its names under
``if TYPE_CHECKING:`` in the explicit re-export form (``import X as X``);
``tests/package/test_lazy_exports.py`` checks that block against the table (:func:`type_checking_block`
writes the expected block). Importing this module imports nothing beyond the standard library.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable, Mapping, MutableMapping
from typing import Any

__all__ = ["lazy_exports", "type_checking_block"]


def lazy_exports(
    namespace: MutableMapping[str, Any],
    table: Mapping[str, str],
    *,
    submodules: Iterable[str] = (),
    also: Iterable[str] = (),
) -> tuple[list[str], Callable[[str], Any], Callable[[], list[str]]]:
    """``(__all__, __getattr__, __dir__)`` for the package whose ``globals()`` is ``namespace``.

    Args:
        namespace: the package's ``globals()``; a loaded name is stored there.
        table: public name -> the module that defines it (absolute module path).
        submodules: names of subpackages/modules reachable as attributes (``transcreval.stats``),
            imported on first use; they are in ``dir()`` but not in ``__all__``.
        also: names the package defines itself (eagerly) that belong in ``__all__``.
    """
    package = str(namespace["__name__"])
    where = dict(table)
    subs = frozenset(submodules)
    public = sorted({*where, *also})

    def __getattr__(name: str) -> Any:
        module = where.get(name)
        if module is not None:
            value = getattr(importlib.import_module(module), name)
            namespace[name] = value
            return value
        if name in subs:
            return importlib.import_module(f"{package}.{name}")
        raise AttributeError(f"module {package!r} has no attribute {name!r}")

    def __dir__() -> list[str]:
        return sorted({*public, *subs})

    return public, __getattr__, __dir__


def type_checking_block(table: Mapping[str, str]) -> str:
    """The ``if TYPE_CHECKING:`` imports that mirror ``table``, one name per line as ruff sorts them."""
    lines = [f"    from {module} import {name} as {name}" for name, module in table.items()]
    return "if TYPE_CHECKING:\n" + "\n".join(sorted(lines, key=lambda line: line.split()[1:4:2])) + "\n"
