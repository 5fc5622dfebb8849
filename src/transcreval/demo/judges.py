"""Demo section: every judge metric (MPTc-Bench, Khanuja et al., IMTBench, PosterIQ).

With ``TRANSCREVAL_JUDGE_URL`` set, the demo asks that OpenAI-compatible endpoint
(``TRANSCREVAL_JUDGE_MODEL``, default: the first model it lists; ``OPENAI_API_KEY`` if it needs
one; ``TRANSCREVAL_JUDGE_CACHE``, default: no cache). Otherwise it starts a **fake** judge on
loopback (:class:`~transcreval.engines.judge.fake_server.FakeOpenAIServer`) and says so before every
number: the fake "reads" the titles the demo set knows it drew, and makes up every other answer
from a hash of the request, so its numbers only show that the plumbing (HTTP, retries, caching,
parsing, failure counts) works end to end. An endpoint that rejects the key or model, or never
answers, stops the section at the first metric with its message (no other metric could run).
Without the openai SDK (the base install) the same fake answers come from an in-process
:class:`~transcreval.engines.judge.replay.FunctionJudge`, and the label says so.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TextIO

from transcreval.errors import JudgeConfigError, JudgeUnreachableError
from transcreval.utils.text_table import format_table

if TYPE_CHECKING:
    from transcreval.demo.context import DemoContext

__all__ = ["TITLE", "DemoResponder", "demo_judge", "run"]

TITLE = "VLM-judge metrics (a fake judge unless TRANSCREVAL_JUDGE_URL is set)"

MARKETS = {"fr": "France", "ja": "Japan", "ar": "Egypt", "hi": "India"}
GENRES = ["animation", "thriller", "comedy", "action", "drama", "horror", "romance"]
DEMO_GENRE = {"spirited": "animation", "parasite": "thriller", "amelie": "comedy", "rrr": "action"}
STYLES = ["Minimalist", "Memphis", "Swiss", "Vintage", "Diffuse Glow"]
FONT_WORDS = ["bold", "serif", "sans-serif", "italic", "playful", "elegant", "modern", "handwritten"]
_OBJECTS = ["bread", "fork", "coffee", "umbrella", "bicycle", "rice", "tea", "lantern"]
_SWAPS = {"bread": ["rice", "naan"], "fork": ["chopsticks"], "coffee": ["tea", "chai"]}


def _images(body: dict[str, Any]) -> list[Any]:
    from transcreval.io import to_rgb_pil

    out = []
    for m in body.get("messages", []):
        for p in m.get("content") if isinstance(m.get("content"), list) else []:
            if p.get("type") == "image_url":
                data = p["image_url"]["url"].split(",", 1)[1]
                out.extend(to_rgb_pil(base64.b64decode(data)))
    return out


def _text(body: dict[str, Any]) -> str:
    from transcreval.engines.judge.fake_server import prompt_text

    return prompt_text(body)


class DemoResponder:
    """The fake judge's answers for the demo: known titles, made-up everything else."""

    def __init__(self, titles: dict[str, str]) -> None:
        self.titles = titles  # pixel hash -> the title drawn on that image

    def __call__(self, body: dict[str, Any]) -> str:
        from transcreval.engines.judge.fake_server import synthetic_answer
        from transcreval.engines.judge.images import to_image_part

        text = _text(body)
        digest = hashlib.sha256(json.dumps(body, sort_keys=True).encode()).digest()
        if '"title"' in text:
            images = _images(body)
            title = self.titles.get(to_image_part(images[0]).sha256, "") if images else ""
            return json.dumps({"title": title}, ensure_ascii=False)
        if '"objects"' in text:
            return json.dumps({"objects": [o for i, o in enumerate(_OBJECTS) if digest[i] % 3 == 0][:4] or ["tea"]})
        if '"replacements"' in text:
            listed = text.split("in an image: ", 1)[1].split(".\n", 1)[0].split(", ") if "in an image: " in text else []
            return json.dumps({"reasoning": "made up", "replacements": {o: _SWAPS[o] for o in listed if o in _SWAPS}})
        if '"matches"' in text:
            l1 = re.search(r"List 1: (.*)", text)
            l2 = re.search(r"List 2: (.*)", text)
            a = l1.group(1).split("; ") if l1 else []
            b = l2.group(1).split("; ") if l2 else []
            return json.dumps({"reasoning": "made up", "matches": [[x, x] for x in a if x in b]})
        return synthetic_answer(body)


