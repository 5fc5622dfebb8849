"""Lazy package exports (PEP 562), read from the package's own ``if TYPE_CHECKING:`` imports.

A package that loads its public names on first use writes each name once, as an explicit
re-export under ``if TYPE_CHECKING:`` (what type checkers and IDEs read), and gets its
``__all__``, ``__getattr__`` and ``__dir__`` from :func:`lazy_exports`, which reads that block::

    from typing import TYPE_CHECKING

    from transcreval.utils.lazy import lazy_exports

    if TYPE_CHECKING:
        from transcreval.engines.judge.replay import ReplayJudge as ReplayJudge

    __all__, __getattr__, __dir__ = lazy_exports(globals())

At run time the block does not run: ``__getattr__`` imports a name's module the first time the
name is asked for and keeps the value in the package's namespace (later lookups do not call it
again); names listed in ``submodules`` import ``<package>.<name>``; ``dir(package)`` is the
public names and the submodules. Every import in the block is an export and must use the
explicit re-export form ``from <absolute.module> import X as X`` (mypy ``--strict`` and pyright
treat it as public); anything else in the block is refused with an :class:`ImportError` when the
package is imported. Importing this module imports nothing beyond the standard library.
"""

from __future__ import annotations

import ast
import importlib
from collections.abc import Callable, Iterable, MutableMapping
from typing import Any

__all__ = ["lazy_exports", "type_checking_exports"]


def type_checking_exports(source: str, *, where: str = "<source>") -> dict[str, str]:
    """``name -> module`` of the top-level ``if TYPE_CHECKING:`` imports of a module's source.

    Raises:
        ImportError: a statement in the block is not ``from <absolute.module> import X as X``, or
            a name is imported twice (``where`` names the file in the message).
    """
    found: dict[str, str] = {}
    for node in ast.parse(source).body:
        if not (isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING"):
            continue
        for stmt in node.body:
            if not (isinstance(stmt, ast.ImportFrom) and stmt.module and stmt.level == 0):
                raise ImportError(
                    f"{where}, line {stmt.lineno}: the TYPE_CHECKING block lists the lazy exports, one "
                    f"`from <absolute.module> import X as X` each; found {ast.unparse(stmt)!r}"
                )
            for alias in stmt.names:
                if alias.asname != alias.name:
                    raise ImportError(
                        f"{where}, line {stmt.lineno}: write the export as `{alias.name} as {alias.name}` "
                        f"(an explicit re-export), not {ast.unparse(alias)!r}"
                    )
                if alias.name in found:
                    raise ImportError(f"{where}, line {stmt.lineno}: {alias.name} is exported twice")
                found[alias.name] = stmt.module
    return found


def _own_source(namespace: MutableMapping[str, Any]) -> str:
    package = str(namespace["__name__"])
    spec = namespace.get("__spec__")
    loader = getattr(spec, "loader", None)
    get_source = getattr(loader, "get_source", None)
    source = get_source(package) if get_source is not None else None
    if source is None:
        raise ImportError(f"{package}: its lazy exports are read from its source, which its loader does not give")
    return str(source)


def lazy_exports(
    namespace: MutableMapping[str, Any],
    *,
    submodules: Iterable[str] = (),
    also: Iterable[str] = (),
) -> tuple[list[str], Callable[[str], Any], Callable[[], list[str]]]:
    """``(__all__, __getattr__, __dir__)`` for the package whose ``globals()`` is ``namespace``.

    The exported names and their modules are the package's ``if TYPE_CHECKING:`` imports
    (:func:`type_checking_exports` of its source).

    Args:
        namespace: the package's ``globals()``; a loaded name is stored there.
        submodules: names of subpackages/modules reachable as attributes (``transcreval.stats``),
            imported on first use; they are in ``dir()`` but not in ``__all__``.
        also: names the package defines itself (eagerly) that belong in ``__all__``.
    """
    package = str(namespace["__name__"])
    where = type_checking_exports(_own_source(namespace), where=str(namespace.get("__file__", package)))
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
