"""The run commands' exit codes, and the one line each error becomes (docs/cli.md).

0 done; 1 an unexpected error (a traceback follows: please report it); 2 bad input or usage,
or a local file problem (a full disk, a read-only folder, a damaged judge cache): one line
saying what and how to fix it; 3 stopped early by ``--max-judge-calls`` / ``--max-tokens``;
4 the judge cannot be used; 130 interrupted (Ctrl-C; everything done is kept).
"""

from __future__ import annotations

import errno
import sys
import traceback

from transcreval.errors import InputError, JudgeCacheError, JudgeError, MissingDependencyError, TranscrevalError

__all__ = ["EXIT_CODES", "exit_code"]

EXIT_CODES = {"ok": 0, "error": 1, "input": 2, "budget": 3, "judge": 4, "interrupted": 130}


def exit_code(command: str, error: BaseException) -> int:
    """Print what ``error`` means for ``transcreval <command>`` on stderr and return its exit
    code; a closed pipe (``| head``) is raised on, for :func:`transcreval.cli.main` to end quietly."""
    say = f"transcreval {command}:"
    if isinstance(error, KeyboardInterrupt):
        print("interrupted: everything scored so far is kept; rerun the same command to go on", file=sys.stderr)
        return EXIT_CODES["interrupted"]
    if isinstance(error, JudgeCacheError):
        print(f"{say} the local judge cache, not the judge: {error}{_cache_fix(str(error))}", file=sys.stderr)
        return EXIT_CODES["input"]
    if isinstance(error, JudgeError):
        print(f"{say} the judge cannot be used: {error}", file=sys.stderr)
        return EXIT_CODES["judge"]
    if isinstance(error, (InputError, MissingDependencyError, TranscrevalError, FileNotFoundError)):
        print(f"{say} {error}", file=sys.stderr)
        return EXIT_CODES["input"]
    if isinstance(error, BrokenPipeError):
        raise error
    if isinstance(error, OSError):  # the machine, not the inputs: a full disk, a read-only folder
        print(f"{say} {_os_error(error)}", file=sys.stderr)
        return EXIT_CODES["input"]
    traceback.print_exception(type(error), error, error.__traceback__)
    return EXIT_CODES["error"]


def _cache_fix(message: str) -> str:
    """The fix for a judge cache problem, by what SQLite said."""
    low = message.lower()
    if "full" in low:
        return "; free disk space and rerun (the lines already stored are kept)"
    if "read-only" in low or "readonly" in low or "permission" in low or "unable to open" in low:
        return '; make the folder writable (or give --judge a writable "cache" file) and rerun'
    if "locked" in low or "no judge cache at" in low:
        return ""
    return (
        "; move the damaged file aside (mv FILE FILE.bad) and rerun: the lines already stored are kept, only "
        "the answers it held are asked again"
    )


def _os_error(e: OSError) -> str:
    """One line for an error of the file system, with what to do."""
    where = f"{e.filename}: " if e.filename else ""
    what = f"{where}{e.strerror or e}"
    if e.errno == errno.ENOSPC:
        return f"{what}; free disk space and rerun the same command (everything written so far is kept)"
    if e.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
        return f"{what}; make the folder writable, or choose another --out"
    if e.errno == errno.ENAMETOOLONG:
        return f"{what}; use shorter names"
    return what
