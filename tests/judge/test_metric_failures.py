"""Judge metrics when the judge fails: every status counted, none scored; on_failure="raise";
bad inputs get clear errors."""

from __future__ import annotations

import json

import pytest

from tests.judge.conftest import SECRET
from tests.judge.oracle import img
from transcreval.engines.judge.fake_server import FakeAnswer, FakeHang, FakeHTTPError, FakeOpenAIServer
from transcreval.errors import EmptyInputError, InputError, JudgeFailure
from transcreval.judge import FunctionJudge, JudgeCache, OpenAICompatibleJudge, PromptTemplate
from transcreval.judge.csi_overlap import CSIOverlap
from transcreval.judge.imtbench import AlignmentScore, HarmonizationScore
from transcreval.judge.judge_score import JudgeScore
from transcreval.judge.quiz_hit_rate import QuizHitRate
from transcreval.judge.transcreation_score import VLMTranscreationScore
from transcreval.judge.win_rate import WinRate

CTX = {"target_market": "Japan", "source_market": "USA", "genre": "drama"}


def test_every_failure_status_is_counted_and_none_is_scored(tmp_path):
    """Six items against a live fake endpoint: one of each failure, one valid answer."""
    by_item = {
        0: FakeHTTPError(500, message="boom"),  # api_error (after the retries)
        1: FakeAnswer(None, refusal="I can't"),  # refused
        2: FakeHang(30),  # timeout
        3: FakeAnswer('{"comment": "x", "score": ', finish_reason="length"),  # truncated
        4: FakeAnswer("Nice poster. I'd give it a 4."),  # unparsable
        5: FakeAnswer('{"comment": "fine", "score": 4}'),  # ok
    }
    sources = [img(i) for i in range(6)]
    from transcreval.engines.judge.images import to_image_part

    which = {to_image_part(s).sha256: i for i, s in enumerate(sources)}

    def responder(body):
        import base64
        import io

        from PIL import Image

        url = body["messages"][0]["content"][1]["image_url"]["url"]
        pixels = Image.open(io.BytesIO(base64.b64decode(url.split(",", 1)[1])))
        return by_item[which[to_image_part(pixels).sha256]]

    with FakeOpenAIServer(responder) as server:
        judge = OpenAICompatibleJudge(
            "fake-judge",
            base_url=server.base_url,
            api_key=SECRET,
            cache=tmp_path / "c.sqlite",
            timeout=0.5,
            max_retries=1,
            max_concurrency=6,
        )
        m = JudgeScore(judge=judge, aspect="aesthetic")
        m.update([img(100 + i) for i in range(6)], sources, **CTX)
        res = m.compute()
        assert res.value == 4.0 and res.n == 1
        # per_item lines up with the six inputs: NaN for each failed item, its status beside it
        assert [v for v in res.per_item.tolist() if v == v] == [4.0] and res.per_item.isnan().sum() == 5
        assert res.extras["item_status"] == ["api_error", "refused", "timeout", "truncated", "unparsable", "ok"]
        assert res.extras["n_valid"] == 1 and res.extras["n_failed"] == 5
        assert res.extras["failures"] == {"api_error": 1, "refused": 1, "timeout": 1, "truncated": 1, "unparsable": 1}
        # only the answers that arrived whole are cached: the valid one and the unparsable one
        assert len(JudgeCache(tmp_path / "c.sqlite")) == 2


def test_on_failure_raise_raises_after_the_batch_is_cached(tmp_path):
    answers = iter(['{"score": 3}', "no idea", '{"score": 5}'])
    judge = FunctionJudge(lambda r: next(answers), cache=tmp_path / "c.sqlite")
    m = JudgeScore(judge=judge, on_failure="raise")
    with pytest.raises(JudgeFailure, match=r"1 judge answer\(s\) failed \(unparsable: 1\)"):
        m.update([img(1), img(2), img(3)], [img(4), img(5), img(6)], **CTX)
    assert m.update_count == 0  # nothing was merged
    assert len(JudgeCache(tmp_path / "c.sqlite")) == 3  # but every answer is kept
    skip = JudgeScore(judge=judge.replay())
    assert skip([img(1), img(2), img(3)], [img(4), img(5), img(6)], **CTX).value == 4.0


