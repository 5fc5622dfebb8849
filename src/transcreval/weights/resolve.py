"""The weights resolver: one path from a manifest name to a verified local file.

Order (the first hit wins):

1. the **explicit argument** (``resolve(name, path)``): a file is used as it is (it may be your
   own fine-tuned weights; its sha256 is recorded, not required to match); a directory is
   searched for the manifest file name and verified;
2. ``TRANSCREVAL_WEIGHTS_DIR``: one or more directories separated by ``os.pathsep`` (``:`` on
   Linux), read-only (a shared cluster mount, a copied folder), searched by file name;
3. a copy an **installed package ships** (the lpips wheel's linear layers);
4. the **user cache**: ``$TRANSCREVAL_CACHE/weights``, by default platformdirs' user cache
   directory (``~/.cache/transcreval/weights`` on Linux);
5. torch hub's checkpoint directory (``$TORCH_HOME/hub/checkpoints``), for the torchvision files
   that torchvision or lpips may already have downloaded there; the Hugging Face hub cache
   (``$HF_HUB_CACHE``), for the open_clip checkpoints open_clip may already have downloaded;
6. a **download** into the user cache (sha256-checked, atomic, file-locked), unless
   ``TRANSCREVAL_OFFLINE=1`` or ``HF_HUB_OFFLINE=1``.

Every file found in 2-5 must have the manifest's size and sha256 (a truncated or corrupt file is
skipped with a warning, and a corrupt copy in our own cache is deleted). A miss raises
:class:`~transcreval.errors.WeightsNotFoundError` listing every place searched and the command to
run on a connected machine. Digests are computed once per process per file (keyed by path, size
and modification time).
"""

from __future__ import annotations

import importlib.util
import logging
import os
from dataclasses import dataclass
from pathlib import Path

from transcreval.errors import WeightsIntegrityError, WeightsNotFoundError
from transcreval.utils.digest import sha256_file
from transcreval.weights.download import DownloadFailed, download, warn_unverified
from transcreval.weights.hf_cache import cached_file, repo_dir
from transcreval.weights.manifest import WeightsEntry, get_entry

log = logging.getLogger("transcreval.weights")

_TRUE = {"1", "true", "yes", "on"}


@dataclass(frozen=True)
class ResolvedWeights:
    """A resolved model file.

    Attributes:
        name: the manifest name (or the file name, for a file given without one).
        path: the local file.
        sha256: the file's digest (always computed; goes into result signatures and cache keys).
        source: where it was found: ``"argument"``, ``"TRANSCREVAL_WEIGHTS_DIR"``,
            ``"package <name>"``, ``"cache"``, ``"torch hub"`` or ``"download"``.
        entry: the manifest entry, when there is one.
        verified: the digest equals the manifest's.
    """

    name: str
    path: Path
    sha256: str
    source: str
    entry: WeightsEntry | None
    verified: bool


# --------------------------------------------------------------------------- environment
def is_offline() -> bool:
    """``TRANSCREVAL_OFFLINE`` or ``HF_HUB_OFFLINE`` is set to a true value (1/true/yes/on)."""
    return bool(offline_reason())


def offline_reason() -> str:
    """Which variables turn offline mode on (e.g. ``"HF_HUB_OFFLINE=1"``); empty when none does."""
    names = ("TRANSCREVAL_OFFLINE", "HF_HUB_OFFLINE")
    return ", ".join(f"{v}={os.environ[v]}" for v in names if os.environ.get(v, "").strip().lower() in _TRUE)


def weights_dirs() -> list[Path]:
    """The directories of ``TRANSCREVAL_WEIGHTS_DIR`` (``os.pathsep``-separated), in order."""
    raw = os.environ.get("TRANSCREVAL_WEIGHTS_DIR", "")
    return [Path(p).expanduser() for p in raw.split(os.pathsep) if p.strip()]


def cache_root() -> Path:
    """transcreval's cache root: ``TRANSCREVAL_CACHE`` or platformdirs' user cache directory."""
    env = os.environ.get("TRANSCREVAL_CACHE", "").strip()
    if env:
        return Path(env).expanduser()
    import platformdirs

    return Path(platformdirs.user_cache_dir("transcreval", appauthor=False))


def cache_dir() -> Path:
    """Where downloaded weights are kept: ``<cache root>/weights``."""
    return cache_root() / "weights"


