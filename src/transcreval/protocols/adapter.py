"""The runner contract: what a protocol gives ``transcreval evaluate`` so that it plugs in.

The runner (:mod:`transcreval.runs`) knows nothing about any paper, and no protocol imports the
runner: the contract lives in the protocols layer, which the runner imports
(``transcreval.runs.spec`` re-exports it for adapters written against that path). A protocol
hands the runner a :class:`ProtocolAdapter` (``transcreval.protocols.<paper>.runner.ADAPTER``,
registered in :mod:`transcreval.protocols.catalog`, or any ``module:attribute`` for a protocol
of your own) that declares:

* **units** (:class:`Unit`): the pieces of scoring that are stored and resumed separately, each a
  file ``items/<system>/<unit>.jsonl`` in the run directory. A unit scores a batch of
  :class:`Work` (one manifest :class:`Item` with one system's :class:`Output`) into one
  :class:`Outcome` per work: :class:`~transcreval.protocols.records.ItemRecord`\\ s (the per-item
  values of its metrics) and a JSON ``payload`` for what set-level statistics need later (FID's
  Inception features, a judge's verdicts). :meth:`Unit.prepare` builds the unit (models, judge
  templates) only when there is work, and returns its **signature**: every option, judge and
  weight identity that defines its numbers. The key of an item x unit is the hash of the item's
  and output's content (image sha256s, texts, meta) and that signature: a stored line whose key
  matches is done, so a changed option reruns only the units whose signature changed.
* **tables** (:meth:`ProtocolAdapter.tables`): the paper's tables from the stored records and
  payloads (:class:`RunData`), with no model or judge call: ``transcreval rescore`` runs only this.
* optional **report** and **comparison** settings (figures, metric directions, set-level
  statistics for the significance tests).

``docs/cli.md`` ("Writing a runner adapter") walks through an adapter.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from transcreval.errors import InputError
from transcreval.protocols.records import ItemRecord

if TYPE_CHECKING:
    from transcreval.core.result import Signature
    from transcreval.protocols.records import ProtocolResult

__all__ = [
    "FAILED_OUTPUT_STATUSES",
    "Item",
    "Outcome",
    "Output",
    "Prepared",
    "ProtocolAdapter",
    "RunData",
    "Unit",
    "UnitContext",
    "Work",
    "failed_records",
]

#: statuses of an output that cannot be scored (counted, never dropped)
FAILED_OUTPUT_STATUSES = ("missing_output", "missing_file", "undecodable_output", "no_text", "undecodable_input")


@dataclass(frozen=True)
class Item:
    """One manifest line, with paths resolved and its content digest.

    Attributes:
        id: the item's id (the join key; outputs are matched by it, never by order).
        group: the source item it belongs to (clusters of the significance tests); default ``id``.
        source_image, reference_image: absolute file paths (None where not given).
        target_locale: the market or language the item is adapted to ("ja-JP", "Japan", ...).
        reference_text: a reference text (a title, a caption) where the protocol uses one.
        meta: protocol-specific fields (each protocol documents its keys).
        digest: sha256 of the content (image bytes, texts, meta): part of every key.
        where: ``manifest.jsonl:12`` for messages.
    """

    id: str
    group: str
    source_image: str | None = None
    target_locale: str | None = None
    reference_image: str | None = None
    reference_text: str | None = None
    meta: Mapping[str, Any] = field(default_factory=dict)
    digest: str = ""
    where: str = ""


@dataclass(frozen=True)
class Output:
    """One system's output for one item.

    ``status`` is ``"ok"`` or why it cannot be scored (:data:`FAILED_OUTPUT_STATUSES`), with
    ``detail`` in words; such an output is a counted failure in every unit's records.
    """

    system: str
    item_id: str
    image: str | None = None
    text: str | None = None
    meta: Mapping[str, Any] = field(default_factory=dict)
    digest: str = ""
    status: str = "ok"
    detail: str = ""
    where: str = ""

    @property
    def ok(self) -> bool:
        return self.status == "ok"


@dataclass(frozen=True)
class Work:
    """What a unit scores: an item with one system's output (the item's reference for a
    reference system such as MPTc's ``"GT"`` row)."""

    item: Item
    output: Output
    system: str

    @property
    def where(self) -> str:
        return self.output.where or self.item.where


