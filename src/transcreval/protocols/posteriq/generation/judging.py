"""Asking a judge about generated posters, with the project's own prompts, for PosterIQ generation.

The judge metrics' engines do the asking (:func:`~transcreval.functional.judge.posteriq.judge_point_verdicts`
per key point for dense, composition and intention; :func:`~transcreval.functional.judge.posteriq.judge_styles`
over the 17 styles; :func:`~transcreval.functional.judge.posteriq.judge_font_attributes` over the 37
attributes), with their built-in templates or a template file (the published prompt, for
instance: docs/judges.md). Each poster's verdicts are written back in the form of PosterIQ's
score files, so that one scoring reads both: "Yes"/"No" per key point, the style label, the
attribute list as a JSON list; a poster with any failed call gets ``"error"`` (as the official
scorer writes after its retries) and the failure's status.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from transcreval.data.posteriq import font_attributes
from transcreval.errors import InputError
from transcreval.functional.judge.posteriq import judge_font_attributes, judge_point_verdicts, judge_styles
from transcreval.protocols.posteriq.generation.inputs import GEN_TASKS, POINT_TASKS

__all__ = ["ask_task", "per_task"]


def per_task(value: Any, what: str) -> dict[str, Any]:
    """``value`` for every task: one value for all, or a mapping task -> value (tasks not named
    get None); an unknown task name is an InputError."""
    if isinstance(value, Mapping):
        unknown = sorted(set(value) - set(GEN_TASKS))
        if unknown:
            raise InputError(f"{what}: unknown task(s) {unknown}; tasks: {', '.join(GEN_TASKS)}")
        return {t: value.get(t) for t in GEN_TASKS}
    return dict.fromkeys(GEN_TASKS, value)


def ask_task(
    task: str, images: Sequence[str], targets: Sequence[Any], *, judge: Any, template: Any = None
) -> list[tuple[Any, str]]:
    """Per poster of one task: (the replies in the score file's form, "ok" or the failure status)."""
    if not images:
        return []
    if judge is None:
        raise InputError(f"the {task} posters need a judge: pass judge= (one judge, or {{task: judge}})")
    out: list[tuple[Any, str]] = []
    if task in POINT_TASKS:
        for vs in judge_point_verdicts(list(images), [list(t) for t in targets], judge=judge, template=template):
            bad = next((v for v in vs if not v.ok), None)
            out.append(("error", bad.status) if bad else (["Yes" if v.value else "No" for v in vs], "ok"))
        return out
    if task == "style":
        verdicts = judge_styles(list(images), judge=judge, template=template)
        return [(v.value, "ok") if v.ok else ("error", v.status) for v in verdicts]
    verdicts = judge_font_attributes(list(images), judge=judge, vocabulary=font_attributes(), template=template)
    return [(json.dumps(v.value[0]), "ok") if v.ok else ("error", v.status) for v in verdicts]
