"""The judge section of the demo: a labelled fake judge by default, TRANSCREVAL_JUDGE_URL when set."""

from __future__ import annotations

import io
from statistics import mean

from sacrebleu.metrics import CHRF

from transcreval.data.demo_set import build_demo_set
from transcreval.demo import DemoContext, run_demo
from transcreval.demo.judges import run as run_judge_demo
from transcreval.engines.judge.fake_server import FakeOpenAIServer


def run(monkeypatch, **env):
    for k in ("TRANSCREVAL_JUDGE_URL", "TRANSCREVAL_JUDGE_MODEL", "TRANSCREVAL_JUDGE_CACHE"):
        monkeypatch.delenv(k, raising=False)
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    buf = io.StringIO()
    posters = build_demo_set()
    run_judge_demo(DemoContext(posters, list(posters[0].outputs)), buf)
    return buf.getvalue()


def test_fake_judge_is_labelled_and_every_metric_runs(monkeypatch):
    text = run(monkeypatch)
    assert text.startswith("judge: a FAKE judge on loopback, not a model.")
    assert "TRANSCREVAL_JUDGE_URL" in text
    for name in ("TitleExtraction", "QuizHitRate", "JudgeScore aesthetic", "WinRate", "MarketPreferenceRate",
                 "VLM cultural", "CSIOverlap", "HarmonizationScore", "AlignmentScore", "JudgedPointScore",
                 "JudgedStyleScore", "JudgedFontRichness"):  # fmt: skip
        row = next(line for line in text.splitlines() if line.startswith(name))
        assert "no value" not in row and row.count("0 failed") == 2, row


def test_title_column_is_chrf_of_the_titles_through_http(monkeypatch):
    """The fake reads back the drawn titles, so the number is sacrebleu's chrF of those titles:
    the whole path (PNG data URLs, HTTP, the SDK, parsing, states) carried them intact."""
    posters = build_demo_set()
    text = run(monkeypatch)
    row = next(line for line in text.splitlines() if line.startswith("TitleExtraction")).split()
    chrf = CHRF()
    for col, system in ((2, "text-edit"), (7, "redesign")):
        expected = mean(chrf.sentence_score(p.output_titles[system], [p.target_title]).score for p in posters)
        assert row[col] == f"{expected:.2f}"


def test_a_real_endpoint_from_the_environment(monkeypatch, tmp_path):
    with FakeOpenAIServer(model="served-model") as server:
        text = run(
            monkeypatch, TRANSCREVAL_JUDGE_URL=server.base_url, TRANSCREVAL_JUDGE_CACHE=str(tmp_path / "c.sqlite")
        )
        assert text.startswith(f"judge: served-model at {server.base_url}")
        assert "FAKE" not in text
        assert (tmp_path / "c.sqlite").exists() and server.request_count > 0


def test_an_unusable_endpoint_is_reported_not_raised(monkeypatch):
    text = run(monkeypatch, TRANSCREVAL_JUDGE_URL="http://127.0.0.1:9/v1")
    assert text.startswith("judge metrics skipped:")


def test_the_demo_tour_runs_the_judge_section(monkeypatch):
    monkeypatch.delenv("TRANSCREVAL_JUDGE_URL", raising=False)
    buf = io.StringIO()
    assert run_demo(buf, sections=("judges",), tour=True, evaluate=False) == 0
    text = buf.getvalue()
    assert "== VLM-judge metrics" in text and "a FAKE judge on loopback" in text and "TitleExtraction" in text


def test_an_endpoint_rejecting_the_key_stops_the_section_with_its_message(monkeypatch):
    from transcreval.engines.judge.fake_server import FakeHTTPError

    with FakeOpenAIServer(lambda body: FakeHTTPError(401, message="Incorrect API key provided")) as server:
        text = run(monkeypatch, TRANSCREVAL_JUDGE_URL=server.base_url, TRANSCREVAL_JUDGE_MODEL="m")
        sent = server.request_count
    assert "judge metrics stopped at TitleExtraction (chrF): JudgeConfigError:" in text
    assert "rejected the API key (HTTP 401)" in text and "no value" not in text
    assert sent <= 8  # one batch at most (8 in flight); before: at least one call for each of 26 cells


def test_an_unreachable_endpoint_with_a_model_stops_at_once(monkeypatch):
    from transcreval.engines.judge.openai_judge import OpenAICompatibleJudge

    monkeypatch.setitem(OpenAICompatibleJudge.__init__.__kwdefaults__, "max_retries", 0)  # no backoff in a test
    text = run(monkeypatch, TRANSCREVAL_JUDGE_URL="http://127.0.0.1:9/v1", TRANSCREVAL_JUDGE_MODEL="m")
    assert "judge metrics stopped at TitleExtraction (chrF): JudgeUnreachableError: the judge endpoint" in text
    assert "never answered" in text and text.count("JudgeUnreachableError") == 1
