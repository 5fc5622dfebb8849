"""SeparabilityAUC (transcreval.stats.separability): the module's own checks on the shared cases.

Agreement with the reference lives in tests/stats/test_agreement.py (scipy / scikit-learn, the
harness); see tests/_helpers/module_checks.py.
"""

from __future__ import annotations

import pytest

from tests._helpers.module_checks import check_built, params

MODULE = "transcreval.stats.separability"


def test_the_module_registers_its_metrics():
    from tests._helpers.module_checks import module_metrics

    assert module_metrics(MODULE) == ["SeparabilityAUC"]


@pytest.mark.parametrize("name", params(MODULE))
def test_built_metric_states_round_trip(name):
    check_built(name)
