"""What every demo section gets (:class:`DemoContext`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from transcreval.data.demo_set import DemoPoster

__all__ = ["DemoContext"]


@dataclass
class DemoContext:
    """What every section gets: the embedded posters and the system names."""

    posters: list[DemoPoster]
    systems: list[str]
