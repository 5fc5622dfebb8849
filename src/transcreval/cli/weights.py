"""``transcreval weights list | where NAME | fetch NAME... [--to DIR] | verify [DIR]``.

* ``list``: every manifest file, its size, who uses it, and where it is found (by file name and
  size; ``verify`` checks digests);
* ``where NAME``: the file the resolver would use (never downloads), or every place searched;
* ``fetch NAME... [--to DIR] [--ignore-offline]``: put verified copies into DIR (default: the
  user cache), copying a local copy when there is one, downloading otherwise (``all`` fetches
  every file); offline mode (``TRANSCREVAL_OFFLINE`` / ``HF_HUB_OFFLINE``) forbids downloads
  unless ``--ignore-offline`` is given;
* ``verify [DIR]``: sha256 of every manifest file in DIR (several: separated by ``os.pathsep``,
  as in ``TRANSCREVAL_WEIGHTS_DIR``; default: every place the resolver searches); exit status 1
  when one is bad, a directory does not exist, or DIR holds no manifest file.

Errors (an unknown name, a file not found, a destination that cannot be written) are one line
on stderr and exit status 1.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any, TextIO

from transcreval.errors import WeightsError
from transcreval.weights.fetch import fetch
from transcreval.weights.manifest import entries, get_entry
from transcreval.weights.resolve import candidates, check_file, fetch_command, locate, sha256_file


def add_parser(sub: Any) -> None:
    """Register ``weights`` and its subcommands on an argparse subparsers object."""
    p = sub.add_parser("weights", help="list, locate, fetch and verify model files")
    wsub = p.add_subparsers(dest="weights_command")
    wsub.add_parser("list", help="every model file in the manifest and where it is found")
    w = wsub.add_parser("where", help="the file the resolver would use for NAME (never downloads)")
    w.add_argument("name")
    f = wsub.add_parser("fetch", help="put verified copies of NAME... into DIR (default: the user cache)")
    f.add_argument("names", nargs="+", metavar="NAME", help="manifest names, or 'all'")
    f.add_argument("--to", metavar="DIR", default=None)
    f.add_argument(
        "--ignore-offline",
        action="store_true",
        help="download even when TRANSCREVAL_OFFLINE or HF_HUB_OFFLINE is set",
    )
    v = wsub.add_parser("verify", help="check the sha256 of every manifest file in DIR (default: everywhere)")
    v.add_argument("dir", nargs="?", default=None, help=f"a directory, or several separated by {os.pathsep!r}")


def _size(n: int | None) -> str:
    if n is None:
        return "?"
    return f"{n / 1e6:.1f} MB" if n >= 1e6 else f"{n / 1e3:.1f} KB"


def _table(rows: list[list[str]], header: list[str]) -> str:
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    fmt = lambda r: "  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip()  # noqa: E731
    return "\n".join([fmt(header), "  ".join("-" * w for w in widths), *(fmt(r) for r in rows)])


def _cmd_list(out: TextIO) -> int:
    rows = []
    for e in entries():
        found = "missing"
        for source, path, _ in candidates(e):
            if path is not None and path.is_file() and (e.size is None or path.stat().st_size == e.size):
                found = f"{source}: {path}"
                break
        rows.append([e.name, e.filename, _size(e.size), ", ".join(e.used_by), found])
    print(_table(rows, ["name", "file", "size", "used by", "found (by name and size)"]), file=out)
    return 0


def _cmd_where(name: str, out: TextIO) -> int:
    hit, searched = locate(name)
    if hit is not None:
        state = "verified" if hit.verified else "not verified (no sha256 in the manifest)"
        print(f"{hit.path}\n  source: {hit.source}\n  sha256: {hit.sha256} ({state})", file=out)
        return 0
    print(f"{name}: not found locally. Searched:", file=out)
    for i, s in enumerate(searched, 1):
        print(f"  {i}. {s}", file=out)
    print(f"Fetch it on a connected machine: {fetch_command(name)}", file=out)
    return 1


def _cmd_fetch(names: list[str], to: str | None, out: TextIO, ignore_offline: bool = False) -> int:
    wanted = [e.name for e in entries()] if names == ["all"] else names
    for n in wanted:
        get_entry(n)  # unknown names fail before anything is fetched
    for n in wanted:
        try:
            path = fetch(n, to, download_missing=True if ignore_offline else None)
        except WeightsError:
            raise
        except OSError as exc:  # the destination: read-only, a file in the way, disk full
            where = to if to is not None else "the user cache (TRANSCREVAL_CACHE)"
            raise _CommandError(
                f"cannot write {n} into {where}: {exc.strerror or exc}"
                f"{f' ({exc.filename})' if exc.filename else ''}; pass a writable directory with --to"
            ) from None
        print(f"{n}: {path}", file=out)
    if to is not None:
        print(f"use them offline with: export TRANSCREVAL_WEIGHTS_DIR={Path(to).expanduser().resolve()}", file=out)
    return 0


class _CommandError(Exception):
    """A failure to report as one line and exit status 1."""


def _verify_dirs(spec: str) -> list[Path]:
    dirs = [Path(p).expanduser() for p in spec.split(os.pathsep) if p.strip()]
    if not dirs:
        raise _CommandError(f"no directory in {spec!r}")
    for d in dirs:
        if not d.is_dir():
            raise _CommandError(f"{d} {'is not a directory' if d.exists() else 'does not exist'}")
    return dirs


def _cmd_verify(directory: str | None, out: TextIO) -> int:
    bad = 0
    rows = []
    dirs = _verify_dirs(directory) if directory is not None else []
    for e in entries():
        if directory is not None:
            places: list[tuple[str, Path | None]] = [("dir", d / e.filename) for d in dirs]
        else:
            places = [(s, p) for s, p, _ in candidates(e)]
        for _source, path in places:
            if path is None or not path.is_file():
                if directory is not None:
                    rows.append([e.name, "absent", str(path)])
                continue
            problem = check_file(path, e)
            if problem is None:
                rows.append([e.name, "ok", f"{path} ({sha256_file(path)[:12]}...)"])
            else:
                bad += 1
                rows.append([e.name, "BAD", f"{path}: {problem}"])
    if not rows:
        print("no manifest files found in any searched place", file=out)
    else:
        print(_table(rows, ["name", "status", "file"]), file=out)
    if bad:
        print(f"{bad} bad file(s): delete them and fetch again ({fetch_command('NAME')})", file=out)
    if directory is not None and all(r[1] == "absent" for r in rows):
        print(f"no manifest file in {directory}: fetch them there ({fetch_command('NAME', directory)})", file=out)
        return 1
    return 1 if bad else 0


def run(args: argparse.Namespace, out: TextIO | None = None) -> int:
    """Run a parsed ``transcreval weights ...`` command; returns the exit status."""
    stream = out if out is not None else sys.stdout
    cmd = getattr(args, "weights_command", None)
    try:
        if cmd == "list":
            return _cmd_list(stream)
        if cmd == "where":
            return _cmd_where(args.name, stream)
        if cmd == "fetch":
            return _cmd_fetch(args.names, args.to, stream, getattr(args, "ignore_offline", False))
        if cmd == "verify":
            return _cmd_verify(args.dir, stream)
    except (KeyError, WeightsError, _CommandError) as exc:
        print(f"error: {exc.args[0] if exc.args else exc}", file=sys.stderr)
        return 1
    usage = "{list,where NAME,fetch NAME... [--to DIR] [--ignore-offline],verify [DIR]}"
    print(f"usage: transcreval weights {usage}", file=sys.stderr)
    return 2