def _demo_titles(posters: list[Any]) -> dict[str, str]:
    from transcreval.engines.judge.images import to_image_part

    out = {}
    for p in posters:
        out[to_image_part(p.source).sha256] = p.source_title
        out[to_image_part(p.target).sha256] = p.target_title
        for name, im in p.outputs.items():
            out[to_image_part(im).sha256] = p.output_titles[name]
    return out


def _body(request: Any) -> dict[str, Any]:
    """A request as the chat body an endpoint would receive (text parts, images as data URLs)."""
    from transcreval.engines.judge.types import ImagePart

    messages = []
    for m in request.messages:
        content = [
            {"type": "image_url", "image_url": {"url": p.data_url()}}
            if isinstance(p, ImagePart)
            else {"type": "text", "text": p.text}
            for p in m.parts
        ]
        messages.append({"role": m.role, "content": content})
    return {"model": "fake-judge", "messages": messages}


def demo_judge(posters: list[Any]) -> tuple[Any, str, Callable[[], None]]:
    """(judge, a label saying what it is, a cleanup function)."""
    url = os.environ.get("TRANSCREVAL_JUDGE_URL")
    if not url and not _has_openai():  # the base install: the same fake answers, in-process
        from transcreval.engines.judge.replay import FunctionJudge

        responder = DemoResponder(_demo_titles(posters))
        in_process = FunctionJudge(lambda request: responder(_body(request)), model="fake-judge")
        label = (
            "judge: a FAKE judge in-process (the openai SDK is not installed), not a model. It reads back the\n"
            "titles the demo drew and makes up every other answer, so these numbers only show the plumbing.\n"
            "pip install 'transcreval[judge]' asks it over HTTP instead, as a real endpoint is asked."
        )
        return in_process, label, lambda: None
    from transcreval.engines.judge.openai_judge import OpenAICompatibleJudge

    if url:
        model = os.environ.get("TRANSCREVAL_JUDGE_MODEL")
        if not model:
            from openai import OpenAI

            key = os.environ.get("OPENAI_API_KEY") or "EMPTY"
            listed = OpenAI(base_url=url, api_key=key, max_retries=1, timeout=30).models.list()
            model = next(iter(listed)).id
        judge = OpenAICompatibleJudge(model, base_url=url, cache=os.environ.get("TRANSCREVAL_JUDGE_CACHE"))
        return judge, f"judge: {model} at {url} (TRANSCREVAL_JUDGE_URL)", judge.close

    from transcreval.engines.judge.fake_server import FakeOpenAIServer

    server = FakeOpenAIServer(DemoResponder(_demo_titles(posters)), model="fake-judge").start()
    judge = OpenAICompatibleJudge("fake-judge", base_url=server.base_url, api_key="not-a-real-key", max_retries=0)

    def cleanup() -> None:
        judge.close()
        server.stop()

    label = (
        "judge: a FAKE judge on loopback, not a model. It reads back the titles the demo drew and makes up every\n"
        "other answer, so these numbers only show the plumbing. Set TRANSCREVAL_JUDGE_URL (and\n"
        "TRANSCREVAL_JUDGE_MODEL) to an OpenAI-compatible endpoint to ask a real judge."
    )
    return judge, label, cleanup


def _has_openai() -> bool:
    from transcreval.demo.extras import missing_extras

    return not any("[judge]" in line for line in missing_extras())


