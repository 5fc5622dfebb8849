"""The run's judge budget (``--max-judge-calls``, ``--max-tokens``): one total for all processes.

A budget counts **calls**: every request sent to the endpoint (an answer from the cache costs
nothing; a failed request that a later batch asks again is sent, and counted, again). The HTTP
requests a call took, the client's retries included, are counted beside it (``http_requests``
in the usage) but not against the budget. Tokens are held to the budget by an estimate before a
call (:func:`~transcreval.runs.judging.estimate_tokens`) and counted as the endpoint reports
them after it.

Before a judge batch is sent, :meth:`JudgeBudget.reserve` books its calls and estimated tokens,
or says why it would pass the budget; afterwards :meth:`JudgeBudget.settle` replaces the booking
by what was spent. On one process the totals live in memory. Under ``torchrun`` every rank books
in one file of the run directory (``cache/judge-budget.json``, under a file lock), so the ranks
together never pass the budget: it is global, not per rank.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator
from pathlib import Path

__all__ = ["BUDGET_FILE", "JudgeBudget"]

BUDGET_FILE = "judge-budget.json"
_LOCK_WAIT = 300.0  # seconds a rank waits for another's booking (a few ms each)


class JudgeBudget:
    """What the run's judge may still spend (see the module docstring); ``path``: the file shared
    by the ranks (None: one process, in memory)."""

    def __init__(self, max_calls: int | None, max_tokens: int | None, path: Path | None = None) -> None:
        self.max_calls, self.max_tokens, self.path = max_calls, max_tokens, path
        self._spent = {"calls": 0, "tokens": 0}

    @property
    def active(self) -> bool:
        return self.max_calls is not None or self.max_tokens is not None

    def reset(self) -> None:
        """Start from nothing spent (rank 0, before the ranks score)."""
        with self._held() as spent:
            spent.update(calls=0, tokens=0)

    @contextlib.contextmanager
    def _held(self) -> Iterator[dict[str, int]]:
        if self.path is None:
            yield self._spent
            return
        from transcreval.weights.lock import file_lock

        with file_lock(self.path.with_name(self.path.name + ".lock"), _LOCK_WAIT):
            try:
                spent = {k: int(v) for k, v in json.loads(self.path.read_text(encoding="utf-8")).items()}
            except (FileNotFoundError, ValueError, AttributeError):
                spent = {"calls": 0, "tokens": 0}
            yield spent
            tmp = self.path.with_name(self.path.name + ".tmp")
            tmp.write_text(json.dumps(spent), encoding="utf-8")
            tmp.replace(self.path)

    def reserve(self, calls: int, tokens: int) -> str | None:
        """Book ``calls`` and ``tokens`` (an estimate); None when booked, else why they would pass
        the budget (nothing booked)."""
        if not self.active:
            return None
        with self._held() as spent:
            if self.max_calls is not None and spent["calls"] + calls > self.max_calls:
                return (
                    f"the next judge batch needs {calls} call(s); {spent['calls']} of --max-judge-calls "
                    f"{self.max_calls} are spent"
                )
            if self.max_tokens is not None and spent["tokens"] + tokens > self.max_tokens:
                return (
                    f"the next judge batch needs about {tokens} prompt tokens; {spent['tokens']} of --max-tokens "
                    f"{self.max_tokens} are spent"
                )
            spent["calls"] += calls
            spent["tokens"] += tokens
        return None

    def settle(self, booked_calls: int, calls: int, booked_tokens: int, tokens: int) -> None:
        """Replace a booking by what the batch spent."""
        if not self.active:
            return
        with self._held() as spent:
            spent["calls"] += calls - booked_calls
            spent["tokens"] += tokens - booked_tokens
