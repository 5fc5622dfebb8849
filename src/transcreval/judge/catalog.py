"""The built-in prompt templates: the papers' rubrics (scales, criteria, answer keys) in our words.

The papers' own prompt texts stay in the papers. Each template here carries the rubric of one
judge task; a user who needs the published wording loads it from a file (``template=PATH``),
and the metric's parser accepts the answer keys of both. Bump a template's version whenever
its wording changes (the version is part of every cache key).

Answer slots are written ``<integer 1-5>``, ``<true or false>``, ``<one of: A, B>``, ``<text>``,
``<list ...>``: readable by a model and by the fake server's synthetic answers.
"""

from __future__ import annotations

from transcreval.judge.templates import PromptTemplate

__all__ = ["TEMPLATES"]

_JSON_ONLY = "Reply with a single JSON object and no other text:"

# ----------------------------------------------------------------------------- MPTc-Bench
MPTC_TITLE = PromptTemplate(
    id="mptc.title",
    version="1",
    images=("poster",),
    output={"title": "string ('' when no title is legible)"},
    user=(
        "{image:poster}\n"
        "Read this movie poster and report the film's main title.\n"
        "- Copy the title exactly as it is printed: same language, script and spelling. Do not translate, "
        "transliterate or correct it.\n"
        "- If more than one title is printed, report the most prominent one.\n"
        "- If no title can be read, report an empty string.\n"
        f"{_JSON_ONLY}\n"
        '{{"title": "<the title as printed>"}}'
    ),
)

MPTC_QUIZ = PromptTemplate(
    id="mptc.quiz",
    version="1",
    images=("poster",),
    output={"answer": "one option letter"},
    user=(
        "{image:poster}\n"
        "You analyse movie posters. Answer this multiple-choice question about the film advertised by the "
        "poster above.\n"
        "Question: {question}\n"
        "{options}\n"
        "Work only from what the poster shows: {hint}\n"
        "Choose exactly one option.\n"
        f"{_JSON_ONLY}\n"
        '{{"answer": "<one of: {letters}>"}}'
    ),
)

QUIZ_QUESTIONS = {
    "genre": (
        "Which genre does this film belong to?",
        "its imagery, colour scheme, typography and any printed text all hint at the genre.",
    ),
    "decade": (
        "In which decade was this film released?",
        "printed dates or credits, the photographic look and the design style hint at the period.",
    ),
}

_ROLE = (
    "Take the role of a film-marketing consultant who is also an ordinary cinema-goer in {target_market}. "
    "TGT is a version of the poster localised for {target_market}; the film is a {genre} film first marketed "
    "in {source_market}, with the poster SRC."
)
_ADAPTATION_CRITERIA = (
    "what {target_market} audiences expect: the language and script and how readable they are, the hierarchy "
    "of the type, the rating and legal marks the market requires, the billing block and the order of the cast, "
    "the way release dates are written, how dense the layout is, and imagery fitting a {genre} film, all "
    "while the film stays recognisable and the key facts from SRC survive"
)
_AESTHETIC_SCALE = (
    "5 = polished, professional work: balanced composition, clean and legible type, visually compelling\n"
    "4 = polished overall, with small flaws\n"
    "3 = visible problems, but the text stays legible and the poster still works\n"
    "2 = serious problems; the text is hard to read\n"
    "1 = broken; unusable as a poster"
)
_ADAPTATION_SCALE = (
    "5 = matches local conventions throughout; the film's identity and key information are intact\n"
    "4 = largely matches; a few mismatches\n"
    "3 = partly localised; some local elements are awkward or missing, but the core message survives\n"
    "2 = barely localised; feels foreign; important information is wrong or lost\n"
    "1 = no real adaptation, or inappropriate or misleading for this market"
)

MPTC_AESTHETIC = PromptTemplate(
    id="mptc.aesthetic",
    version="1",
    images=("source", "output"),
    output={"comment": "string", "score": "integer 1-5"},
    user=(
        "SRC:\n{image:source}\nTGT:\n{image:output}\n"
        f"{_ROLE}\n"
        "Rate the visual quality of TGT as a poster, on this scale (integers only):\n"
        f"{_AESTHETIC_SCALE}\n"
        f"{_JSON_ONLY}\n"
        '{{"comment": "<one sentence>", "score": <integer 1-5>}}'
    ),
)