def test_a_batch_with_only_failures_has_no_value_and_says_why():
    from transcreval.errors import UndefinedValueWarning

    m = JudgeScore(judge=FunctionJudge(lambda r: "I'm sorry, I can't help with that."))
    with pytest.warns(UndefinedValueWarning):
        batch = m([img(1), img(2)], [img(3), img(4)], **CTX)
    assert not batch.defined and "refused: 2" in batch.extras["undefined"]
    with pytest.raises(EmptyInputError, match="refused: 2"):
        m.compute()


@pytest.mark.parametrize(
    ("factory", "call", "match"),
    [
        (lambda j: JudgeScore(judge=j), lambda m: m([img(1)], [img(2), img(3)], **CTX), "1 outputs"),
        (
            lambda j: JudgeScore(judge=j),
            lambda m: m([img(1)], [img(2)], target_market="Japan"),
            "pass source_market=, genre=",
        ),
        (
            lambda j: JudgeScore(judge=j),
            lambda m: m([img(1), img(2)], [img(2), img(3)], **{**CTX, "genre": ["a"]}),
            "genre has 1 values for 2 items",
        ),
        (lambda j: JudgeScore(judge=j), lambda m: m(["/no/such/file.png"], [img(2)], **CTX), "no such file"),
        (lambda j: JudgeScore(judge=j), lambda m: m([img(1)], ["not-an-image"], **CTX), "no such file"),
        (lambda j: WinRate(judge=j), lambda m: m([img(1)], [img(2)], item_ids="x", **CTX), "one id per item"),
        (lambda j: QuizHitRate(judge=j), lambda m: m([img(1)], ["drama"]), "options= .* or labels="),
        (lambda j: QuizHitRate(judge=j), lambda m: m([img(1)], ["drama"], options=[["a", "b"]]), "not among"),
        (lambda j: QuizHitRate(judge=j, labels=["drama", "x"]), lambda m: m([img(1)], ["drama"]), "needs more"),
        (lambda j: AlignmentScore(judge=j), lambda m: m([img(1)], "text"), "a list with the system's translation"),
        (lambda j: CSIOverlap(judge=j), lambda m: m([img(1)], [img(2)], category="food"), "country is required"),
        (lambda j: VLMTranscreationScore(judge=j, aspect="intent"), lambda m: m([img(1)], [img(2)]), "pass category="),
    ],
)
def test_bad_inputs_are_clear_errors(factory, call, match):
    judge = FunctionJudge(lambda r: '{"score": 3}')
    with pytest.raises(InputError, match=match):
        call(factory(judge))


@pytest.mark.parametrize(
    ("build", "match"),
    [
        (lambda j: JudgeScore(judge=None), "needs a judge"),
        (lambda j: JudgeScore(judge="gpt-4o"), "complete\\(requests\\)"),
        (lambda j: JudgeScore(judge=j, aspect="beauty"), "aspect must be"),
        (lambda j: JudgeScore(judge=j, on_failure="ignore"), "on_failure"),
        (lambda j: JudgeScore(judge=j, template="no-such-template"), "neither a file nor a built-in"),
        (lambda j: WinRate(judge=j, seed=1.5), "seed must be an integer"),
        (lambda j: QuizHitRate(judge=j, kind="budget"), "kind must be"),
        (lambda j: QuizHitRate(judge=j, n_options=1), "n_options"),
        (lambda j: HarmonizationScore(judge=j, combine="max"), "combine"),
        (lambda j: CSIOverlap(judge=j, matching="fuzzy"), "matching"),
        (lambda j: CSIOverlap(judge=j, templates={"detect": "x"}), "may replace the steps"),
        (lambda j: CSIOverlap(judge=j, template="x"), "templates="),
        (lambda j: VLMTranscreationScore(judge=j, aspect="style"), "aspect must be"),
    ],
)
def test_bad_options_fail_when_the_metric_is_built(build, match):
    with pytest.raises(InputError, match=match):
        build(FunctionJudge(lambda r: "{}"))