@dataclass(frozen=True)
class Outcome:
    """A unit's result for one work: its records and a JSON-serialisable payload."""

    records: tuple[ItemRecord, ...]
    payload: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class UnitContext:
    """What a unit may use when it is prepared.

    Attributes:
        judge: the run's judge (a budget-counting wrapper; None when no ``--judge`` was given).
        device: "cpu", "cuda", "cuda:1", ... (None: the library default).
        batch_size: items per ``score`` call (the runner batches; units may use it inside too).
        cache_dir: the run directory's ``cache/`` (the judge SQLite file and the feature cache).
        options: the protocol options after :meth:`ProtocolAdapter.check_options`.
        items: every item of the run (for settings that depend on the whole set, such as a
            quiz's label set); a unit's signature must then include what it uses of them.
    """

    judge: Any = None
    device: str | None = None
    batch_size: int = 16
    cache_dir: Path | None = None
    options: Mapping[str, Any] = field(default_factory=dict)
    items: tuple[Item, ...] = ()

    def feature_cache(self) -> Any:
        """The run's feature cache (``cache/features.sqlite``), or None without a cache dir."""
        if self.cache_dir is None:
            return None
        from transcreval.features.cache import FeatureCache

        return FeatureCache(self.cache_dir / "features.sqlite")


@dataclass(frozen=True)
class Prepared:
    """A unit ready to score: its signature and ``score(works) -> outcomes`` (same order, same
    length). The signature is a printed one (a string) or a :class:`~transcreval.core.result.Signature`;
    work keys hash its canonical JSON (:func:`~transcreval.runs.engine.signature_digest`)."""

    signature: str | Signature
    score: Callable[[Sequence[Work]], Sequence[Outcome]]


@dataclass(frozen=True)
class Unit:
    """One stored, resumable piece of a protocol's scoring (see the module docstring).

    Attributes:
        name: the file stem (``items/<system>/<name>.jsonl``) and the ``--metrics`` name.
        metrics: the record metrics it writes (a failed output gets one failure record each).
        prepare: builds the unit (called only when some item needs scoring, or to key it).
        signature: a cheap signature when it is known without building anything; with it, a
            run whose items are all done never calls ``prepare``.
        needs: what an output must have: ``("image",)``, ``("text",)``, ``()``, ...
        uses_judge: the unit asks the run's judge (dry runs count its calls; budgets apply).
        reference_system: also score each item's reference under this system name (MPTc "GT").
        default: run it when ``--metrics`` is not given (if available).
        available: ``fn(ctx) -> None`` or the reason it cannot run here (missing weights...).
        summary: one line for ``transcreval ls metrics --protocol P``.
        check: ``fn(ctx)`` raising an InputError when the items or options cannot be scored by
            this unit (a field its prompts need, too few labels for a quiz): ``validate`` and
            ``evaluate`` call it before anything is written, so neither fails halfway.
    """

    name: str
    metrics: tuple[str, ...]
    prepare: Callable[[UnitContext], Prepared]
    signature: Callable[[UnitContext], str | Signature] | None = None
    needs: tuple[str, ...] = ("image",)
    uses_judge: bool = False
    reference_system: str | None = None
    default: bool = True
    available: Callable[[UnitContext], str | None] | None = None
    summary: str = ""
    check: Callable[[UnitContext], None] | None = None

    def unavailable(self, ctx: UnitContext) -> str | None:
        """Why this unit cannot run with ``ctx`` (None: it can)."""
        if self.uses_judge and ctx.judge is None:
            return "needs a judge (--judge)"
        return self.available(ctx) if self.available is not None else None


@dataclass(frozen=True)
class RunData:
    """Everything stored about a run, for :meth:`ProtocolAdapter.tables` (no model needed).

    Attributes:
        items: the manifest items in manifest order (after ``--limit``).
        systems: the evaluated systems in command-line order (reference systems not included).
        outputs: ``{system: {item id: Output}}``.
        records: every stored record (reference systems included), in manifest order per unit.
        payloads: ``{(system, unit, item id): payload}``.
        signatures: ``{unit: signature}`` of the units that ran.
        options: the protocol options.
        root: the run directory.
    """

    items: tuple[Item, ...]
    systems: tuple[str, ...]
    outputs: Mapping[str, Mapping[str, Output]]
    records: tuple[ItemRecord, ...]
    payloads: Mapping[tuple[str, str, str], Mapping[str, Any]]
    signatures: Mapping[str, str]
    options: Mapping[str, Any]
    root: Path | None = None

    def payload(self, system: str, unit: str, item_id: str) -> Mapping[str, Any] | None:
        return self.payloads.get((system, unit, item_id))

    def units(self) -> list[str]:
        return list(self.signatures)


def failed_records(work: Work, metrics: Sequence[str], status: str, meta: Mapping[str, Any] | None = None) -> Outcome:
    """One NaN record per metric with ``status`` (a missing or undecodable output)."""
    it = work.item
    m = {**dict(it.meta), **dict(meta or {})}
    recs = tuple(ItemRecord(it.id, work.system, name, math.nan, status, it.group, m) for name in metrics)
    return Outcome(recs, {"status": status, "detail": work.output.detail})


