"""Headless Chromium for the report tests: find it, load a file:// page offline, dump or shoot.

Chromium comes from the distribution's packages (Debian: ``apt-get install chromium``; the
Makefile's ``browser`` step installs it before ``make test`` where it is missing). Flags: no
sandbox (tests may run as root), no GPU, and no background networking, component updates or
sync, so the browser makes no connection of its own; each run gets a fresh profile directory.
``TRANSCREVAL_CHROMIUM`` names another binary.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from pathlib import Path

FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
    "--hide-scrollbars",
)
TIMEOUT = 180


def find_chromium() -> str | None:
    named = os.environ.get("TRANSCREVAL_CHROMIUM")
    if named:
        return named if shutil.which(named) or Path(named).is_file() else None
    for name in ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable"):
        found = shutil.which(name)
        if found:
            return found
    return None


def _run(binary: str, page: Path, extra: list[str]) -> subprocess.CompletedProcess:
    with tempfile.TemporaryDirectory(prefix="transcreval-chromium-") as profile:
        cmd = [binary, *FLAGS, f"--user-data-dir={profile}", *extra, page.resolve().as_uri()]
        return subprocess.run(cmd, capture_output=True, text=True, timeout=TIMEOUT, check=False)


def dump_dom(binary: str, page: Path) -> str:
    """The page's DOM after load (scripts run), as Chromium serialises it."""
    done = _run(binary, page, ["--virtual-time-budget=5000", "--dump-dom"])
    if done.returncode != 0 or "<body" not in done.stdout:
        raise RuntimeError(f"chromium --dump-dom failed ({done.returncode}):\n{done.stderr[-3000:]}")
    return done.stdout


def screenshot(binary: str, page: Path, out: Path, size: tuple[int, int] = (1280, 3000)) -> Path:
    """A PNG screenshot of the page's first ``size`` pixels."""
    done = _run(binary, page, [f"--window-size={size[0]},{size[1]}", f"--screenshot={out}"])
    if done.returncode != 0 or not out.is_file():
        raise RuntimeError(f"chromium --screenshot failed ({done.returncode}):\n{done.stderr[-3000:]}")
    return out