def test_a_template_from_a_file_replaces_the_wording_and_the_cache_key(tmp_path):
    seen = []

    def fn(request):
        seen.append((request.template_id, request.text))
        return json.dumps({"aesthetic_score": 2, "adaptation_score": 5})  # the paper's published keys

    f = tmp_path / "published.txt"
    f.write_text(
        "---\nid: mptc.direct-published\nversion: 2026\n---\nSRC {image:source} TGT {image:output} "
        "market {target_market}\n"
    )
    judge = FunctionJudge(fn)
    a = JudgeScore(judge=judge, aspect="aesthetic", template=str(f))([img(1)], [img(2)], **CTX)
    b = JudgeScore(judge=judge, aspect="adaptation", template=str(f))([img(1)], [img(2)], **CTX)
    assert (a.value, b.value) == (2.0, 5.0)
    assert seen[0] == ("mptc.direct-published", "SRC\nTGT\nmarket Japan")
    assert "tpl:mptc.direct-published@2026" in str(a.signature)
    t = PromptTemplate.from_file(f)
    assert JudgeScore(judge=judge, template=t).template is t


def test_judge_metrics_pickle_and_clone_without_the_key(tmp_path, monkeypatch):
    import pickle

    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with FakeOpenAIServer() as server:
        judge = OpenAICompatibleJudge("fake-judge", base_url=server.base_url, api_key=SECRET)
        m = HarmonizationScore(judge=judge, reference=False)
        m.update([img(1)])
        assert SECRET.encode() not in pickle.dumps(m)
        twin = m.clone()
        assert twin.judge is judge  # clones share the judge (a service, not a state)
        restored = pickle.loads(pickle.dumps(m))
        assert restored.compute().value == m.compute().value


# ---------------------------------------------------------------------- review 11: a missing item is an error
@pytest.mark.parametrize("missing", [None, float("nan")])
@pytest.mark.parametrize(
    ("name", "build", "run"),
    [
        (
            "translations",
            lambda j: AlignmentScore(judge=j),
            lambda m, tr: m([img(1), img(2)], tr),
        ),
        (
            "target_market",
            lambda j: JudgeScore(judge=j),
            lambda m, v: m([img(1), img(2)], [img(3), img(4)], **{**CTX, "target_market": v}),
        ),
        (
            "genre",
            lambda j: WinRate(judge=j),
            lambda m, v: m([img(1), img(2)], [img(3), img(4)], **{**CTX, "genre": v}),
        ),
        (
            "country",
            lambda j: VLMTranscreationScore(judge=j),
            lambda m, v: m([img(1), img(2)], [img(3), img(4)], country=v),
        ),
        (
            "category",
            lambda j: CSIOverlap(judge=j, matching="exact"),
            lambda m, v: m([img(1), img(2)], [img(3), img(4)], country="India", category=v),
        ),
    ],
)
@pytest.mark.parametrize("where", [0, 1])
def test_a_missing_value_in_a_per_item_list_is_an_error_before_any_call(name, build, run, where, missing):
    calls = []

    def fn(r):
        calls.append(r.template_id)
        if r.template_id.startswith("khanuja.csi-objects"):
            return '{"objects": ["bread"]}'
        return '{"score": 3, "alignment": 3, "preferred": "A", "first_score": 2, "second_score": 3, "replacements": {}}'

    values = ["Grand opening" if name == "translations" else "x"] * 2
    values[where] = missing
    with pytest.raises(InputError, match=rf"{name} has no value \(None or NaN\) for item\(s\) {where} of 2"):
        run(build(FunctionJudge(fn)), values)
    assert [c for c in calls if not c.startswith("khanuja.csi-objects")] == []
