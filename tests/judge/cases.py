"""One case per registered judge metric, shared by the family-wide tests.

``CASES[name] = (factory(judge) -> metric, args(n) -> update arguments for n items, the value
of every item)``; :func:`answer` is a scripted judge that gives every item that value. A test
checks that CASES covers every judge metric in the registry, so a new judge metric must add a
case here and then inherits every family-wide test.
"""

from __future__ import annotations

import json
import re
from typing import Any

import numpy as np

from transcreval import (
    AlignmentScore,
    CSIOverlap,
    HarmonizationScore,
    JudgedFontRichness,
    JudgedPointScore,
    JudgedStyleScore,
    JudgeScore,
    MarketPreferenceRate,
    QuizHitRate,
    TitleExtraction,
    VLMTranscreationScore,
    WinRate,
)

SOURCE = np.zeros((24, 16, 3), np.uint8)
OUTPUT = np.full((24, 16, 3), 255, np.uint8)


def answer(request: Any) -> str:
    t = request.template_id
    if t == "mptc.title":
        return '{"title": "Parasite"}'
    if t == "mptc.quiz":
        return json.dumps({"answer": re.search(r"^([A-Z])\. drama$", request.text, re.M).group(1)})
    if t in ("mptc.aesthetic", "mptc.adaptation"):
        return '{"comment": "x", "score": 4}'
    if t in ("mptc.pairwise", "mptc.market"):
        return '{"reason": "x", "preferred": "A"}'
    if t == "khanuja.cultural":
        return '{"first_score": 2, "second_score": 4}'
    if t.startswith("khanuja.csi-objects"):
        black = request.images[0].image.getpixel((0, 0))[0] == 0
        return json.dumps({"objects": ["bread", "fork"] if black else ["rice", "fork"]})
    if t == "khanuja.csi-replacements":
        return '{"replacements": {"bread": ["rice"], "fork": ["chopsticks"]}}'
    if t == "khanuja.csi-match":
        return '{"matches": [["rice", "rice"]]}'
    if t.startswith("imtbench"):
        return '{"naturalness": 7, "artifacts": 9, "alignment": 6}'
    if t.startswith("posteriq.point"):
        return '{"covered": true}'
    if t == "posteriq.style":
        return '{"style": "Memphis Style"}'
    if t == "posteriq.font":
        return '{"attributes": ["bold"]}'
    raise KeyError(t)


CTX = {"target_market": "Japan", "source_market": "USA", "genre": "drama"}
# (metric factory, update arguments for n items, the value of every item)
CASES = {
    "TitleExtraction": (lambda j: TitleExtraction(judge=j), lambda n: ([OUTPUT] * n, ["Parasite"] * n), 100.0),
    "QuizHitRate": (
        lambda j: QuizHitRate(judge=j, labels=["drama", "comedy", "horror", "action"]),
        lambda n: ([OUTPUT] * n, ["drama"] * n),
        100.0,
    ),
    "JudgeScore": (lambda j: JudgeScore(judge=j), lambda n: ([OUTPUT] * n, [SOURCE] * n, CTX), 4.0),
    "WinRate": (lambda j: WinRate(judge=j, both_orders=True), lambda n: ([OUTPUT] * n, [SOURCE] * n, CTX), 50.0),
    "MarketPreferenceRate": (
        lambda j: MarketPreferenceRate(judge=j, both_orders=True),
        lambda n: ([OUTPUT] * n, [SOURCE] * n, {"target_market": "Japan"}),
        50.0,
    ),
    "VLMTranscreationScore": (
        lambda j: VLMTranscreationScore(judge=j),
        lambda n: ([OUTPUT] * n, [SOURCE] * n, {"country": "Japan"}),
        4.0,
    ),
    "CSIOverlap": (
        lambda j: CSIOverlap(judge=j),
        lambda n: ([OUTPUT] * n, [SOURCE] * n, {"country": "Japan", "category": "food"}),
        0.5,
    ),
    "HarmonizationScore": (lambda j: HarmonizationScore(judge=j), lambda n: ([OUTPUT] * n, [SOURCE] * n), 0.7),
    "AlignmentScore": (lambda j: AlignmentScore(judge=j), lambda n: ([OUTPUT] * n, ["Sale"] * n), 0.6),
    "JudgedPointScore": (lambda j: JudgedPointScore(judge=j), lambda n: ([OUTPUT] * n, [["a title"]] * n), 1.0),
    "JudgedStyleScore": (lambda j: JudgedStyleScore(judge=j), lambda n: ([OUTPUT] * n, ["Memphis Style"] * n), 1.0),
    "JudgedFontRichness": (
        lambda j: JudgedFontRichness(judge=j, vocabulary=["bold", "serif"]),
        lambda n: ([OUTPUT] * n,),
        0.5,
    ),
}


def call(metric: Any, args: Any) -> Any:
    *pos, kw = args if isinstance(args[-1], dict) else (*args, {})
    return metric(*pos, **kw)
