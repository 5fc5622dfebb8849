"""The built-in prompt templates: the papers' rubrics (scales, criteria, answer keys) in our words.

The papers' own prompt texts stay in the papers. Each template here carries the rubric of one
judge task; a user who needs the published wording loads it from a file (``template=PATH``),
and the metric's parser accepts the answer keys of both. Bump a template's version whenever
its wording changes (the version is part of every cache key).

Answer slots are written ``<integer 1-5>``, ``<true or false>``, ``<one of: A, B>``, ``<text>``,
``<list ...>``: readable by a model and by the fake server's synthetic answers.
"""

from __future__ import annotations

from transcreval.judge.prompts.imtbench import (
    IMTBENCH_ALIGNMENT,
    IMTBENCH_HARMONIZATION,
    IMTBENCH_HARMONIZATION_REF,
    IMTBENCH_JOINT,
    IMTBENCH_JOINT_REF,
)
from transcreval.judge.prompts.khanuja import (
    KHANUJA_CREATIVITY,
    KHANUJA_CSI_MATCH,
    KHANUJA_CSI_OBJECTS,
    KHANUJA_CSI_REPLACEMENTS,
    KHANUJA_CULTURAL,
    KHANUJA_INTENT,
)
from transcreval.judge.prompts.mptc import (
    MPTC_ADAPTATION,
    MPTC_AESTHETIC,
    MPTC_AESTHETIC_ADAPTATION,
    MPTC_MARKET,
    MPTC_PAIRWISE,
    MPTC_QUIZ,
    MPTC_TITLE,
    QUIZ_QUESTIONS,
)
from transcreval.judge.prompts.posteriq import POSTERIQ_FONT, POSTERIQ_POINT_IMAGE, POSTERIQ_POINT_TEXT, POSTERIQ_STYLE
from transcreval.judge.templates import PromptTemplate

__all__ = [
    "IMTBENCH_ALIGNMENT",
    "IMTBENCH_HARMONIZATION",
    "IMTBENCH_HARMONIZATION_REF",
    "IMTBENCH_JOINT",
    "IMTBENCH_JOINT_REF",
    "KHANUJA_CREATIVITY",
    "KHANUJA_CSI_MATCH",
    "KHANUJA_CSI_OBJECTS",
    "KHANUJA_CSI_REPLACEMENTS",
    "KHANUJA_CULTURAL",
    "KHANUJA_INTENT",
    "MPTC_ADAPTATION",
    "MPTC_AESTHETIC",
    "MPTC_AESTHETIC_ADAPTATION",
    "MPTC_MARKET",
    "MPTC_PAIRWISE",
    "MPTC_QUIZ",
    "MPTC_TITLE",
    "POSTERIQ_FONT",
    "POSTERIQ_POINT_IMAGE",
    "POSTERIQ_POINT_TEXT",
    "POSTERIQ_STYLE",
    "QUIZ_QUESTIONS",
    "TEMPLATES",
]


TEMPLATES: dict[str, PromptTemplate] = {
    t.id: t
    for t in (
        MPTC_TITLE,
        MPTC_QUIZ,
        MPTC_AESTHETIC,
        MPTC_ADAPTATION,
        MPTC_AESTHETIC_ADAPTATION,
        MPTC_PAIRWISE,
        MPTC_MARKET,
        KHANUJA_INTENT,
        KHANUJA_CREATIVITY,
        KHANUJA_CULTURAL,
        KHANUJA_CSI_OBJECTS,
        KHANUJA_CSI_REPLACEMENTS,
        KHANUJA_CSI_MATCH,
        IMTBENCH_HARMONIZATION,
        IMTBENCH_ALIGNMENT,
        IMTBENCH_JOINT,
        IMTBENCH_HARMONIZATION_REF,
        IMTBENCH_JOINT_REF,
        POSTERIQ_POINT_IMAGE,
        POSTERIQ_POINT_TEXT,
        POSTERIQ_STYLE,
        POSTERIQ_FONT,
    )
}
