"""Khanuja et al.'s VLM prompts (App. A rubrics, our wording): 1-5 scores and the CSI-Overlap steps."""

from __future__ import annotations

from transcreval.judge.prompts.common import JSON_ONLY
from transcreval.judge.templates import PromptTemplate

__all__ = [
    "KHANUJA_CREATIVITY",
    "KHANUJA_CSI_MATCH",
    "KHANUJA_CSI_OBJECTS",
    "KHANUJA_CSI_REPLACEMENTS",
    "KHANUJA_CULTURAL",
    "KHANUJA_INTENT",
]

_REASONED_SCORE = '{{"reasoning": "<a few sentences>", "score": <integer 1-5>}}'

KHANUJA_INTENT = PromptTemplate(
    id="khanuja.intent",
    version="2",
    images=("source", "output"),
    output={"reasoning": "string", "score": "integer 1-5"},
    user=(
        "First image:\n{image:source}\nSecond image:\n{image:output}\n"
        "The first image belongs to the category {category}. Decide whether the second image falls within that "
        "category too. Think it through step by step, then score: 1 = a different category, 5 = the same "
        "category.\n"
        f"{JSON_ONLY}\n{_REASONED_SCORE}"
    ),
)

KHANUJA_CREATIVITY = PromptTemplate(
    id="khanuja.creativity",
    version="1",
    images=("source", "output"),
    output={"reasoning": "string", "score": "integer 1-5"},
    user=(
        "First image:\n{image:source}\nSecond image:\n{image:output}\n"
        "The first image belongs to the category {category}. Assess how much the second image has changed "
        "visually compared with the first. Think it through step by step, then score: 1 = no visual change, "
        "5 = extensive visual change.\n"
        f"{JSON_ONLY}\n{_REASONED_SCORE}"
    ),
)

KHANUJA_CULTURAL = PromptTemplate(
    id="khanuja.cultural",
    version="1",
    images=("source", "output"),
    output={
        "first_reasoning": "string",
        "first_score": "integer 1-5",
        "second_reasoning": "string",
        "second_score": "integer 1-5",
    },
    user=(
        "First image:\n{image:source}\nSecond image:\n{image:output}\n"
        "For each of the two images separately, judge how strongly it reflects the culture of {country}: look for "
        "symbols, styles, traditions or other features tied to the people of {country}. Think it through step by "
        "step for each image, then score each one: 1 = not culturally relevant, 5 = clearly culturally relevant.\n"
        f"{JSON_ONLY}\n"
        '{{"first_reasoning": "<text>", "first_score": <integer 1-5>, "second_reasoning": "<text>", '
        '"second_score": <integer 1-5>}}'
    ),
)

KHANUJA_CSI_OBJECTS = PromptTemplate(
    id="khanuja.csi-objects",
    version="2",
    images=("image",),
    output={"objects": "list of strings"},
    user=(
        "{image:image}\n"
        "List the distinct objects and entities visible in this image, each one once. Where one exists, use the "
        "object's Wikipedia or Wikidata name.\n"
        f"{JSON_ONLY}\n"
        '{{"objects": ["<object name>", "<object name>"]}}'
    ),
)

KHANUJA_CSI_REPLACEMENTS = PromptTemplate(
    id="khanuja.csi-replacements",
    version="2",
    output={"reasoning": "string", "replacements": "object: entity -> list of substitutes"},
    user=(
        "You adapt images for audiences around the world. An object detector found these entities in an image: "
        "{objects}.\n"
        "Pick out the entities that are tied to a particular country, culture or region and would feel foreign, "
        "or mean little, to people living in {country}. For every such entity, suggest as many substitutes as you "
        "can that people in {country} would recognise and relate to, each still within the category {category}. "
        "Explain briefly, step by step, why each entity is culture-specific.\n"
        f"{JSON_ONLY} (use an empty object for replacements when no entity is culture-specific)\n"
        '{{"reasoning": "<text>", "replacements": {{"<entity>": ["<substitute>", "<substitute>"]}}}}'
    ),
)

KHANUJA_CSI_MATCH = PromptTemplate(
    id="khanuja.csi-match",
    version="2",
    output={"reasoning": "string", "matches": "list of [list-1 item, list-2 item] pairs"},
    user=(
        "List 1: {list1}\nList 2: {list2}\n"
        "Find the pairs of items, one from each list, that name the same specific object. Two items still name "
        "the same object when their spelling, phrasing or punctuation differ slightly. Generic terms such as "
        "animal, plant, flower, object, food or material never make a pair. Explain briefly, step by step, then "
        "give every matching pair, each item copied exactly as it appears in its list.\n"
        f"{JSON_ONLY}\n"
        '{{"reasoning": "<text>", "matches": [["<item from list 1>", "<item from list 2>"]]}}'
    ),
)
