"""Progress of a run on stderr: a bar on a terminal, periodic log lines otherwise.

``--progress auto`` (default) draws a bar (tqdm when installed, else a one-line bar of our own)
when stderr is a terminal, and otherwise writes a line every ``interval`` seconds (and at the
end), so a log file under a scheduler does not fill with carriage returns. ``bar`` and ``log``
force one form; ``none`` is silent.
"""

from __future__ import annotations

import sys
import time
from typing import Any, TextIO

from transcreval.errors import InputError

__all__ = ["MODES", "Progress"]

MODES = ("auto", "bar", "log", "none")


class Progress:
    """``start(total, what)``, ``advance(n)``, ``note(text)``, ``close()``."""

    def __init__(self, mode: str = "auto", stream: TextIO | None = None, interval: float = 10.0) -> None:
        if mode not in MODES:
            raise InputError(f"--progress must be one of {', '.join(MODES)}, got {mode!r}")
        self.stream = stream if stream is not None else sys.stderr
        if mode == "auto":
            mode = "bar" if getattr(self.stream, "isatty", lambda: False)() else "log"
        self.mode, self.interval = mode, interval
        self.total = self.done = 0
        self.what = ""
        self._bar: Any = None
        self._t0 = self._last = time.monotonic()

    def start(self, total: int, what: str) -> None:
        self.close()
        self.total, self.done, self.what = total, 0, what
        self._t0 = self._last = time.monotonic()
        if self.mode == "bar" and total:
            try:
                from tqdm import tqdm

                self._bar = tqdm(total=total, desc=what, file=self.stream, unit="item", leave=True)
            except ImportError:
                self._bar = None
                self._draw()
        elif self.mode == "log" and total:
            self._line()

    def advance(self, n: int = 1) -> None:
        if n <= 0 or not self.total:
            return
        self.done += n
        if self.mode == "bar":
            if self._bar is not None:
                self._bar.update(n)
            else:
                self._draw()
        elif self.mode == "log" and (time.monotonic() - self._last >= self.interval or self.done >= self.total):
            self._line()

    def note(self, text: str) -> None:
        """A message on its own line (between bars)."""
        if self.mode == "none":
            return
        if self._bar is not None:
            self._bar.write(text, file=self.stream)
        else:
            if self.mode == "bar" and self.total:
                self.stream.write("\n")
            self.stream.write(text + "\n")
            self.stream.flush()

    def _rate(self) -> tuple[float, str]:
        dt = max(time.monotonic() - self._t0, 1e-9)
        rate = self.done / dt
        left = (self.total - self.done) / rate if rate > 0 else float("nan")
        eta = f"{left:.0f}s" if left == left else "?"
        return rate, eta

    def _line(self) -> None:
        self._last = time.monotonic()
        rate, eta = self._rate()
        pct = 100.0 * self.done / self.total if self.total else 100.0
        self.stream.write(f"{self.what}: {self.done}/{self.total} ({pct:.0f}%), {rate:.2f} items/s, eta {eta}\n")
        self.stream.flush()

    def _draw(self) -> None:
        width = 30
        filled = int(width * self.done / self.total) if self.total else width
        rate, eta = self._rate()
        bar = "#" * filled + "-" * (width - filled)
        self.stream.write(f"\r{self.what} [{bar}] {self.done}/{self.total} {rate:.1f}/s eta {eta}")
        self.stream.flush()

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()
            self._bar = None
        elif self.mode == "bar" and self.total:
            self.stream.write("\n")
            self.stream.flush()
        self.total = 0
