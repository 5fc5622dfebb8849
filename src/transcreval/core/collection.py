"""A dict of metrics updated together and synced in packed collectives.

``update``/``forward`` route arguments by each member's declared ``update`` signature:
positional arguments go to every member (the system output first, the reference second: the
convention every metric follows), keyword arguments to the members whose ``update`` names them
(or takes ``**kwargs``); a keyword that no member takes is a ``TypeError`` naming it. A member
given with an *input map*, ``(metric, {"preds": "pred_titles", "target": "ref_titles"})``,
takes its inputs from the named arguments of the collection's ``update`` instead (only them:
no positional argument), so image and text metrics share one update::

    col = MetricCollection({"phash": PHashDistance(),
                            "chrf": (TitleChrF(), {"preds": "pred_titles", "target": "ref_titles"})})
    col.update(posters, sources, pred_titles=titles, ref_titles=references)

A map's values name keywords of the collection's ``update``, or ``"preds"`` / ``"target"`` for
its first and second positional argument. Both ``update`` and ``forward`` are atomic: every
member's batch statistics are computed before any member accumulates, so an error in one member
leaves all of them as they were.

``compute()`` syncs the members in groups of equal sync settings (process group, custom
``dist_sync_fn``, ``sync_objects``, device): one :func:`~transcreval.core.distributed.sync_states`
call per group, i.e. one ``all_reduce`` per (operation, dtype) and one gather per Cat dtype for
all the members of a group, however many there are. Members never share state implicitly (no
inferred compute groups).

Feature sharing is explicit: each update runs inside :func:`transcreval.core.scope.feature_scope`,
so members that convert the same argument the same way get one tensor, and a feature extractor
(LPIPS trunk, Inception, CLIP...) called by several members on it runs once per batch.
"""

from __future__ import annotations

import inspect
from collections.abc import Iterator, Mapping
from typing import Any

from transcreval.core.distributed import sync_states
from transcreval.core.metric import Metric
from transcreval.core.result import MetricResult
from transcreval.core.scope import feature_scope

Member = Metric | tuple[Metric, Mapping[str, str]]


