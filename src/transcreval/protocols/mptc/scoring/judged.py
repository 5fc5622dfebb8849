"""MPTc-Bench's judge-based per-item values (§5.1-5.2): titles, quizzes, scores, preferences.

Every poster is asked about with the same requests as the metric classes (the same
templates, the same seeded option shuffles and A/B orders keyed by the item id), so the
judge cache is shared with :class:`~transcreval.TitleExtraction`, :class:`~transcreval.QuizHitRate`,
:class:`~transcreval.JudgeScore` and :class:`~transcreval.WinRate` run with ``item_ids``; each
answer becomes one :class:`~transcreval.protocols.records.ItemRecord` with its status, so a
failed answer is a NaN record (never a score, never dropped).

Per item and system (the system's poster MTc; the GT poster for the reference row ``"GT"``):

* ``title_chrf``: sentence chrF (0-100) of the title read from MTc against the title read from GT;
* ``plan_chrf``: sentence chrF of the title proposed in the plan against the title read from GT;
* ``genre_hit``, ``year_hit``: 1 when the judge picks the right genre / release decade, else 0;
* ``aesthetic``, ``adaptation``: the judge's 1-5 scores of the poster given SRC; by default both
  come from one joint call per poster (App. A.2's direct-scoring prompt asks for both);
  ``judge_call="separate"`` asks one call per score (the :class:`~transcreval.JudgeScore` prompts);
* ``win``: 1 when the judge prefers MTc to GT, 0 when it prefers GT, 0.5 when the two orders of
  ``both_orders=True`` disagree.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from transcreval.errors import InputError
from transcreval.protocols.mptc.inputs import MPTcItem, MPTcOutput, MPTcSet, decade_of, plan_title, system_name
from transcreval.protocols.records import ItemRecord

__all__ = ["DECADES", "JUDGE_METRICS", "TEMPLATE_KEYS", "check_judge_settings", "judge_records", "judge_templates"]

#: the default pool of decade options (our choice: the paper does not list its options)
DECADES = tuple(f"{d}s" for d in range(1900, 2030, 10))
#: the per-item metrics this module produces, in table order
JUDGE_METRICS = ("genre_hit", "year_hit", "title_chrf", "plan_chrf", "aesthetic", "adaptation", "win")
#: the prompts a caller may replace (``templates={key: template}``)
TEMPLATE_KEYS = ("title", "quiz", "scores", "aesthetic", "adaptation", "pairwise")
_FIELDS = {"target_market": "target_market", "source_market": "source_market", "genre": "genre"}


def judge_templates(templates: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The prompt of each key in :data:`TEMPLATE_KEYS`: ``templates[key]`` (a template, a built-in id
    or a file) where given, else the built-in MPTc prompt; checked against the fields each fills."""
    from transcreval.engines.judge.catalog import (
        MPTC_ADAPTATION,
        MPTC_AESTHETIC,
        MPTC_AESTHETIC_ADAPTATION,
        MPTC_PAIRWISE,
        MPTC_QUIZ,
        MPTC_TITLE,
    )
    from transcreval.engines.judge.templates import resolve_template

    defaults = {
        "title": MPTC_TITLE,
        "quiz": MPTC_QUIZ,
        "scores": MPTC_AESTHETIC_ADAPTATION,
        "aesthetic": MPTC_AESTHETIC,
        "adaptation": MPTC_ADAPTATION,
        "pairwise": MPTC_PAIRWISE,
    }
    given = dict(templates or {})
    unknown = sorted(set(given) - set(defaults))
    if unknown:
        raise InputError(f"templates: unknown key(s) {unknown}; the keys are {list(TEMPLATE_KEYS)}")
    return {k: resolve_template(given.get(k), d, what=f"the MPTc {k!r} prompt") for k, d in defaults.items()}


