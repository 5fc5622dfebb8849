"""MPTc-Bench's judge prompts (App. A.2 rubrics, our wording): titles, quizzes, scores, preferences."""

from __future__ import annotations

from transcreval.judge.prompts.common import JSON_ONLY
from transcreval.judge.templates import PromptTemplate

__all__ = [
    "MPTC_ADAPTATION",
    "MPTC_AESTHETIC",
    "MPTC_AESTHETIC_ADAPTATION",
    "MPTC_MARKET",
    "MPTC_PAIRWISE",
    "MPTC_QUIZ",
    "MPTC_TITLE",
    "QUIZ_QUESTIONS",
]

MPTC_TITLE = PromptTemplate(
    id="mptc.title",
    version="2",
    images=("poster",),
    output={"title": "string ('' when no title is legible)"},
    user=(
        "{image:poster}\n"
        "Read this movie poster and report the film's main title.\n"
        "- Copy the title exactly as it is printed: same language, script and spelling. Do not translate, "
        "transliterate or correct it.\n"
        "- Where several titles appear, give the one that stands out most.\n"
        "- Where none is legible, give an empty string.\n"
        f"{JSON_ONLY}\n"
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
        f"{JSON_ONLY}\n"
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
        f"{JSON_ONLY}\n"
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
        f"{JSON_ONLY}\n"
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
        f"{JSON_ONLY}\n"
        '{{"aesthetic_comment": "<one sentence>", "aesthetic_score": <integer 1-5>, '
        '"adaptation_comment": "<one sentence>", "adaptation_score": <integer 1-5>}}'
    ),
)

MPTC_PAIRWISE = PromptTemplate(
    id="mptc.pairwise",
    version="2",
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
        "Should the two seem level, decide for the poster whose image is cleaner and whose lettering is easier "
        "to read.\n"
        f"{JSON_ONLY}\n"
        '{{"reason": "<one sentence>", "preferred": "<one of: A, B>"}}'
    ),
)

MPTC_MARKET = PromptTemplate(
    id="mptc.market",
    version="2",
    images=("a", "b"),
    output={"reason": "string", "preferred": "A or B"},
    user=(
        "Poster A:\n{image:a}\nPoster B:\n{image:b}\n"
        "You are an ordinary cinema-goer living in {target_market} and you know how posters there usually look "
        "and what local audiences like. Posters A and B advertise the same film, each localised for a different "
        "market. Their order is random and their markets are not given; do not try to work out which market "
        "either one was made for.\n"
        "As a viewer in {target_market}, which poster draws you in more? Weigh (1) the visual taste of audiences "
        "there, (2) the lettering, composition and design habits they are used to, (3) pictures and details that "
        "local viewers relate to, and (4) whether the language and writing system fit {target_market}. Pick the "
        "poster that would do better with audiences in {target_market}; general quality alone does not decide.\n"
        f"{JSON_ONLY}\n"
        '{{"reason": "<one sentence>", "preferred": "<one of: A, B>"}}'
    ),
)