class MetricCollection:
    """Several metrics fed from the same batches.

    Args:
        metrics: a mapping ``name -> member`` or a list of members (named by class name); a
            member is a Metric, or ``(metric, input_map)`` where ``input_map`` maps the member's
            ``update`` parameters to the collection's arguments that feed them (see the module
            docstring).
        prefix / postfix: added to every key of the computed dict.
    """

    def __init__(self, metrics: Mapping[str, Member] | list[Member], *, prefix: str = "", postfix: str = "") -> None:
        entries: dict[str, Any] = {}
        if isinstance(metrics, Mapping):
            entries = dict(metrics)
        else:
            for m in metrics:
                metric = m[0] if isinstance(m, tuple) and m else m
                if not isinstance(metric, Metric):
                    raise TypeError(f"a member is a {type(metric).__name__}, not a transcreval Metric")
                if metric.name in entries:
                    raise ValueError(f"two metrics are named {metric.name!r}: pass a dict to name them")
                entries[metric.name] = m
        if not entries:
            raise ValueError("MetricCollection needs at least one metric")
        items: dict[str, Metric] = {}
        self._inputs: dict[str, dict[str, str]] = {}
        for k, entry in entries.items():
            metric, imap = entry if isinstance(entry, tuple) and len(entry) == 2 else (entry, None)
            if not isinstance(metric, Metric):
                raise TypeError(f"member {k!r} is a {type(metric).__name__}, not a transcreval Metric")
            items[k] = metric
            if imap is not None:
                self._inputs[k] = self._check_map(k, metric, imap)
        if len({id(m) for m in items.values()}) != len(items):
            raise ValueError("the same metric object appears twice in the collection: give each key its own metric")
        self._metrics = items
        self.prefix = prefix
        self.postfix = postfix

    @classmethod
    def _check_map(cls, key: str, metric: Metric, imap: Any) -> dict[str, str]:
        if not isinstance(imap, Mapping) or not imap:
            raise TypeError(f"member {key!r}: the input map must be a non-empty dict {{parameter: argument name}}")
        names, var_kw = cls._accepts(metric)
        out: dict[str, str] = {}
        for param, source in imap.items():
            if not isinstance(param, str) or not isinstance(source, str) or not source.isidentifier():
                raise TypeError(f"member {key!r}: input map entries are parameter -> argument name strings")
            if param not in names and not var_kw:
                raise TypeError(
                    f"member {key!r}: {metric.name}.update has no parameter {param!r} (it takes {sorted(names)})"
                )
            out[param] = source
        return out

    def __getitem__(self, key: str) -> Metric:
        return self._metrics[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._metrics)

    def __len__(self) -> int:
        return len(self._metrics)

    def items(self) -> Iterator[tuple[str, Metric]]:
        return iter(self._metrics.items())

    # ------------------------------------------------------------------ routing
    @staticmethod
    def _accepts(metric: Metric) -> tuple[set[str], bool]:
        params = inspect.signature(metric.update).parameters.values()
        names = {p.name for p in params if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)}
        return names, any(p.kind is p.VAR_KEYWORD for p in params)

    def _routes(
        self, args: tuple[Any, ...], kwargs: dict[str, Any]
    ) -> dict[str, tuple[tuple[Any, ...], dict[str, Any]]]:
        routes: dict[str, tuple[tuple[Any, ...], dict[str, Any]]] = {}
        taken: set[str] = set()
        named = dict(zip(("preds", "target"), args))  # what "preds" / "target" in an input map name
        for key, m in self._metrics.items():
            imap = self._inputs.get(key)
            if imap is None:
                names, var_kw = self._accepts(m)
                mine = {k: v for k, v in kwargs.items() if var_kw or k in names}
                taken.update(mine)
                routes[key] = (args, mine)
                continue
            mapped: dict[str, Any] = {}
            for param, source in imap.items():
                if source in kwargs:
                    mapped[param] = kwargs[source]
                    taken.add(source)
                elif source in named:
                    mapped[param] = named[source]
                elif self._required(m, param):
                    raise TypeError(
                        f"MetricCollection.update: member {key!r} takes {param}= from the argument {source!r}, "
                        "which was not passed"
                    )
            routes[key] = ((), mapped)
        unknown = sorted(set(kwargs) - taken)
        if unknown:
            takes = {k: sorted(self._accepts(m)[0]) for k, m in self._metrics.items() if k not in self._inputs}
            takes.update({k: sorted(v.values()) for k, v in self._inputs.items()})
            raise TypeError(f"MetricCollection.update: no member takes the keyword(s) {unknown}; members take {takes}")
        return routes

    @staticmethod
    def _required(metric: Metric, param: str) -> bool:
        p = inspect.signature(metric.update).parameters.get(param)
        return p is not None and p.default is p.empty and p.kind is not p.VAR_KEYWORD

    def _batches(self, args: tuple[Any, ...], kwargs: dict[str, Any], method: str) -> dict[str, dict[str, Any]]:
        routes = self._routes(args, kwargs)
        with feature_scope():  # each feature extractor runs once per input for all members
            return {k: m._batch(*routes[k], method) for k, m in self._metrics.items()}

    def update(self, *args: Any, **kwargs: Any) -> None:
        """Accumulate a batch in every member (all or none of them)."""
        batches = self._batches(args, kwargs, "update")
        for k, m in self._metrics.items():
            m._merge(batches[k])

    def forward(self, *args: Any, **kwargs: Any) -> dict[str, MetricResult]:
        """Accumulate a batch in every member and return each member's value on that batch."""
        batches = self._batches(args, kwargs, "forward")
        results = {self._key(k): m._batch_result(batches[k]) for k, m in self._metrics.items()}
        for k, m in self._metrics.items():
            m._merge(batches[k])
        return results

    def __call__(self, *args: Any, **kwargs: Any) -> dict[str, MetricResult]:
        return self.forward(*args, **kwargs)

    def reset(self) -> None:
        for m in self._metrics.values():
            m.reset()

    def to(self, device: Any) -> MetricCollection:
        for m in self._metrics.values():
            m.to(device)
        return self

    def _key(self, name: str) -> str:
        return f"{self.prefix}{name}{self.postfix}"

    # ------------------------------------------------------------------ compute
    def compute(self, sync: bool | None = None) -> dict[str, MetricResult]:
        """Every member's result; members with equal sync settings sync in one packed collective.

        Members that are synced already (``sync()``/``sync_context()``) use their synced states.
        Like ``Metric.compute``, a syncing compute is a collective on every call (never served
        from a cache, so that no rank can skip a collective the others enter).
        """
        members = list(self._metrics.items())
        results: dict[str, MetricResult] = {}
        groups: dict[tuple[Any, ...], list[tuple[str, Metric]]] = {}
        for k, m in members:
            if m.is_synced or not m._should_sync(sync):
                continue
            key = (id(m.process_group), id(m.dist_sync_fn), m.sync_objects, str(m.device))
            groups.setdefault(key, []).append((k, m))
        for group in groups.values():
            first = group[0][1]
            specs, values, owners = [], [], []
            for k, m in group:
                state = m._settled()  # held update calls run, Python totals folded
                for n, spec in m._specs.items():
                    specs.append(spec)
                    values.append(state[n])
                    owners.append((k, n))
            synced = sync_states(
                specs,
                values,
                group=first.process_group,
                dist_sync_fn=first.dist_sync_fn,
                sync_objects=first.sync_objects,
                device=first.device,
            )
            per_member: dict[str, dict[str, Any]] = {k: {} for k, _ in group}
            for (k, n), v in zip(owners, synced):
                per_member[k][n] = v
            for k, m in group:
                m._check_synced(per_member[k])  # a rank whose member was built with other options
                res = m._from_stats(per_member[k])
                m._computed = ("sync", res)
                results[k] = res.copy()
        for k, m in members:
            if k not in results:
                results[k] = m.compute(sync=False)  # local, or the states synced already
        return {self._key(k): results[k] for k, _ in members}