class _Asker:
    """Collects (images, fields, reader, owner) rows per template and asks each template's batch once."""

    def __init__(self, judge: Any) -> None:
        self.judge = judge
        self.rows: dict[str, list[tuple[Mapping[str, Any], Mapping[str, Any], Any, Any]]] = {}
        self.templates: dict[str, Any] = {}

    def add(
        self, key: str, template: Any, images: Mapping[str, Any], fields: Mapping[str, Any], reader: Any, owner: Any
    ) -> None:
        self.templates[key] = template
        self.rows.setdefault(key, []).append((images, fields, reader, owner))

    def run(self) -> dict[str, list[tuple[Any, Any]]]:
        from transcreval.engines.judge.verdicts import ask, render_each

        out = {}
        for key, rows in self.rows.items():
            tpl = self.templates[key]
            requests = render_each(tpl, [(im, f) for im, f, _, _ in rows], _FIELDS, f"MPTc {key}")
            verdicts = ask(self.judge, requests, [r for _, _, r, _ in rows])
            out[key] = [(owner, v) for (_, _, _, owner), v in zip(rows, verdicts)]
        return out


class _Parts:
    """Images of one batch as judge image parts, each decoded once."""

    def __init__(self) -> None:
        self.parts: dict[tuple[str, str], Any] = {}

    def get(self, key: tuple[str, str], image: Any, what: str) -> Any:
        from transcreval.engines.judge.images import to_image_part

        if key not in self.parts:
            try:
                self.parts[key] = to_image_part(image, what=what)
            except InputError as e:
                raise type(e)(f"{what}: {e}") from e
        return self.parts[key]


def _both_scores(text: str) -> Any:
    """Reads the joint answer: a Read of ``(aesthetic Read, adaptation Read)``, failed when no JSON."""
    from transcreval.engines.judge.parse import Read, extract_json
    from transcreval.functional.judge.judge_score import read_judge_score

    obj = extract_json(text)
    if not obj.ok:
        return obj
    return Read((read_judge_score("aesthetic")(text), read_judge_score("adaptation")(text)))


def _quizzes(
    item: MPTcItem, seed: int, n_options: int, genre_labels: Sequence[str], decade_labels: Sequence[str]
) -> list[tuple[str, str, str, list[str]]]:
    """(kind, metric, correct answer, options in the order shown) of the item's two quizzes."""
    from transcreval.functional.judge.quiz_hit_rate import quiz_options

    out = []
    for kind, metric, target, options, labels in (
        ("genre", "genre_hit", item.genre, item.genre_options, genre_labels),
        ("decade", "year_hit", decade_of(item.year) if item.year else None, item.decade_options, decade_labels),
    ):
        if target is None:
            continue
        try:
            out.append((kind, metric, target, quiz_options(target, options, labels, n_options, seed, item.item_id)))
        except InputError as e:
            raise InputError(f"{item.where}: the {kind} quiz: {e}") from None
    return out


def check_judge_settings(
    data: MPTcSet,
    *,
    judge_call: str = "joint",
    templates: Mapping[str, Any] | None = None,
    seed: int = 0,
    n_options: int = 4,
    genre_labels: Sequence[str] | None = None,
    decade_labels: Sequence[str] = DECADES,
) -> list[str]:
    """Every check :func:`judge_records` makes before it asks the judge (the options, the fields
    the prompts need, each item's quiz options); returns the genre labels. No judge is needed,
    so ``transcreval validate`` runs it too."""
    from transcreval.functional.judge.quiz_hit_rate import LETTERS

    if judge_call not in ("joint", "separate"):
        raise InputError(f"judge_call must be 'joint' (one call for both scores) or 'separate', got {judge_call!r}")
    if not isinstance(seed, int) or isinstance(seed, bool):
        raise InputError(f"seed must be an integer, got {seed!r}")
    if not isinstance(n_options, int) or isinstance(n_options, bool) or not 2 <= n_options <= len(LETTERS):
        raise InputError(f"n_options must be an integer from 2 to {len(LETTERS)}, got {n_options!r}")
    judge_templates(templates)
    items = [i for i in data.items if data.splits[i.item_id] in ("surface", "deep")]
    lacking = [i.where for i in items if i.genre is None]
    if lacking:
        raise InputError(f"the judge prompts need each item's 'genre'; missing at {', '.join(lacking[:5])}")
    genres = sorted({str(i.genre) for i in items}) if genre_labels is None else list(genre_labels)
    for it in items:
        _quizzes(it, seed, n_options, genres, decade_labels)
    return genres


