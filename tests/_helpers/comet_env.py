"""Whether unbabel-comet imports here, and the registered metrics that need it.

comet pins numpy < 2, so it lives in its own environment (``make test-comet``, .venv-comet). The
family-wide tests parametrise over every registered metric with :func:`registry_params`: the
metrics of :data:`NEEDS_COMET` carry the ``comet`` marker and are skipped where comet cannot be
imported; ``make test-comet`` collects those test files too and runs exactly those cases.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import pytest

#: registered metrics that cannot be built without unbabel-comet
NEEDS_COMET = frozenset({"COMETScore", "IMTBenchScore"})


def comet_import_problem() -> str | None:
    """None where comet imports, else why it does not."""
    from transcreval.engines.comet.engine import import_comet

    try:
        import_comet()
    except Exception as e:  # MissingDependencyError (not installed, or its pins not met), numpy's ABI error
        return f"{type(e).__name__}: {e}"
    return None


WHY = comet_import_problem()
needs_comet = [
    pytest.mark.comet,
    pytest.mark.skipif(
        WHY is not None,
        reason=f"unbabel-comet cannot be imported here ({WHY}); it pins numpy<2: these run in `make test-comet`",
    ),
]


def registry_params(names: Iterable[str]) -> list[Any]:
    """``names`` as pytest parameters, those needing comet marked (see the module docstring)."""
    return [pytest.param(n, marks=needs_comet, id=n) if n in NEEDS_COMET else n for n in names]
