"""Looking after a judge cache: its setups, statistics, export rows and pruning.

:class:`CacheMaintenance` is the part of :class:`~transcreval.judge.JudgeCache` that reads the
whole file at once (``transcreval judge-cache stats|export|prune`` uses it); the class that
stores and fetches answers is in :mod:`transcreval.engines.judge.cache`.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from collections.abc import Iterator
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any

from transcreval.errors import InputError, JudgeCacheError

__all__ = ["CacheMaintenance"]


class CacheMaintenance:
    """Whole-file operations of a judge cache (mixed into :class:`~transcreval.judge.JudgeCache`)."""

    path: Path
    mode: str
    _lock: threading.RLock

    def _connect(self) -> sqlite3.Connection:  # pragma: no cover - provided by JudgeCache
        raise NotImplementedError

    def _sqlite_errors(self) -> AbstractContextManager[None]:  # pragma: no cover - provided by JudgeCache
        raise NotImplementedError

    def _write(self, conn: sqlite3.Connection) -> AbstractContextManager[None]:  # pragma: no cover
        raise NotImplementedError

    def __len__(self) -> int:  # pragma: no cover - provided by JudgeCache
        raise NotImplementedError

    def _fetch_all(self, sql: str) -> list[Any]:
        """Every row of one read-only query, under the cache's lock and its SQLite error rule."""
        with self._lock, self._sqlite_errors():
            return self._connect().execute(sql).fetchall()

    def models(self) -> list[tuple[str, str]]:
        """The distinct (backend, model) pairs stored."""
        rows = self._fetch_all("SELECT DISTINCT backend, model FROM replies ORDER BY 1, 2")
        return [(str(b), str(m)) for b, m in rows]

    def setups(self) -> list[dict[str, Any]]:
        """The distinct judge setups the stored answers were recorded with.

        Each is a dict with ``backend``, ``model``, ``params`` (the judge's own decoding
        parameters, before a template's overrides), ``namespace``, ``endpoint`` and
        ``image_max_side``: what a :class:`~transcreval.judge.ReplayJudge` needs to rebuild the
        keys. Answers stored without a setup record (older files) give the parameters of the
        request itself.
        """
        rows = self._fetch_all(
            "SELECT DISTINCT json_extract(meta, '$.setup'), backend, model, json_extract(request, '$.params'), "
            "json_extract(request, '$.namespace'), json_extract(request, '$.endpoint') FROM replies"
        )
        out: dict[str, dict[str, Any]] = {}
        for setup, backend, model, params, ns, endpoint in rows:
            if setup:
                d = json.loads(setup)
            else:
                d = {"backend": backend, "model": model, "params": json.loads(params) if params else {}}
                d.update(namespace=ns, endpoint=endpoint, image_max_side=None)
            d = {k: d.get(k) for k in ("backend", "model", "params", "namespace", "endpoint", "image_max_side")}
            d["params"] = d["params"] or {}
            out.setdefault(json.dumps(d, sort_keys=True), d)
        return [out[k] for k in sorted(out)]

    def stats(self) -> dict[str, Any]:
        """Counts per model and per template, token totals, size and age of the file; ``served``: per
        model asked for, the answers per model name the endpoint reported (another name than the
        one asked for means another model answered, or a dated snapshot of it)."""
        with self._lock, self._sqlite_errors():
            conn = self._connect()
            n, first, last = conn.execute("SELECT count(*), min(created), max(created) FROM replies").fetchone()
            per_model: dict[str, dict[str, int]] = {}
            served_as: dict[str, dict[str, int]] = {}
            for backend, model, meta in conn.execute("SELECT backend, model, meta FROM replies"):
                info = json.loads(meta) if meta else {}
                usage = info.get("usage") or {}
                slot = per_model.setdefault(
                    f"{backend}:{model}", {"answers": 0, "prompt_tokens": 0, "completion_tokens": 0}
                )
                served = served_as.setdefault(f"{backend}:{model}", {})
                name = str(info.get("model") or model)  # the model the endpoint said answered
                served[name] = served.get(name, 0) + 1
                slot["answers"] += 1
                slot["prompt_tokens"] += int(usage.get("prompt_tokens") or 0)
                slot["completion_tokens"] += int(usage.get("completion_tokens") or 0)
            per_template = {
                f"{t}@{v}": int(c)
                for t, v, c in conn.execute(
                    "SELECT template_id, template_version, count(*) FROM replies GROUP BY 1, 2 ORDER BY 1, 2"
                )
            }
        size = sum(p.stat().st_size for p in self._files() if p.exists())
        return {
            "path": str(self.path),
            "answers": int(n),
            "bytes": size,
            "oldest": first,
            "newest": last,
            "models": per_model,
            "served": served_as,
            "templates": per_template,
        }

    def _files(self) -> list[Path]:
        return [self.path, Path(f"{self.path}-wal"), Path(f"{self.path}-shm")]

    def rows(self) -> Iterator[dict[str, Any]]:
        """Every stored answer as a dict (oldest first), for export."""
        rows = self._fetch_all(
            "SELECT key, backend, model, template_id, template_version, request, text, meta, created "
            "FROM replies ORDER BY created, key"
        )
        for key, backend, model, tid, tver, request, text, meta, created in rows:
            yield {
                "key": key,
                "backend": backend,
                "model": model,
                "template": f"{tid}@{tver}",
                "created": created,
                "request": json.loads(request),
                "text": text,
                "meta": json.loads(meta),
            }

    def prune(
        self,
        *,
        older_than_days: float | None = None,
        model: str | None = None,
        template: str | None = None,
        dry_run: bool = False,
    ) -> int:
        """Delete the answers matching every given filter; returns how many match.

        ``template`` is an id (all versions) or ``id@version``. At least one filter is needed.
        """
        if self.mode != "read-write" and not dry_run:
            raise JudgeCacheError("prune needs the cache in read-write mode")
        where: list[str] = []
        args: list[Any] = []
        if older_than_days is not None:
            if older_than_days < 0:
                raise InputError("older_than_days must be >= 0")
            where.append("created < ?")
            args.append(time.time() - older_than_days * 86400.0)
        if model is not None:
            where.append("model = ?")
            args.append(model)
        if template is not None:
            tid, _, tver = template.partition("@")
            where.append("template_id = ?")
            args.append(tid)
            if tver:
                where.append("template_version = ?")
                args.append(tver)
        if not where:
            raise InputError("prune needs at least one filter (older_than_days, model or template)")
        cond = " AND ".join(where)
        with self._lock, self._sqlite_errors():
            conn = self._connect()
            n = int(conn.execute(f"SELECT count(*) FROM replies WHERE {cond}", args).fetchone()[0])
            if not dry_run and n:
                with self._write(conn):
                    conn.execute(f"DELETE FROM replies WHERE {cond}", args)
                conn.execute("VACUUM")
        return n