def torch_hub_dir() -> Path:
    """torch hub's checkpoint directory, computed as torch does (``TORCH_HOME``, ``XDG_CACHE_HOME``)."""
    home = os.environ.get("TORCH_HOME")
    if not home:
        home = os.path.join(os.environ.get("XDG_CACHE_HOME", os.path.join("~", ".cache")), "torch")
    return Path(home).expanduser() / "hub" / "checkpoints"


def shipped_path(entry: WeightsEntry) -> Path | None:
    """The copy an installed package ships (without importing the package), or None."""
    if entry.shipped_in is None:
        return None
    package, rel = entry.shipped_in
    try:
        spec = importlib.util.find_spec(package)
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    for root in spec.submodule_search_locations:
        cand = Path(root) / rel
        if cand.is_file():
            return cand
    return None


# --------------------------------------------------------------------------- verification
def check_file(path: Path, entry: WeightsEntry) -> str | None:
    """Why ``path`` is not a good copy of ``entry`` (None when it is)."""
    try:
        size = path.stat().st_size
    except OSError as exc:
        return f"cannot read it ({exc})"
    if entry.size is not None and size != entry.size:
        hint = "truncated or partly downloaded" if size < entry.size else "a different file"
        return f"size {size} bytes, expected {entry.size} ({hint})"
    if entry.sha256 is not None:
        got = sha256_file(path)
        if got != entry.sha256:
            return f"sha256 {got}, expected {entry.sha256} (corrupt or a different version)"
    return None


def verify_file(path: str | os.PathLike[str], name: str) -> str:
    """Check a file against the manifest entry ``name``; returns its sha256 or raises WeightsIntegrityError."""
    entry = get_entry(name)
    problem = check_file(Path(path), entry)
    if problem is not None:
        raise WeightsIntegrityError(
            f"{path} is not a good copy of weights {name!r}: {problem}. "
            f"Delete it and run `transcreval weights fetch {name} --to DIR` on a connected machine."
        )
    return sha256_file(path)


# --------------------------------------------------------------------------- search
def fetch_command(name: str, to: str = "DIR") -> str:
    """The shell command that fetches ``name`` into ``to`` on a connected machine."""
    return f"transcreval weights fetch {name} --to {to}"


def _human(n: int | None) -> str:
    if n is None:
        return "size unknown"
    for unit in ("B", "KB", "MB", "GB"):
        if n < 1000 or unit == "GB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1000  # type: ignore[assignment]
    return f"{n} B"  # pragma: no cover


def candidates(entry: WeightsEntry) -> list[tuple[str, Path | None, str]]:
    """``(source, path, note)`` for every place to look, in resolver order (None path: not applicable)."""
    out: list[tuple[str, Path | None, str]] = []
    dirs = weights_dirs()
    if dirs:
        out.extend(("TRANSCREVAL_WEIGHTS_DIR", d / entry.filename, "") for d in dirs)
    else:
        out.append(("TRANSCREVAL_WEIGHTS_DIR", None, "not set"))
    if entry.shipped_in is not None:
        package = entry.shipped_in[0]
        shipped = shipped_path(entry)
        out.append((f"package {package}", shipped, "" if shipped else f"package {package!r} is not installed"))
    out.append(("cache", cache_dir() / entry.filename, ""))
    if entry.torch_hub:
        out.append(("torch hub", torch_hub_dir() / entry.filename, ""))
    for name in entry.hf_files:
        found = cached_file(entry.hf_repo, name)
        note = "" if found else f"{repo_dir(entry.hf_repo) / 'snapshots' / '*' / name} (not there)"
        out.append(("huggingface cache", found, note))
    return out


def _search(entry: WeightsEntry, searched: list[str]) -> ResolvedWeights | None:
    for source, path, note in candidates(entry):
        if path is None:
            searched.append(f"{source}: {note}")
            continue
        if not path.is_file():
            searched.append(f"{source}: {path} (not there)")
            continue
        problem = check_file(path, entry)
        if problem is None:
            digest = sha256_file(path)
            if entry.sha256 is None:
                warn_unverified(entry, f"using {path} unverified (sha256 {digest})", file=f"{path}|{digest}")
            return ResolvedWeights(entry.name, path, digest, source, entry, entry.sha256 is not None)
        searched.append(f"{source}: {path} (rejected: {problem})")
        if source == "cache":
            try:
                path.unlink()
            except OSError as exc:
                log.warning(
                    "a bad cached copy of %s (%s) could not be removed (%s); skipping it", entry.name, problem, exc
                )
            else:
                log.warning("removed a bad cached copy of %s: %s", entry.name, problem)
        else:
            log.warning("skipping %s for weights %s: %s", path, entry.name, problem)
    return None


