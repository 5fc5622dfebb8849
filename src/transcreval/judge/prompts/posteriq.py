"""PosterIQ's judge prompts (Supp. B rubrics, our wording): key points, style, font attributes."""

from __future__ import annotations

from transcreval.judge.prompts.common import JSON_ONLY
from transcreval.judge.templates import PromptTemplate

__all__ = ["POSTERIQ_FONT", "POSTERIQ_POINT_IMAGE", "POSTERIQ_POINT_TEXT", "POSTERIQ_STYLE"]

POSTERIQ_POINT_IMAGE = PromptTemplate(
    id="posteriq.point-image",
    version="1",
    images=("poster",),
    output={"reasoning": "string", "covered": "boolean"},
    user=(
        "{image:poster}\n"
        'This poster was generated from a brief. Check one required element of the brief: "{point}".\n'
        "Is this element clearly and correctly realised in the poster? Answer true only when it is.\n"
        f"{JSON_ONLY}\n"
        '{{"reasoning": "<one sentence>", "covered": <true or false>}}'
    ),
)

POSTERIQ_POINT_TEXT = PromptTemplate(
    id="posteriq.point-text",
    version="1",
    output={"reasoning": "string", "covered": "boolean"},
    user=(
        'A model described a poster as follows:\n"""\n{description}\n"""\n'
        'Check one annotated key point: "{point}".\n'
        "Does the description identify this key point correctly and state it explicitly? Answer true only when "
        "it does.\n"
        f"{JSON_ONLY}\n"
        '{{"reasoning": "<one sentence>", "covered": <true or false>}}'
    ),
)

POSTERIQ_STYLE = PromptTemplate(
    id="posteriq.style",
    version="1",
    images=("poster",),
    output={"style": "one label from the list"},
    user=(
        "{image:poster}\n"
        "Classify the visual style of this poster. Weigh its colours, effects, typography and imagery as a whole, "
        "and choose exactly one style from this list, copied as written: {styles}.\n"
        f"{JSON_ONLY}\n"
        '{{"style": "<one of: {styles}>"}}'
    ),
)

POSTERIQ_FONT = PromptTemplate(
    id="posteriq.font",
    version="2",
    images=("poster",),
    output={"attributes": "list of attributes from the vocabulary"},
    user=(
        "{image:poster}\n"
        "Describe the typography of this poster using only words from this list of font attributes: "
        "{vocabulary}.\n"
        "List every attribute that fits the fonts used in the poster, copied as written in the list.\n"
        f"{JSON_ONLY}\n"
        '{{"attributes": ["<attribute>", "<attribute>"]}}'
    ),
)
