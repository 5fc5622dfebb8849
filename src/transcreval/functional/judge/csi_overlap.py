"""CSI-Overlap: the share of culture-specific items replaced validly (Khanuja et al. 2025, §5.1).

Three judge steps per item (source image ``target``, transcreated image ``preds``):

1. **Objects.** The judge lists the objects in the source image and in the output
   (JSON ``{"objects": [...]}``; the paper's comma-separated list is read too).
2. **CSIs and replacements.** Given the source's objects, the target ``country`` and the
   semantic ``category``, the judge names the culture-specific items (CSIs) that would be
   unfamiliar in that country and, for each, a list of valid replacements
   (JSON ``{"replacements": {"<CSI>": ["<replacement>", ...]}}``; the paper's flat
   ``{"<CSI>": [...], "reasoning": ...}`` object is read too).
3. **Matching.** A CSI counts as replaced when one of its replacements is among the output's
   objects. ``matching="judge"`` (the paper) asks the judge which items of the two lists name
   the same object, allowing small differences of spelling or wording, as
   ``{"matches": [["<replacement>", "<output object>"], ...]}``; every named item must be in its
   list (case, spaces and edge punctuation aside), else the answer is unparsable.
   ``matching="exact"`` compares the normalised names and makes no third call.

Per item the score is (CSIs replaced) / (CSIs); the value is the mean over items, in [0, 1],
higher is better. Items whose source has no CSI have no score: they are counted in
``extras["n_no_csi"]``, not as failures. A failure in any step fails the item.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from transcreval.core.common import check_choice
from transcreval.core.options import option
from transcreval.core.result import MetricResult
from transcreval.engines.judge.catalog import KHANUJA_CSI_MATCH, KHANUJA_CSI_OBJECTS, KHANUJA_CSI_REPLACEMENTS
from transcreval.engines.judge.items import render_each
from transcreval.engines.judge.parse import Read, extract_json, looks_like_refusal, read_str_list
from transcreval.engines.judge.pipeline import JudgeOptions, JudgeSpec, read_pairs
from transcreval.engines.judge.roles import text_field
from transcreval.engines.judge.tally import check_valid_count, judge_mean
from transcreval.engines.judge.templates import PromptTemplate, resolve_template
from transcreval.engines.judge.types import Judge
from transcreval.engines.judge.verdicts import Verdict, ask
from transcreval.errors import EmptyInputError, InputError

Matching = Literal["judge", "exact"]
STEPS = {"objects": KHANUJA_CSI_OBJECTS, "replacements": KHANUJA_CSI_REPLACEMENTS, "match": KHANUJA_CSI_MATCH}
_REASONING_KEYS = {"reasoning", "reason", "explanation", "notes"}
_ARGUMENTS = {"country": "country", "category": "category"}
#: what the metric asks (three prompts: see STEPS)
SPEC = JudgeSpec("CSIOverlap", KHANUJA_CSI_OBJECTS, side={"no_csi": 0, "csis": 0, "replaced": 0})

__all__ = [
    "STEPS",
    "CSIOverlapOptions",
    "csi_overlap",
    "csi_overlap_from_stats",
    "csi_overlap_stats",
    "csi_score",
    "normalise_name",
    "read_matches",
    "read_objects",
    "read_replacements",
]


@dataclass(frozen=True, kw_only=True)
class CSIOverlapOptions(JudgeOptions):
    """CSIOverlap's options: the judge's (:class:`JudgeOptions`, but one prompt per step:
    ``templates={"objects" | "replacements" | "match": template}`` in place of ``template``) and
    ``matching`` ("judge": the paper's third step; "exact": normalised names compared)."""

    matching: Matching = option("judge", signature="match")
    templates: Mapping[str, PromptTemplate | str] | None = option(None, signature=None)

    def check_own(self) -> None:
        if self.template is not None:
            raise InputError(
                "CSIOverlap has three prompts: pass templates={'objects': ..., 'replacements': ..., 'match': ...}"
            )
        check_choice("matching", self.matching, ("judge", "exact"))
        unknown = set(self.templates or {}) - set(STEPS)
        if unknown:
            raise InputError(f"templates may replace the steps {sorted(STEPS)}, not {sorted(unknown)}")
        self.set_checked("templates", dict(self.templates or {}))
        self.prompts()  # a bad template fails now

    def prompts(self) -> dict[str, PromptTemplate]:
        """The prompt of each step."""
        given = self.templates or {}
        return {k: resolve_template(given.get(k), v, what="CSIOverlap") for k, v in STEPS.items()}

    def template_ref(self) -> str:
        steps = ("objects", "replacements", "match") if self.matching == "judge" else ("objects", "replacements")
        tpl = self.prompts()
        return "+".join(tpl[s].ref for s in steps)


def normalise_name(name: str) -> str:
    """Case, inner whitespace and edge punctuation do not matter when names are compared."""
    return " ".join(re.sub(r"^[\W_]+|[\W_]+$", "", name.casefold()).split())


# words that mark a sentence, not an object name: "There is a cat", "I can't assist", "a dog and a tree"
_PROSE_WORDS = frozenset(
    re.findall(
        r"\S+",
        "i i'm i’m me my we you it it's it’s its is are was were am be been being there here this these "
        "that those can cannot can't can’t could would should will won't not no sorry unable see seen "
        "appears appear seems contains contain shows show showing includes include depicts depict "
        "visible identify image picture photo and or but",
    )
)


def read_objects(text: str) -> Read[list[str]]:
    """``{"objects": [...]}``, or a plain comma-separated list of names (the paper's format).

    The list is read only when every item looks like a name: a refusal, a sentence ("There is a
    cat, a dog and a tree."), sentence punctuation inside an item, or an item of more than six
    words makes the answer unparsable (never a list of objects).
    """
    obj = extract_json(text)
    if obj.ok:
        return read_str_list(obj.value, ("objects", "entities"))  # type: ignore[arg-type]
    body = text.strip()
    if not body or any(c in body for c in "{}[]") or "\n\n" in body:
        return Read(None, obj.error)
    if looks_like_refusal(body):
        return Read(None, "a refusal, not a list of objects")
    raw = [re.sub(r"^\s*(?:[-*•]|\d+[.)])\s*", "", x).strip() for x in re.split(r"[,\n]", body)]
    if raw:
        raw[-1] = raw[-1].removesuffix(".")  # one period may end the list
    items = [x for x in raw if x]
    why = "neither a JSON object list nor a comma-separated list of names"
    if not items:
        return Read(None, why)
    for x in items:
        words = re.findall(r"[\w'’-]+", x.casefold())
        if len(words) > 6 or re.search(r"[.!?;:]", x) or _PROSE_WORDS.intersection(words):
            return Read(None, f"{why}: {x[:60]!r} reads as prose")
    return Read(list(dict.fromkeys(items)))


def read_replacements(text: str) -> Read[dict[str, list[str]]]:
    """``{"replacements": {CSI: [...]}}``, or a flat ``{CSI: [...], "reasoning": ...}`` object."""
    obj = extract_json(text)
    if not obj.ok:
        return Read(None, obj.error)
    data: Mapping[str, Any] = obj.value  # type: ignore[assignment]
    inner = next((data[k] for k in data if str(k).lower() in ("replacements", "csis", "csi")), None)
    if inner is None:
        inner = {k: v for k, v in data.items() if str(k).lower() not in _REASONING_KEYS}
    if not isinstance(inner, Mapping):
        return Read(None, "replacements is not an object of CSI -> list of replacements")
    out: dict[str, list[str]] = {}
    for csi, reps in inner.items():
        if not isinstance(reps, list) or not all(isinstance(r, str) for r in reps):
            return Read(None, f"the replacements of {csi!r} are not a list of strings")
        cleaned = list(dict.fromkeys(r.strip() for r in reps if r.strip()))
        if str(csi).strip():
            out[str(csi).strip()] = cleaned
    return Read(out)


def read_matches(list1: Sequence[str], list2: Sequence[str]) -> Any:
    """A reader of the matching answer: the list-1 items matched to some list-2 item."""
    n1 = {normalise_name(x): x for x in list1}
    n2 = {normalise_name(x) for x in list2}

    def reader(text: str) -> Read[set[str]]:
        obj = extract_json(text)
        if not obj.ok or obj.value is None:
            return Read(None, obj.error)
        data = obj.value
        pairs = next((data[k] for k in data if str(k).lower() in ("matches", "pairs")), None)
        if not isinstance(pairs, list):
            return Read(None, "no list of matches")
        found: set[str] = set()
        for p in pairs:
            if isinstance(p, Mapping):
                p = list(p.values())
            if isinstance(p, str):  # a flat list: each name must be an item of list 1
                p = [p, None]
            if not isinstance(p, list) or len(p) != 2 or not isinstance(p[0], str):
                return Read(None, f"match {p!r} is not a [list-1 item, list-2 item] pair")
            a = normalise_name(p[0])
            if a not in n1:
                return Read(None, f"{p[0]!r} is not an item of list 1")
            if p[1] is not None and (not isinstance(p[1], str) or normalise_name(p[1]) not in n2):
                return Read(None, f"{p[1]!r} is not an item of list 2")
            found.add(a)
        return Read(found)

    return reader


def csi_score(replacements: Mapping[str, Sequence[str]], matched: set[str]) -> tuple[int, int]:
    """(CSIs, CSIs with a matched replacement); ``matched`` holds normalised names."""
    done = sum(any(normalise_name(r) in matched for r in reps) for reps in replacements.values())
    return len(replacements), done


def csi_overlap_stats(
    preds: Any,
    target: Any,
    *,
    country: str | Sequence[str] | None = None,
    category: str | Sequence[str] | None = None,
    options: CSIOverlapOptions | None = None,
    **kwargs: Any,
) -> dict[str, Any]:
    """One batch: the three steps for every (output, source) pair; options as :class:`CSIOverlapOptions`."""
    o = CSIOverlapOptions.of(options, kwargs, "csi_overlap_stats")
    tpl, judge, matching = o.prompts(), o.judge, o.matching
    outs, srcs = read_pairs(SPEC, preds, target, o.input_range)
    n = len(outs)
    countries = text_field(country, n, "country", required=True)
    categories = text_field(category, n, "category", required=True)

    # step 1: objects in every source and every output (one batch; repeated sources cost one call)
    obj_reqs = render_each(tpl["objects"], [({"image": im}, {}) for im in [*srcs, *outs]], what="CSIOverlap")
    objs = ask(judge, obj_reqs, read_objects)
    src_objs, out_objs = objs[:n], objs[n:]
    failed: dict[int, Verdict] = {}
    for i in range(n):
        bad = next((v for v in (src_objs[i], out_objs[i]) if not v.ok), None)
        if bad is not None:
            failed[i] = bad

    # step 2: culture-specific items of each source and their replacements
    todo2 = [i for i in range(n) if i not in failed and src_objs[i].value]
    rows2: list[tuple[dict[str, Any], dict[str, Any]]] = [
        ({}, {"objects": ", ".join(src_objs[i].value), "country": countries[i], "category": categories[i]})
        for i in todo2
    ]
    reps: dict[int, dict[str, list[str]]] = {i: {} for i in range(n) if i not in failed}
    for i, v in zip(
        todo2, ask(judge, render_each(tpl["replacements"], rows2, _ARGUMENTS, "CSIOverlap"), read_replacements)
    ):
        if v.ok:
            reps[i] = v.value
        else:
            failed[i] = v

    # step 3: which replacements appear in the output
    matched: dict[int, set[str]] = {}
    todo3 = []
    for i, r in reps.items():
        if i in failed:
            continue
        out_names = {normalise_name(x) for x in out_objs[i].value}
        if matching == "exact" or not r or not out_objs[i].value or not any(r.values()):
            matched[i] = {normalise_name(x) for rr in r.values() for x in rr} & out_names
        else:
            todo3.append(i)
    lists1 = {i: list(dict.fromkeys(x for rr in reps[i].values() for x in rr)) for i in todo3}
    rows3: list[tuple[dict[str, Any], dict[str, Any]]] = [
        ({}, {"list1": "; ".join(lists1[i]), "list2": "; ".join(out_objs[i].value)}) for i in todo3
    ]
    readers = [read_matches(lists1[i], out_objs[i].value) for i in todo3]
    for i, v in zip(todo3, ask(judge, render_each(tpl["match"], rows3, what="CSIOverlap"), readers)):
        if v.ok:
            matched[i] = v.value
        else:
            failed[i] = v

    tally = SPEC.tally()
    for i in range(n):
        total, done = (0, 0) if i in failed else csi_score(reps[i], matched.get(i, set()))
        if i in failed:
            tally.fail(failed[i].status, failed[i].detail)
        elif total == 0:
            tally.side["no_csi"] += 1
            tally.undefined()
        else:
            tally.add(done / total, csis=total, replaced=done)
    return tally.finish("CSIOverlap", o.on_failure)


def csi_overlap_from_stats(stats: dict[str, Any], options: CSIOverlapOptions) -> MetricResult:
    """Mean per-item CSI overlap; extras: items without CSIs, and the micro-averaged rate."""
    signature = options.result_signature()
    if int(stats["count"]) == 0 and int(stats["no_csi"]) > 0 and not sum(int(x) for x in stats["failures"]):
        raise EmptyInputError(
            f"{signature.name}: the judge found no culture-specific item in any of the {int(stats['no_csi'])} "
            "source images, so there is nothing to score"
        )
    check_valid_count(stats, signature.name)
    csis = int(stats["csis"])
    return judge_mean(
        stats,
        signature,
        n_no_csi=int(stats["no_csi"]),
        csis=csis,
        replaced=int(stats["replaced"]),
        micro=int(stats["replaced"]) / csis,
    )


def csi_overlap(
    preds: Any,
    target: Any,
    *,
    judge: Judge,
    country: str | Sequence[str] | None = None,
    category: str | Sequence[str] | None = None,
    **options: Any,
) -> MetricResult:
    """CSI-Overlap (Khanuja §5.1) of ``preds`` (transcreated images) against ``target``
    (sources); options as :class:`CSIOverlapOptions`. Returns what ``CSIOverlap.compute()`` returns."""
    opts = CSIOverlapOptions.take({"judge": judge, **options}, "csi_overlap")
    return csi_overlap_from_stats(
        csi_overlap_stats(preds, target, country=country, category=category, options=opts), opts
    )