def _check_option_type(protocol: str, key: str, value: Any, default: Any) -> None:
    """An option whose default is a number takes a number (``--option n_options=banana`` is
    refused here, not deep inside the scoring); other options are the protocol's to check (a
    flag may also take a mapping of settings)."""
    if isinstance(default, bool):
        return
    if isinstance(default, int):
        ok, kind = isinstance(value, int) and not isinstance(value, bool), "an integer"
    elif isinstance(default, float):
        ok, kind = isinstance(value, (int, float)) and not isinstance(value, bool), "a number"
    else:
        return
    if not ok:
        raise InputError(f"protocol {protocol!r}: option {key!r} must be {kind} (default {default!r}), got {value!r}")


class ProtocolAdapter:
    """Base of the runner adapters: subclass, set the class attributes, implement :meth:`units`
    and :meth:`tables`.

    Class attributes:
        name: the protocol's catalog name.
        version: bump it when stored records would mean something else (a run directory made
            with another version refuses to resume).
        item_fields: manifest fields every item must have (besides ``id``).
        output_fields: what outputs carry: ``("image",)``, ``("text",)`` or both.
        meta_fields: documented ``meta`` keys of items (``"item:genre"``) and outputs
            (``"output:plan"``) -> meaning; ``validate`` reports unknown ones.
        option_defaults: every protocol option with its default (``--option key=value``).
    """

    name: ClassVar[str] = ""
    version: ClassVar[str] = "1"
    item_fields: ClassVar[tuple[str, ...]] = ()
    output_fields: ClassVar[tuple[str, ...]] = ("image",)
    meta_fields: ClassVar[Mapping[str, str]] = {}
    option_defaults: ClassVar[Mapping[str, Any]] = {}

    def check_options(self, options: Mapping[str, Any] | None) -> dict[str, Any]:
        """The options with defaults filled in; an unknown key is an InputError listing the known ones."""
        given = dict(options or {})
        unknown = sorted(set(given) - set(self.option_defaults))
        if unknown:
            known = ", ".join(sorted(self.option_defaults)) or "none"
            raise InputError(f"protocol {self.name!r}: unknown option(s) {unknown}; its options: {known}")
        for key, value in given.items():
            _check_option_type(self.name, key, value, self.option_defaults[key])
        return {**dict(self.option_defaults), **given}

    def units(self, options: Mapping[str, Any]) -> list[Unit]:
        raise NotImplementedError

    def reserved_systems(self, options: Mapping[str, Any]) -> tuple[str, ...]:
        """System names the protocol keeps for itself (its units' reference rows, MPTc's
        ``"GT"``): a system of the user's may not take them, nor differ from them only in case."""
        return tuple(dict.fromkeys(u.reference_system for u in self.units(options) if u.reference_system))

    def tables(self, data: RunData) -> ProtocolResult:
        raise NotImplementedError

    def report_options(self, result: ProtocolResult) -> dict[str, Any]:
        """Extra :func:`~transcreval.report.write_report` options (``figures``, ``by``,
        ``higher_is_better``, ``gallery_metrics``); figures may need matplotlib."""
        return {}

    def compare_options(self, result: ProtocolResult) -> dict[str, Any]:
        """Extra :func:`~transcreval.significance.compare_systems` options (``statistics``,
        ``rows_from``, ``metrics``) for set-level metrics."""
        return {}

    def check_item(self, item: Item) -> None:
        """Raise an InputError naming ``item.where`` when a protocol-specific field is wrong."""

    def check_output(self, output: Output) -> None:
        """Raise an InputError naming ``output.where`` when a protocol-specific field is wrong."""

    def output_suffix(self, item: Item) -> str | None:
        """The file extension (lower case, with its dot) that the benchmark's own task names for
        ``item``'s output, or None (the default) when it names none. PosterIQ generation's
        prompts name their image's path (``dense/12.jpg``): an output in the format the task
        asks for is no user's choice, so ``evaluate`` and ``validate`` do not warn that it is
        lossy."""
        return None

    def own_outputs(
        self, system: str, spec: str, items: Sequence[Item], *, root: str | None = None
    ) -> tuple[dict[str, Output], list[str]] | None:
        """One system's outputs for the manifest's ``items`` from the protocol's own result file
        when ``spec`` names one (PosterIQ generation's ``{model}_score.json`` with a manifest of
        the prompts): ``({item id: Output}, notes)``, every item given an Output (a missing one
        with status ``missing_output``). None (the default): the generic reader (an ``{id}``
        pattern, a folder, an outputs JSONL)."""
        return None

    def own_inputs(
        self, systems: Mapping[str, str], *, root: str | None = None
    ) -> tuple[list[Item], dict[str, dict[str, Output]], list[str]] | None:
        """Items, every system's outputs and notes from the systems' files alone, for a protocol
        whose result files carry the ground truth (PosterIQ's ``{model}_bench.json``): then
        ``evaluate`` and ``validate`` need no manifest. None (the default): a manifest is needed."""
        return None
