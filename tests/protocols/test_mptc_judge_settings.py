"""MPTc-Bench App. A.3, Table 6: the decoding settings of each judge call type.

The paper's table, read from the paper (not from our code): the judge's *evaluation* calls
(title reading, quizzes, aesthetic/adaptation scores, pairwise win) run at temperature 0.0
with at most 1,024 tokens; its *validation* calls (the market-preference control task) at
temperature 0.0 with at most 512 tokens. (The planner rows, temperature 0.2, are the systems'
calls, not the evaluation's.) A judge built with its defaults must send exactly these.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests._helpers.mptc_set import ScriptedJudge, build, image
from transcreval.functional.judge.win_rate import market_preference_rate
from transcreval.judge import FunctionJudge
from transcreval.protocols import mptc

#: Table 6 of the paper: call type -> (temperature, max tokens)
TABLE6 = {"evaluation": (0.0, 1024), "validation": (0.0, 512)}
EVALUATION = ("mptc.title", "mptc.quiz", "mptc.aesthetic+adaptation", "mptc.aesthetic", "mptc.adaptation",
              "mptc.pairwise")  # fmt: skip


class Recording(FunctionJudge):
    """A scripted judge that notes the decoding parameters each call was sent with."""

    def __init__(self, fn: Any, params: dict[str, Any]) -> None:
        super().__init__(fn, model="recording", params=params)
        self.sent: dict[str, set[tuple[Any, Any]]] = {}

    def _call(self, request, params):
        self.sent.setdefault(request.template_id, set()).add((params.get("temperature"), params.get("max_tokens")))
        return super()._call(request, params)


def _default_params() -> dict[str, Any]:
    """The decoding parameters of an OpenAI-compatible judge built with its defaults."""
    pytest.importorskip("openai")
    from transcreval.judge import OpenAICompatibleJudge

    return dict(OpenAICompatibleJudge("gpt-5.1", base_url="http://127.0.0.1:9/v1", api_key="sk-test").params)


def test_each_mptc_call_type_gets_table6_settings():
    items, outputs, who = build()
    data = mptc.load(items, outputs, split_by="field")
    scripted = ScriptedJudge(who)

    def answer(request):
        if request.template_id == "mptc.market":
            return '{"reason": "r", "preferred": "A"}'
        return scripted(request)

    judge = Recording(answer, _default_params())
    mptc.judge_tables(data, judge=judge)
    mptc.judge_tables(data, judge=judge, judge_call="separate")
    # the validation task: MarketPreferenceRate (the 96.8% control of Fig. 4)
    preds, target = [image(700 + i) for i in range(3)], [image(800 + i) for i in range(3)]
    market_preference_rate(preds, target, judge=judge, target_market="Japan")
    assert set(judge.sent) == {*EVALUATION, "mptc.market"}
    for tid in EVALUATION:
        assert judge.sent[tid] == {TABLE6["evaluation"]}, tid
    assert judge.sent["mptc.market"] == {TABLE6["validation"]}