def _quiz_rows(
    asker: _Asker,
    tpl: Any,
    item: MPTcItem,
    poster: Any,
    owner: Any,
    seed: int,
    n_options: int,
    genre_labels: Sequence[str],
    decade_labels: Sequence[str],
) -> None:
    from transcreval.engines.judge.catalog import QUIZ_QUESTIONS
    from transcreval.engines.judge.templates import format_options
    from transcreval.functional.judge.quiz_hit_rate import LETTERS, read_quiz_answer

    for kind, metric, target, shown in _quizzes(item, seed, n_options, genre_labels, decade_labels):
        q, h = QUIZ_QUESTIONS[kind]
        fields = {
            "question": q,
            "hint": h,
            "options": format_options(shown),
            "letters": ", ".join(LETTERS[: len(shown)]),
        }
        reader = read_quiz_answer(LETTERS[: len(shown)], shown)
        asker.add("quiz", tpl, {"poster": poster}, fields, reader, (*owner, metric, shown, target))


def judge_records(
    data: MPTcSet,
    *,
    judge: Any,
    judge_call: Literal["joint", "separate"] = "joint",
    templates: Mapping[str, Any] | None = None,
    seed: int = 0,
    both_orders: bool = False,
    n_options: int = 4,
    genre_labels: Sequence[str] | None = None,
    decade_labels: Sequence[str] = DECADES,
    batch_size: int = 32,
) -> list[ItemRecord]:
    """Ask the judge about every poster of the Surface and Deep items and return one record per
    item x system x metric (see the module docstring); the GT posters form the system ``"GT"``.

    Posters go to the judge ``batch_size`` at a time (their requests in one batch each for the
    judge's concurrency); each image is decoded once per batch."""
    from transcreval.engines.judge.verdicts import check_judge
    from transcreval.functional.judge.judge_score import read_judge_score
    from transcreval.functional.judge.title_extraction import read_title
    from transcreval.functional.judge.win_rate import pairwise_orders, read_preference

    check_judge(judge, "the MPTc judge tables")
    if not isinstance(batch_size, int) or isinstance(batch_size, bool) or batch_size < 1:
        raise InputError(f"batch_size must be a positive integer, got {batch_size!r}")
    genres = check_judge_settings(
        data,
        judge_call=judge_call,
        templates=templates,
        seed=seed,
        n_options=n_options,
        genre_labels=genre_labels,
        decade_labels=decade_labels,
    )
    tpls = judge_templates(templates)
    items = [i for i in data.items if data.splits[i.item_id] in ("surface", "deep")]
    posters = [_Poster(it, "GT", None, None, it.gt, None) for it in items]
    for split, planner, editor in data.runs():
        outs = data.run_outputs(split, planner, editor) or {}
        for it in data.split_items(split):
            o = outs.get(it.item_id)
            posters.append(_Poster(it, system_name(planner, editor), planner, editor, o.output if o else None, o))
    got: dict[tuple[str, str, str], list[tuple[Any, ...]]] = {}
    for start in range(0, len(posters), batch_size):  # a batch's images are decoded once, then let go
        asker, parts = _Asker(judge), _Parts()
        for p in posters[start : start + batch_size]:
            if p.poster is None:
                continue
            it, owner = p.item, (p.item.item_id, p.system)
            where = p.output.where if p.output is not None else it.where
            mine = parts.get(owner, p.poster, f"{where}: {'gt' if p.system == 'GT' else 'output'}")
            src = parts.get((it.item_id, "SRC"), it.source, f"{it.where}: source")
            fields = {"target_market": it.target_market, "source_market": it.source_market, "genre": it.genre}
            asker.add("title", tpls["title"], {"poster": mine}, {}, read_title, (*owner, "title"))
            _quiz_rows(asker, tpls["quiz"], it, mine, owner, seed, n_options, genres, decade_labels)
            images = {"source": src, "output": mine}
            if judge_call == "joint":
                asker.add("scores", tpls["scores"], images, fields, _both_scores, (*owner, "scores"))
            else:
                for aspect in ("aesthetic", "adaptation"):
                    asker.add(aspect, tpls[aspect], images, fields, read_judge_score(aspect), (*owner, aspect))
            if p.system != "GT":
                gt = parts.get((it.item_id, "GT"), it.gt, f"{it.where}: gt")
                for pred_first in pairwise_orders(1, [it.item_id], seed, both_orders)[0]:
                    ab = {"a": mine, "b": gt} if pred_first else {"a": gt, "b": mine}
                    asker.add("pairwise", tpls["pairwise"], ab, fields, read_preference, (*owner, "win", pred_first))
        for pairs in asker.run().values():
            for owner, v in pairs:
                got.setdefault(owner[:3], []).append((*owner[3:], v))
    out: list[ItemRecord] = []
    for p in posters:
        out += _records(data, p, got)
    return out


