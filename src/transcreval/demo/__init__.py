"""``transcreval demo``: every metric family on a small embedded set, offline.

The demo is a list of sections (:data:`SECTIONS`), one module each, with a ``TITLE`` and a
``run(ctx, out)`` function. A section that needs something this machine lacks (model weights,
an optional package, a judge endpoint) says so in one line and the demo goes on; it never
downloads anything unless the user allowed downloads.
"""

from __future__ import annotations

import importlib
import sys
from dataclasses import dataclass
from typing import TYPE_CHECKING, TextIO

from transcreval._version import __version__
from transcreval.errors import MissingDependencyError, TranscrevalError

if TYPE_CHECKING:
    from transcreval.data.demo_set import DemoPoster

#: the demo's sections, in order (module names under ``transcreval.demo``)
SECTIONS: tuple[str, ...] = ("hash_and_titles", "ocr", "background", "similarity", "judges")


@dataclass
class DemoContext:
    """What every section gets: the embedded posters and the system names."""

    posters: list[DemoPoster]
    systems: list[str]


def run_demo(out: TextIO | None = None, sections: tuple[str, ...] = SECTIONS) -> int:
    """Run every section on the embedded set; returns 0 (a skipped section is not an error)."""
    from transcreval.data.demo_set import build_demo_set

    stream = out if out is not None else sys.stdout
    posters = build_demo_set()
    ctx = DemoContext(posters, list(posters[0].outputs))
    print(
        f"transcreval {__version__} demo: {len(posters)} posters x {len(ctx.systems)} systems (embedded set)",
        file=stream,
    )
    for name in sections:
        module = importlib.import_module(f"transcreval.demo.{name}")
        print(f"\n== {module.TITLE} ==\n", file=stream)
        try:
            module.run(ctx, stream)
        except (MissingDependencyError, TranscrevalError) as e:
            first = str(e).splitlines()[0] if str(e) else type(e).__name__
            print(f"skipped: {first}", file=stream)
    return 0
