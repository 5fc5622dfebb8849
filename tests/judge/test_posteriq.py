"""JudgedPointScore, JudgedStyleScore, JudgedFontRichness (transcreval.judge.posteriq): each equals
its PosterIQ metric on the verdicts the judge gave, through the harness.

How the harness and the scripted oracle are set up: tests/judge/oracle.py.
"""

from __future__ import annotations

import functools
import json

import pytest

from tests._helpers.tester import MetricCase, check_metric, join_lists
from tests.judge.oracle import (
    SLICES,
    UNPARSABLE,
    WRAPS,
    N,
    Oracle,
    batches_of,
    extras_total,
    img,
    index,
    sha,
    wrap,
)


@pytest.mark.ddp
@pytest.mark.parametrize("mode", ["paper", "posteriq-code"])
@pytest.mark.parametrize("as_text", [False, True])
def test_judged_point_score_equals_point_score_on_the_verdicts(tmp_path, ddp_pool, mode, as_text):
    from transcreval.functional import point_score
    from transcreval.functional.judge.posteriq import judged_point_score, judged_point_score_stats
    from transcreval.judge.posteriq import JudgedPointScore

    posters = [f"A poster showing scene {i}." for i in range(N)] if as_text else [img(1200 + i) for i in range(N)]
    points = [[f"point {i}-{k}" for k in range(1 + i % 3)] for i in range(N)]
    covered = {(i, k): (i + k) % 4 != 3 for i in range(N) for k in range(3)}
    failing = {6}
    oracle = Oracle()
    tid = "posteriq.point-text" if as_text else "posteriq.point-image"

    def answer(request):
        i, k = (int(x) for x in request.text.split('"point ')[1].split('"')[0].split("-"))
        if i in failing and k == 0:
            return UNPARSABLE
        return wrap({"reasoning": "r", "covered": covered[i, k]}, WRAPS[(i + k) % 4])

    oracle.rule(tid, answer)
    batches = batches_of(posters, points)
    key = {x if as_text else sha(x): i for i, x in enumerate(posters)}
    replay = oracle.record(
        tmp_path / "c.sqlite", batches, lambda p, t, judge: judged_point_score_stats(p, t, judge=judge)
    )

    def reference(p, t):
        rows = [key[x if as_text else sha(x)] for x in p]
        verdicts = [[covered[i, k] for k in range(len(points[i]))] for i in rows if i not in failing]
        return point_score(verdicts, mode=mode).value

    factory = functools.partial(JudgedPointScore, judge=replay, mode=mode)
    check_metric(
        MetricCase(
            factory,
            lambda p, t: judged_point_score(p, t, judge=replay, mode=mode),
            reference,
            batches,
            join_lists,
            extras_keys=("per_point",),
        ),
        ddp_pool,
    )


STYLES = ["Minimalist", "Memphis", "Diffuse Glow", "Swiss", "Vintage"]


@pytest.mark.ddp
def test_judged_style_score_equals_style_score_on_the_labels(tmp_path, ddp_pool):
    from transcreval.functional import style_score
    from transcreval.functional.judge.posteriq import judged_style_score, judged_style_score_stats
    from transcreval.judge.posteriq import JudgedStyleScore

    preds = [img(1300 + i) for i in range(N)]
    target = [STYLES[i % 5] for i in range(N)]
    judged = [STYLES[(i * 2) % 5] for i in range(N)]
    failing = {3: json.dumps({"style": "Baroque"})}  # not a label
    oracle = Oracle()
    for i in range(N):
        shown = judged[i].lower() if i % 2 else judged[i]
        oracle.add("posteriq.style", preds[i], failing.get(i) or wrap({"style": shown}, WRAPS[i % 4]))
    batches = batches_of(preds, target)
    where = index(preds)
    replay = oracle.record(
        tmp_path / "c.sqlite", batches, lambda p, t, judge: judged_style_score_stats(p, t, judge=judge, labels=STYLES)
    )

    def reference(p, t):
        rows = [where[sha(x)] for x in p if where[sha(x)] not in failing]
        return style_score([judged[i] for i in rows], [target[i] for i in rows], labels=STYLES).value

    factory = functools.partial(JudgedStyleScore, judge=replay, labels=STYLES)
    check_metric(
        MetricCase(
            factory, lambda p, t: judged_style_score(p, t, judge=replay, labels=STYLES), reference, batches, join_lists
        ),
        ddp_pool,
    )


VOCAB = ["bold", "serif", "sans-serif", "italic", "playful", "elegant", "modern", "handwritten"]


@pytest.mark.ddp
def test_judged_font_richness_equals_font_richness_on_the_attributes(tmp_path, ddp_pool):
    from transcreval.functional import font_richness
    from transcreval.functional.judge.posteriq import judged_font_richness, judged_font_richness_stats
    from transcreval.judge.posteriq import JudgedFontRichness

    preds = [img(1400 + i) for i in range(N)]
    attrs = [[VOCAB[(i + k) % len(VOCAB)] for k in range(i % 4)] for i in range(N)]
    failing = {8: '{"attributes": "bold"}'}
    oracle = Oracle()
    for i in range(N):
        shown = [*attrs[i], "glittery"] if i == 2 else attrs[i]  # outside the vocabulary: ignored
        oracle.add("posteriq.font", preds[i], failing.get(i) or wrap({"attributes": shown}, WRAPS[i % 4]))
    batches = [(preds[a:b],) for a, b in SLICES]
    where = index(preds)
    replay = oracle.record(
        tmp_path / "c.sqlite", batches, lambda p, judge: judged_font_richness_stats(p, judge=judge, vocabulary=VOCAB)
    )

    def reference(p):
        kept = [attrs[where[sha(x)]] for x in p if where[sha(x)] not in failing]
        return font_richness(kept, vocabulary=VOCAB).value

    factory = functools.partial(JudgedFontRichness, judge=replay, vocabulary=VOCAB)
    check_metric(
        MetricCase(
            factory,
            lambda p: judged_font_richness(p, judge=replay, vocabulary=VOCAB),
            reference,
            batches,
            join_lists,
            extras_keys=("coverage",),
        ),
        ddp_pool,
    )
    res = extras_total(factory, batches)
    assert res.extras["n_out_of_vocabulary"] == 1 and res.extras["failures"]["unparsable"] == 1