MPTC_ADAPTATION = PromptTemplate(
    id="mptc.adaptation",
    version="1",
    images=("source", "output"),
    output={"comment": "string", "score": "integer 1-5"},
    user=(
        "SRC:\n{image:source}\nTGT:\n{image:output}\n"
        f"{_ROLE}\n"
        f"Rate how well TGT is adapted to {{target_market}}, judged by {_ADAPTATION_CRITERIA}. Use this scale "
        "(integers only):\n"
        f"{_ADAPTATION_SCALE}\n"
        f"{_JSON_ONLY}\n"
        '{{"comment": "<one sentence>", "score": <integer 1-5>}}'
    ),
)

MPTC_AESTHETIC_ADAPTATION = PromptTemplate(
    id="mptc.aesthetic+adaptation",
    version="1",
    images=("source", "output"),
    output={
        "aesthetic_comment": "string",
        "aesthetic_score": "integer 1-5",
        "adaptation_comment": "string",
        "adaptation_score": "integer 1-5",
    },
    user=(
        "SRC:\n{image:source}\nTGT:\n{image:output}\n"
        f"{_ROLE}\n"
        "Give TGT two scores (integers only).\n"
        f"aesthetic_score: its visual quality as a poster.\n{_AESTHETIC_SCALE}\n"
        f"adaptation_score: how well it is adapted to {{target_market}}, judged by {_ADAPTATION_CRITERIA}.\n"
        f"{_ADAPTATION_SCALE}\n"
        f"{_JSON_ONLY}\n"
        '{{"aesthetic_comment": "<one sentence>", "aesthetic_score": <integer 1-5>, '
        '"adaptation_comment": "<one sentence>", "adaptation_score": <integer 1-5>}}'
    ),
)

MPTC_PAIRWISE = PromptTemplate(
    id="mptc.pairwise",
    version="1",
    images=("a", "b"),
    output={"reason": "string", "preferred": "A or B"},
    user=(
        "Poster A:\n{image:a}\nPoster B:\n{image:b}\n"
        "Take the role of a film-marketing consultant who is also an ordinary cinema-goer in {target_market}. Both "
        "posters advertise the same {genre} film, first marketed in {source_market}, to the same market: "
        "{target_market}. Their order is random and their origin is not given; do not try to guess whether a "
        "person or a machine made either one.\n"
        "Looking only at the images, decide which poster ordinary cinema-goers in {target_market} would prefer, "
        "weighing (1) visual appeal and polish, (2) clarity and legibility of the type, and (3) fit with "
        f"{_ADAPTATION_CRITERIA}.\n"
        "If they seem equally good, prefer the one with fewer artifacts and clearer text.\n"
        f"{_JSON_ONLY}\n"
        '{{"reason": "<one sentence>", "preferred": "<one of: A, B>"}}'
    ),
)

MPTC_MARKET = PromptTemplate(
    id="mptc.market",
    version="1",
    images=("a", "b"),
    output={"reason": "string", "preferred": "A or B"},
    user=(
        "Poster A:\n{image:a}\nPoster B:\n{image:b}\n"
        "You are an ordinary cinema-goer living in {target_market} and you know how posters there usually look "
        "and what local audiences like. Posters A and B advertise the same film, each localised for a different "
        "market. Their order is random and their markets are not given; do not try to work out which market "
        "either one was made for.\n"
        "Which poster appeals more to you, as a viewer in {target_market}? Consider (1) the aesthetic tastes "
        "common in {target_market}, (2) typography, layout and design conventions familiar there, (3) imagery "
        "and market-specific elements that speak to local audiences, and (4) whether the language and script "
        "suit {target_market}. Judge which would work better in {target_market}, not which is better in the "
        "abstract.\n"
        f"{_JSON_ONLY}\n"
        '{{"reason": "<one sentence>", "preferred": "<one of: A, B>"}}'
    ),
)