def not_found_error(entry: WeightsEntry, searched: list[str], why: str = "") -> WeightsNotFoundError:
    digest = entry.sha256 or "unknown"
    places = "\n".join(f"  {i}. {s}" for i, s in enumerate(searched, 1))
    cmd = fetch_command(entry.name)
    urls = ", ".join(entry.urls) or "(no URL known)"
    users = f"; used by {', '.join(entry.used_by)}" if entry.used_by else ""
    msg = (
        f"weights {entry.name!r} not found ({entry.filename}, {_human(entry.size)}, sha256 {digest}{users}).\n"
        f"Searched:\n{places}\n"
        + (f"{why}\n" if why else "")
        + f"Fix: on a machine with internet access run `{cmd}`, copy DIR here and set "
        f"TRANSCREVAL_WEIGHTS_DIR=DIR (several directories: separate them with {os.pathsep!r}); "
        f"or download {urls} yourself into such a directory; or pass the file explicitly."
    )
    return WeightsNotFoundError(msg, name=entry.name, searched=tuple(searched), command=cmd)


def locate(name: str) -> tuple[ResolvedWeights | None, list[str]]:
    """Search every local place (never downloads); returns the hit (or None) and what was searched."""
    entry = get_entry(name)
    searched: list[str] = []
    return _search(entry, searched), searched


def resolve(
    name: str,
    path: str | os.PathLike[str] | None = None,
    *,
    download_missing: bool | None = None,
    timeout: float | None = None,
) -> ResolvedWeights:
    """The local file for manifest entry ``name`` (see the module docstring for the order).

    Args:
        name: a manifest name (``transcreval weights list`` shows them).
        path: an explicit file (used as is) or directory (searched by file name, verified).
        download_missing: allow a download (default: unless offline mode is set).
        timeout: network timeout per request, in seconds.
    """
    entry = get_entry(name)
    if path is not None:
        p = Path(path).expanduser()
        if p.is_dir():
            cand = p / entry.filename
            if not cand.is_file():
                raise not_found_error(
                    entry, [f"argument: {cand} (not there)"], why="The directory you passed does not hold it."
                )
            verify_file(cand, name)
            return ResolvedWeights(name, cand, sha256_file(cand), "argument", entry, entry.sha256 is not None)
        if not p.is_file():
            raise not_found_error(entry, [f"argument: {p} (no such file)"], why="The path you passed does not exist.")
        digest = sha256_file(p)
        if entry.sha256 is not None and digest != entry.sha256:
            log.info("weights %s: using %s as given (sha256 %s is not the manifest's)", name, p, digest)
        return ResolvedWeights(name, p, digest, "argument", entry, digest == entry.sha256)

    searched: list[str] = []
    hit = _search(entry, searched)
    if hit is not None:
        return hit
    allowed = (not is_offline()) if download_missing is None else download_missing
    if not allowed:
        reason = "offline mode (TRANSCREVAL_OFFLINE / HF_HUB_OFFLINE)" if is_offline() else "download_missing=False"
        searched.append(f"download: skipped, {reason}")
        raise not_found_error(entry, searched)
    target = cache_dir()
    try:
        got = download(
            entry,
            target,
            is_valid=lambda f: check_file(f, entry) is None,
            **({"timeout": timeout} if timeout is not None else {}),
        )
    except DownloadFailed as exc:
        searched.extend(f"download: {e}" for e in exc.errors)
        raise not_found_error(entry, searched) from None
    except OSError as exc:
        searched.append(f"download into {target}: {exc}")
        raise not_found_error(entry, searched, why="Set TRANSCREVAL_CACHE to a writable directory.") from None
    return ResolvedWeights(name, got, sha256_file(got), "download", entry, entry.sha256 is not None)


def resolve_file(path: str | os.PathLike[str]) -> ResolvedWeights:
    """A file given without a manifest name (e.g. ``LPIPS(weights="my_lpips.pth")``), hashed."""
    p = Path(path).expanduser()
    if not p.is_file():
        raise WeightsNotFoundError(f"weights file {p} does not exist", name=str(p), searched=(str(p),))
    return ResolvedWeights(p.name, p, sha256_file(p), "argument", None, False)