def _rows(judge: Any, posters: list[Any], system: str) -> list[tuple[str, Any]]:
    from transcreval.judge.csi_overlap import CSIOverlap
    from transcreval.judge.imtbench import AlignmentScore, HarmonizationScore
    from transcreval.judge.judge_score import JudgeScore
    from transcreval.judge.posteriq import JudgedFontRichness, JudgedPointScore, JudgedStyleScore
    from transcreval.judge.quiz_hit_rate import QuizHitRate
    from transcreval.judge.title_extraction import TitleExtraction
    from transcreval.judge.transcreation_score import VLMTranscreationScore
    from transcreval.judge.win_rate import MarketPreferenceRate, WinRate

    outs = [p.outputs[system] for p in posters]
    srcs = [p.source for p in posters]
    gts = [p.target for p in posters]
    ctx = {
        "target_market": [MARKETS.get(p.market, p.market) for p in posters],
        "source_market": "USA",
        "genre": [DEMO_GENRE.get(p.poster_id, "drama") for p in posters],
    }
    joint = "mptc.aesthetic+adaptation"
    texts = [p.output_titles[system] for p in posters]
    points = [["a title band", "the title"]] * len(outs)
    country = ctx["target_market"]
    runs: list[tuple[str, Any, tuple[Any, ...], dict[str, Any]]] = [
        ("TitleExtraction (chrF)", TitleExtraction(judge=judge), (outs, gts), {}),
        ("QuizHitRate genre (%)", QuizHitRate(judge=judge, labels=GENRES), (outs, ctx["genre"]), {}),
        ("JudgeScore aesthetic", JudgeScore(judge=judge, aspect="aesthetic", template=joint), (outs, srcs), ctx),
        ("JudgeScore adaptation", JudgeScore(judge=judge, aspect="adaptation", template=joint), (outs, srcs), ctx),
        ("WinRate vs GT (%)", WinRate(judge=judge, both_orders=True), (outs, gts), ctx),
        ("MarketPreferenceRate GT vs SRC (%)", MarketPreferenceRate(judge=judge), (gts, srcs), ctx),
        ("VLM cultural relevance", VLMTranscreationScore(judge=judge), (outs, srcs), {"country": country}),
        ("CSIOverlap", CSIOverlap(judge=judge), (outs, srcs), {"country": country, "category": "poster"}),
        ("HarmonizationScore S_vis", HarmonizationScore(judge=judge), (outs, gts), {}),
        ("AlignmentScore S_align", AlignmentScore(judge=judge, template="imtbench.joint"), (outs, texts), {}),
        ("JudgedPointScore", JudgedPointScore(judge=judge), (outs, points), {}),
        ("JudgedStyleScore", JudgedStyleScore(judge=judge, labels=STYLES), (outs, ["Minimalist"] * len(outs)), {}),
        ("JudgedFontRichness", JudgedFontRichness(judge=judge, vocabulary=FONT_WORDS), (outs,), {}),
    ]
    out: list[tuple[str, Any]] = []
    for name, metric, args, kwargs in runs:
        try:
            metric.update(*args, **kwargs)
            out.append((name, metric.compute()))
        except (JudgeConfigError, JudgeUnreachableError) as e:  # no call can succeed: stop here
            raise _Stopped(name, e) from e
        except Exception as e:  # a real judge may fail every item of a tiny set: say so, go on
            out.append((name, e))
    return out


class _Stopped(Exception):
    """The endpoint rejected the setup or never answered: no further metric can run."""

    def __init__(self, metric: str, error: Exception) -> None:
        super().__init__(metric, error)
        self.metric, self.error = metric, error


def run(ctx: DemoContext, stream: TextIO) -> None:
    """Print the judge metrics of every demo system (see the module docstring)."""
    posters = ctx.posters
    try:
        judge, label, cleanup = demo_judge(posters)
    except Exception as e:  # the endpoint in TRANSCREVAL_JUDGE_URL is not usable
        print(f"judge metrics skipped: {e}", file=stream)
        return
    try:
        print(label, file=stream)
        systems = ctx.systems
        try:
            results = {s: _rows(judge, posters, s) for s in systems}
        except _Stopped as stop:
            print(f"judge metrics stopped at {stop.metric}: {type(stop.error).__name__}: {stop.error}", file=stream)
            return
        rows = []
        for i, (name, _) in enumerate(results[systems[0]]):
            row = [name]
            for s in systems:
                r = results[s][i][1]
                if isinstance(r, Exception):
                    row.append(f"no value: {type(r).__name__}")
                else:
                    ex = r.extras
                    row.append(f"{r.value:.2f} ({ex['n_valid']} ok, {ex['n_failed']} failed)")
            rows.append(row)
        print(format_table(rows, ["judge metric", *systems]), file=stream)
        first = next((r for _, r in results[systems[0]] if not isinstance(r, Exception)), None)
        if first is not None:
            print(f"signature: {first.signature}", file=stream)
    finally:
        cleanup()
