"""TitleExtraction (transcreval.judge.title_extraction): the module's own checks on the shared
cases.

Agreement with the reference lives in tests/judge/test_metrics.py (the harness against a scripted
oracle, 1/2/4 processes) and the family files beside it; see tests/_helpers/module_checks.py.
"""

from __future__ import annotations

import pytest

from tests._helpers.module_checks import check_built, check_judge_case, params

MODULE = "transcreval.judge.title_extraction"


def test_the_module_registers_its_metrics():
    from tests._helpers.module_checks import module_metrics

    assert module_metrics(MODULE) == ["TitleExtraction"]


@pytest.mark.parametrize("name", params(MODULE))
def test_built_metric_states_round_trip(name):
    check_built(name)


@pytest.mark.parametrize("name", params(MODULE))
def test_scripted_judge_gives_the_case_value(name):
    check_judge_case(name)