@dataclass(frozen=True)
class _Poster:
    """One poster asked about: the GT poster of an item, or a system's output (None: missing)."""

    item: MPTcItem
    system: str
    planner: str | None
    editor: str | None
    poster: Any
    output: MPTcOutput | None


def _records(data: MPTcSet, p: _Poster, got: Mapping[tuple[str, str, str], list[tuple[Any, ...]]]) -> list[ItemRecord]:
    """The records of one poster from the verdicts about it."""
    from transcreval.functional.judge.quiz_hit_rate import LETTERS
    from transcreval.functional.text.chrf import sentence_chrf

    it, out = p.item, []
    meta = {**it.meta, "split": data.splits[it.item_id], "planner": p.planner, "editor": p.editor}

    def rec(metric: str, value: float, status: str = "ok", **extra: Any) -> None:
        v = value if status == "ok" else math.nan
        out.append(ItemRecord(it.item_id, p.system, metric, v, status, it.item_id, {**meta, **extra}))

    def one(tag: str, system: str | None = None) -> list[tuple[Any, ...]]:
        return got.get((it.item_id, system or p.system, tag), [])

    metrics = JUDGE_METRICS if p.system != "GT" else ("genre_hit", "year_hit", "aesthetic", "adaptation")
    if p.poster is None:
        for m in metrics:
            rec(m, math.nan, "missing_output")
        return out
    for metric, absent in (("genre_hit", "no_genre"), ("year_hit", "no_year")):
        if not one(metric):
            rec(metric, math.nan, absent)
            continue
        shown, target, v = one(metric)[0]
        if v.ok:
            picked = shown[LETTERS.index(v.value)]
            rec(metric, float(picked == target), answer=picked, correct=target)
        else:
            rec(metric, math.nan, v.status)
    if one("scores"):
        (v,) = one("scores")[0]
        reads = v.value if v.ok else (None, None)
        for aspect, r in zip(("aesthetic", "adaptation"), reads):
            if r is None:
                rec(aspect, math.nan, v.status)
            else:
                rec(aspect, float(r.value) if r.ok else math.nan, "ok" if r.ok else "unparsable")
    else:
        for aspect in ("aesthetic", "adaptation"):
            (v,) = one(aspect)[0]
            rec(aspect, float(v.value) if v.ok else math.nan, v.status)
    if p.system == "GT":
        return out
    gt = one("title", "GT")[0][-1]
    mine = one("title")[0][-1]
    o = p.output
    proposed = (o.plan_title or (plan_title(o.plan) if o.plan else None)) if o is not None else None
    no_plan = "no_plan" if o is None or not (o.plan or o.plan_title) else "no_title_in_plan"
    for metric, hyp, status in (
        ("title_chrf", mine.value if mine.ok else None, mine.status),
        ("plan_chrf", proposed, "ok" if proposed else no_plan),
    ):
        if status != "ok":
            rec(metric, math.nan, status)
        elif not gt.ok:
            rec(metric, math.nan, f"gt_title_{gt.status}")
        else:
            rec(metric, float(sentence_chrf([str(hyp)], [gt.value])[0]), title=hyp, gt_title=gt.value)
    answers = one("win")
    failed = next((v for _, v in answers if not v.ok), None)
    if failed is not None:
        rec("win", math.nan, failed.status)
    else:
        picks = [(first and v.value == "A") or (not first and v.value == "B") for first, v in answers]
        rec("win", 1.0 if all(picks) else 0.0 if not any(picks) else 0.5, orders=len(picks))
    return out