# ----------------------------------------------------------------------------- Khanuja et al.
_REASONED_SCORE = '{{"reasoning": "<a few sentences>", "score": <integer 1-5>}}'

KHANUJA_INTENT = PromptTemplate(
    id="khanuja.intent",
    version="1",
    images=("source", "output"),
    output={"reasoning": "string", "score": "integer 1-5"},
    user=(
        "First image:\n{image:source}\nSecond image:\n{image:output}\n"
        "The first image belongs to the category {category}. Decide whether the second image belongs to the same "
        "category. Think it through step by step, then score: 1 = a different category, 5 = the same category.\n"
        f"{_JSON_ONLY}\n{_REASONED_SCORE}"
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
        f"{_JSON_ONLY}\n{_REASONED_SCORE}"
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
        f"{_JSON_ONLY}\n"
        '{{"first_reasoning": "<text>", "first_score": <integer 1-5>, "second_reasoning": "<text>", '
        '"second_score": <integer 1-5>}}'
    ),
)

KHANUJA_CSI_OBJECTS = PromptTemplate(
    id="khanuja.csi-objects",
    version="1",
    images=("image",),
    output={"objects": "list of strings"},
    user=(
        "{image:image}\n"
        "List the distinct objects and entities visible in this image, each one once. Where one exists, use the "
        "object's Wikipedia or Wikidata name.\n"
        f"{_JSON_ONLY}\n"
        '{{"objects": "<list of object names>"}}'
    ),
)

KHANUJA_CSI_REPLACEMENTS = PromptTemplate(
    id="khanuja.csi-replacements",
    version="1",
    output={"reasoning": "string", "replacements": "object: entity -> list of substitutes"},
    user=(
        "You adapt images for audiences around the world. An object detector found these entities in an image: "
        "{objects}.\n"
        "Pick out the entities that are tied to a particular country, culture or region and would not be familiar "
        "or meaningful to someone from {country}. For each one, list as many substitutes as you can that would "
        "feel familiar and relevant to someone in {country} and that still belong to the category {category}. "
        "Explain briefly, step by step, why each entity is culture-specific.\n"
        f"{_JSON_ONLY} (use an empty object for replacements when no entity is culture-specific)\n"
        '{{"reasoning": "<text>", "replacements": {{"<entity>": "<list of substitutes>"}}}}'
    ),
)

KHANUJA_CSI_MATCH = PromptTemplate(
    id="khanuja.csi-match",
    version="1",
    output={"reasoning": "string", "matches": "list of [list-1 item, list-2 item] pairs"},
    user=(
        "List 1: {list1}\nList 2: {list2}\n"
        "Find the pairs of items, one from each list, that name the same specific object, allowing for small "
        "differences in spelling, wording or punctuation. Do not match on broad terms such as animal, plant, "
        "flower, object, food or material. Explain briefly, step by step, then give every matching pair, each "
        "item copied exactly as it appears in its list.\n"
        f"{_JSON_ONLY}\n"
        '{{"reasoning": "<text>", "matches": "<list of [item from list 1, item from list 2] pairs>"}}'
    ),
)

# ----------------------------------------------------------------------------- IMTBench
_SYNTHETIC_NOTE = "The images are synthetic or machine-edited; no privacy concerns apply."
_HARMONIZATION_RUBRIC = (
    "naturalness (0-10): 0 = the scene does not look natural at all (wrong sense of distance, shadows or "
    "lighting); 10 = the image looks entirely natural.\n"
    "artifacts (0-10): 0 = large areas of distortion, watermarks, scratches, blurred faces, malformed body "
    "parts or subjects that do not blend in; 10 = no artifacts at all."
)
_ALIGNMENT_RUBRIC = (
    "alignment (0-10): how well the translation text matches the text rendered in the image. 0 = it does not "
    "match at all, or contradicts it in major parts; 10 = it matches perfectly in meaning and in every key "
    "detail. Criteria: key facts must match exactly (numbers, dates, units, prices, names, proper nouns, "
    "negations); it must cover every prominent text region (headline before body before small print), and a "
    "missing prominent region costs a lot; rephrasing is fine when the meaning is kept, contradictions are "
    "penalised heavily; terms repeated in the image should be translated consistently; where image text is "
    "truly unreadable, do not invent mismatches, judge only what can be read."
)

