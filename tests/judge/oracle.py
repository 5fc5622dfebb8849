"""A scripted judge for the metric tests: answers decided in advance, item by item.

Each test builds a table ``(template id, first image hash) -> answer text`` from items whose
intended values it knows, so the reference value of a metric is computed from those intended
values directly (never from our parsing). Answers come in the wrappings real judges use
(plain JSON, code fences, prose around the object, Python literals) or are scripted to fail
(prose with no JSON, out-of-range scores, refusals). The table is recorded into a cache
through a FunctionJudge; the harness then replays it with a ReplayJudge.

How the judge-metric test files (tests/judge/test_<module>.py) use it: the harness
(tests/_helpers/tester.py) runs class == function == reference at 1, 2 and 4 processes, with a
ReplayJudge answering from the recorded cache. References are computed from the values the
oracle was told to give, never through our parsing; items scripted to fail are left out of the
reference and counted in the extras. Family-wide checks: tests/judge/test_family.py,
test_metric_edges.py, test_metric_failures.py.
"""

from __future__ import annotations

import contextlib
import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from transcreval.engines.judge.images import to_image_part
from transcreval.judge import FunctionJudge, JudgeRequest, ReplayJudge

WRAPS = ("json", "fence", "prose", "python")


def img(seed: int, size: tuple[int, int] = (10, 7)) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return rng.integers(0, 256, size=(size[1], size[0], 3), dtype=np.uint8)


def sha(image: Any) -> str:
    return to_image_part(image).sha256


def wrap(obj: dict[str, Any], how: str) -> str:
    """An answer object in one of the wrappings judges use."""
    body = json.dumps(obj, ensure_ascii=False)
    if how == "json":
        return body
    if how == "fence":
        return f"Here is my assessment.\n```json\n{body}\n```"
    if how == "prose":
        return f"After looking carefully:\n{body}\nI hope this helps."
    if how == "python":
        return repr(obj)
    raise ValueError(how)


UNPARSABLE = "The poster is quite nice overall, maybe a four or so."
REFUSAL = "I'm sorry, but I can't evaluate this image."


class Oracle:
    """Answers looked up by (template id, hash of the first image, optional text key)."""

    def __init__(self) -> None:
        self.table: dict[tuple[str, str], str | Callable[[JudgeRequest], str]] = {}
        self.rules: dict[str, Callable[[JudgeRequest], str]] = {}

    def rule(self, template_id: str, fn: Callable[[JudgeRequest], str]) -> None:
        """Answer every request of a template (with no table entry) with ``fn(request)``."""
        self.rules[template_id] = fn

    def add(self, template_id: str, first_image: Any, answer: str | Callable[[JudgeRequest], str]) -> None:
        key = (template_id, first_image if isinstance(first_image, str) else sha(first_image))
        self.table[key] = answer

    def __call__(self, request: JudgeRequest) -> str:
        first = request.images[0].sha256 if request.images else ""
        answer = self.table.get((request.template_id, first)) or self.rules.get(request.template_id)
        if answer is None:
            raise KeyError(f"the oracle has no answer for {request.template_id} / {first[:12]}")
        return answer(request) if callable(answer) else answer

    def judge(self, cache: Path | None = None) -> FunctionJudge:
        return FunctionJudge(self, model="oracle", cache=cache, params={"temperature": 0})

    def record(self, cache: Path, batches: list[tuple[Any, ...]], fn: Callable[..., Any]) -> ReplayJudge:
        """Run ``fn(*batch, judge=recording judge)`` on every batch, then replay the cache."""
        live = self.judge(cache)
        for b in batches:
            with contextlib.suppress(Exception):  # a batch may hold only failures; its answers are cached anyway
                fn(*b, judge=live)
        live.close()
        return ReplayJudge(cache)


def letter_of(option: str, request_text: str) -> str:
    """The letter a multiple-choice prompt shows for ``option`` ("B. drama" -> "B")."""
    m = re.search(rf"^([A-Z])\. {re.escape(option)}$", request_text, re.M)
    if m is None:
        raise KeyError(f"option {option!r} not in the prompt")
    return m.group(1)


# ---------------------------------------------------------------------- the harness's batches
N = 10


SLICES = [(0, 4), (4, 8), (8, 10)]


def batches_of(*columns):
    return [tuple(col[a:b] for col in columns) for a, b in SLICES]


def index(images):
    return {sha(im): i for i, im in enumerate(images)}


def extras_total(metric, batches):
    m = metric()
    for b in batches:
        m.update(*b)
    return m.compute()
