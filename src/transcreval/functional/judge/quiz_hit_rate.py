"""Genre and release-decade quizzes on the system's posters (MPTc-Bench §5.1, App. A.2).

The judge sees one poster (``preds``, the system output) and a four-option multiple-choice
question: its genre (``kind="genre"``) or its release decade (``kind="decade"``), answering
with one letter (JSON ``{"answer": "B"}``). ``target`` holds the correct answers. The value is
the hit rate in %, over items with a valid answer.

Options: give them per item (``options[i]``, a list that contains ``target[i]``), or give the
label pool (``labels``) and the ``n_options - 1`` distractors are drawn per item. Either way
the options are shuffled per item from SHA-256(seed, item id), so the correct answer sits at a
different letter on different items but at the same letter in every run and process; the
letter the judge names is mapped back to its option before it is compared with the target.
The default item id is a hash of the poster and the correct answer.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from transcreval.core.common import check_text
from transcreval.core.options import option
from transcreval.core.result import MetricResult
from transcreval.core.state_checks import list_digest
from transcreval.engines.judge.catalog import MPTC_QUIZ, QUIZ_QUESTIONS
from transcreval.engines.judge.items import content_id, item_id_list, item_rng, render_each
from transcreval.engines.judge.parse import Read, extract_json, read_bare, read_choice
from transcreval.engines.judge.pipeline import JudgeOptions, JudgeSpec, check_seed
from transcreval.engines.judge.roles import image_parts, text_list
from transcreval.engines.judge.tally import check_valid_count, judge_mean
from transcreval.engines.judge.templates import format_options
from transcreval.engines.judge.types import Judge
from transcreval.engines.judge.verdicts import ask
from transcreval.errors import InputError

LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"

#: what the quiz asks (the template's fields are filled by the metric itself)
SPEC = JudgeSpec("QuizHitRate", MPTC_QUIZ, slots=("poster",), side={"chance": 0.0})

__all__ = [
    "SPEC",
    "QuizHitRateOptions",
    "quiz_hit_rate",
    "quiz_hit_rate_from_stats",
    "quiz_hit_rate_stats",
    "quiz_options",
    "read_quiz_answer",
]


@dataclass(frozen=True, kw_only=True)
class QuizHitRateOptions(JudgeOptions):
    """QuizHitRate's options: the judge's (:class:`JudgeOptions`), the quiz ``kind`` (or a
    ``question`` and ``hint`` of one's own), the distractor pool ``labels``, ``n_options`` and
    the ``seed`` of the per-item shuffles."""

    default_spec: ClassVar[JudgeSpec | None] = SPEC
    kind: str = "genre"
    n_options: int = option(4, signature="k")
    seed: int = 0
    #: the pool the distractors are drawn from, by digest
    labels: Sequence[str] | None = option(
        None,
        signature=lambda o: {} if o.labels is None else {"labels": list_digest(sorted({str(x) for x in o.labels}))},
    )
    #: a wording of one's own: question and hint print together, by digest
    question: str | None = option(
        None,
        signature=lambda o: (
            {} if o.question is None and o.hint is None else {"q": list_digest([o.question or "", o.hint or ""])}
        ),
    )
    hint: str | None = option(None, signature=None)

    def check_own(self) -> None:
        if self.kind not in QUIZ_QUESTIONS and self.question is None:
            raise InputError(f"kind must be one of {sorted(QUIZ_QUESTIONS)}, or pass question= and hint=")
        n = self.n_options
        if not isinstance(n, int) or isinstance(n, bool) or not 2 <= n <= len(LETTERS):
            raise InputError(f"n_options must be an integer from 2 to 26, got {n!r}")
        check_seed(self.seed)
        if self.labels is not None:
            self.set_checked("labels", tuple(self.labels))


_LETTER_PREFIXES = ("the final answer", "final answer", "the answer", "answer", "option", "choice")


def read_quiz_answer(letters: str, options: Sequence[str] | None = None) -> Any:
    """A reader of one answer: a JSON ``answer``/``choice`` letter, else an answer that is only a
    letter ("B", "(B)", "Answer: B"; with ``options``, also "B. Drama" when Drama is option B).

    Nothing is read from prose: "It is definitely not B", "A or B" are unparsable.
    """
    by_letter = {c: c for c in letters}

    def with_option(s: str) -> Read[str] | None:
        m = re.fullmatch(r"\s*[(\[]?([A-Za-z])[)\].:]\s*(.+?)\s*", s)
        if options is None or m is None or m.group(1).upper() not in letters:
            return None
        shown = options[letters.index(m.group(1).upper())]
        same = " ".join(m.group(2).strip(" .*").casefold().split()) == " ".join(shown.casefold().split())
        return Read(m.group(1).upper()) if same else None

    def reader(text: str) -> Read[str]:
        obj = extract_json(text)
        if obj.ok and obj.value is not None:
            data = obj.value
            got = read_choice(data, ("answer", "choice", "option"), letters)
            if not got.ok:
                value = next((data[k] for k in data if str(k).lower() == "answer"), None)
                alt = with_option(value) if isinstance(value, str) else None
                return alt or got
            return got
        bare = read_bare(text, by_letter, prefixes=_LETTER_PREFIXES)
        if bare.ok:
            return bare
        alt = with_option(text.strip())
        return alt if alt is not None else Read(None, f"{obj.error}; {bare.error}")

    return reader


def quiz_options(
    target: str, options: Sequence[str] | None, labels: Sequence[str] | None, n_options: int, seed: int, item_id: str
) -> list[str]:
    """The options of one item in the order shown (shuffled from SHA-256(seed, item id))."""
    if options is not None:
        opts = [str(o) for o in options]
        if len(set(opts)) != len(opts) or len(opts) < 2 or len(opts) > len(LETTERS):
            raise InputError(f"options must hold 2-26 distinct strings, got {opts!r}")
        if target not in opts:
            raise InputError(f"the correct answer {target!r} is not among the options {opts!r}")
    else:
        if labels is None:
            raise InputError("QuizHitRate needs options= (per item) or labels= (the pool to draw distractors from)")
        pool = sorted({str(x) for x in labels} - {target})
        if target not in {str(x) for x in labels}:
            raise InputError(f"the correct answer {target!r} is not one of the labels")
        if len(pool) < n_options - 1:
            raise InputError(f"labels hold {len(pool) + 1} values; n_options={n_options} needs more")
        opts = [target, *item_rng(seed, item_id, "distractors").sample(pool, n_options - 1)]
    item_rng(seed, item_id, "options").shuffle(opts)
    return opts


def quiz_hit_rate_stats(
    preds: Any,
    target: Sequence[str],
    *,
    options: Sequence[Sequence[str]] | None = None,
    item_ids: Sequence[str] | None = None,
    quiz: QuizHitRateOptions | None = None,
    **kwargs: Any,
) -> dict[str, Any]:
    """One batch: ask each quiz; item value 1 (hit) or 0 (miss). ``options``: the choices of
    each item (an input: not the metric's options, which are ``quiz=`` or given one by one as
    :class:`QuizHitRateOptions`)."""
    o = QuizHitRateOptions.of(quiz, kwargs, "quiz_hit_rate_stats")
    tpl = o.prompt()
    q, h = QUIZ_QUESTIONS.get(o.kind, ("", ""))
    q, h = o.question or q, o.hint or h
    labels, n_options, seed = o.labels, o.n_options, o.seed
    input_range, judge = o.input_range, o.judge
    posters = image_parts(preds, "preds", input_range)
    if isinstance(target, str) or not isinstance(target, Sequence):
        raise InputError("target must be a list with the correct answer of each item")
    answers = [check_text(t, f"target[{i}]") for i, t in enumerate(target)]
    n = len(posters)
    if len(answers) != n:
        raise InputError(f"QuizHitRate: {n} posters but {len(answers)} answers")
    if options is not None and (isinstance(options, (str, bytes)) or not isinstance(options, Sequence)):
        raise InputError("options must be a list with the choices (a list of strings) of each item")
    if options is not None and len(options) != n:
        raise InputError(f"options has {len(options)} lists of choices for {n} items")
    per_item_options = (
        [text_list(c, f"options[{i}]") for i, c in enumerate(options)] if options is not None else [None] * n
    )
    ids = item_id_list(item_ids, n) or [content_id(p, a) for p, a in zip(posters, answers)]
    shown = [quiz_options(answers[i], per_item_options[i], labels, n_options, seed, ids[i]) for i in range(n)]
    rows = [
        (
            {"poster": posters[i]},
            {
                "question": q,
                "hint": h,
                "options": format_options(shown[i]),
                "letters": ", ".join(LETTERS[: len(shown[i])]),
            },
        )
        for i in range(n)
    ]
    verdicts = ask(
        judge, render_each(tpl, rows, what=SPEC.name), [read_quiz_answer(LETTERS[: len(o)], o) for o in shown]
    )
    tally = SPEC.tally().take_items(
        verdicts,
        lambda i, letter: (float(shown[i][LETTERS.index(letter)] == answers[i]), {"chance": 1.0 / len(shown[i])}),
    )
    return tally.finish(f"QuizHitRate({o.kind})", o.on_failure)


def quiz_hit_rate_from_stats(stats: dict[str, Any], options: QuizHitRateOptions) -> MetricResult:
    """Hit rate in % over valid items; ``extras["chance"]`` the expected rate of random guessing."""
    signature = options.result_signature()
    n = check_valid_count(stats, signature.name)
    return judge_mean(stats, signature, 100.0, chance=100.0 * float(stats["chance"]) / n)


def quiz_hit_rate(
    preds: Any,
    target: Sequence[str],
    *,
    judge: Judge,
    options: Sequence[Sequence[str]] | None = None,
    item_ids: Sequence[str] | None = None,
    **quiz: Any,
) -> MetricResult:
    """Quiz hit rate (%, higher is better) of the judge on ``preds`` against the answers
    ``target``; ``options`` the choices per item (inputs), the metric's options as
    :class:`QuizHitRateOptions`. Returns what ``QuizHitRate.compute()`` returns."""
    opts = QuizHitRateOptions.take({"judge": judge, **quiz}, "quiz_hit_rate")
    stats = quiz_hit_rate_stats(preds, target, options=options, item_ids=item_ids, quiz=opts)
    return quiz_hit_rate_from_stats(stats, opts)