IMTBENCH_HARMONIZATION = PromptTemplate(
    id="imtbench.harmonization",
    version="1",
    images=("image",),
    output={"reasoning": "string", "naturalness": "integer 0-10", "artifacts": "integer 0-10"},
    user=(
        "{image:image}\n"
        "You are a localisation quality reviewer. The text in this image was translated and rendered back into "
        "the image. Judge the image itself, with two integer scores:\n"
        f"{_HARMONIZATION_RUBRIC}\n{_SYNTHETIC_NOTE} Keep the reasoning short.\n"
        f"{_JSON_ONLY}\n"
        '{{"reasoning": "<text>", "naturalness": <integer 0-10>, "artifacts": <integer 0-10>}}'
    ),
)

IMTBENCH_ALIGNMENT = PromptTemplate(
    id="imtbench.alignment",
    version="1",
    images=("image",),
    output={"reasoning": "string", "alignment": "integer 0-10"},
    user=(
        "{image:image}\n"
        "You are a localisation quality reviewer. The text in this image was translated and rendered back into "
        'the image; the system also produced this translation text:\n"{translation}"\n'
        f"Score {_ALIGNMENT_RUBRIC}\n{_SYNTHETIC_NOTE} Keep the reasoning short.\n"
        f"{_JSON_ONLY}\n"
        '{{"reasoning": "<text>", "alignment": <integer 0-10>}}'
    ),
)

IMTBENCH_JOINT = PromptTemplate(
    id="imtbench.joint",
    version="1",
    images=("image",),
    output={
        "reasoning": "string",
        "naturalness": "integer 0-10",
        "artifacts": "integer 0-10",
        "alignment": "integer 0-10",
    },
    user=(
        "{image:image}\n"
        "You are a localisation quality reviewer. The text in this image was translated and rendered back into "
        'the image; the system also produced this translation text:\n"{translation}"\n'
        "Give three integer scores.\n"
        f"{_HARMONIZATION_RUBRIC}\n{_ALIGNMENT_RUBRIC}\n{_SYNTHETIC_NOTE} Keep the reasoning short.\n"
        f"{_JSON_ONLY}\n"
        '{{"reasoning": "<text>", "naturalness": <integer 0-10>, "artifacts": <integer 0-10>, '
        '"alignment": <integer 0-10>}}'
    ),
)

# ----------------------------------------------------------------------------- PosterIQ
POSTERIQ_POINT_IMAGE = PromptTemplate(
    id="posteriq.point-image",
    version="1",
    images=("poster",),
    output={"reasoning": "string", "covered": "boolean"},
    user=(
        "{image:poster}\n"
        'This poster was generated from a brief. Check one required element of the brief: "{point}".\n'
        "Is this element clearly and correctly realised in the poster? Answer true only when it is.\n"
        f"{_JSON_ONLY}\n"
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
        f"{_JSON_ONLY}\n"
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
        f"{_JSON_ONLY}\n"
        '{{"style": "<one of: {styles}>"}}'
    ),
)

POSTERIQ_FONT = PromptTemplate(
    id="posteriq.font",
    version="1",
    images=("poster",),
    output={"attributes": "list of attributes from the vocabulary"},
    user=(
        "{image:poster}\n"
        "Describe the typography of this poster using only words from this list of font attributes: "
        "{vocabulary}.\n"
        "List every attribute that fits the fonts used in the poster, copied as written in the list.\n"
        f"{_JSON_ONLY}\n"
        '{{"attributes": "<list of attributes>"}}'
    ),
)

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
        POSTERIQ_POINT_IMAGE,
        POSTERIQ_POINT_TEXT,
        POSTERIQ_STYLE,
        POSTERIQ_FONT,
    )
}
