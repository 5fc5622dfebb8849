"""MaskedLPIPS, BackgroundPreservation (transcreval.image.masked_lpips): the module's own checks on
the shared cases.

Agreement with the reference lives in tests/image/test_lpips.py (agreement with the lpips package,
the harness, masks); see tests/_helpers/module_checks.py.
"""

from __future__ import annotations

import pytest

from tests._helpers.module_checks import check_built, params

MODULE = "transcreval.image.masked_lpips"


def test_the_module_registers_its_metrics():
    from tests._helpers.module_checks import module_metrics

    assert module_metrics(MODULE) == ["BackgroundPreservation", "MaskedLPIPS"]


@pytest.mark.parametrize("name", params(MODULE))
def test_built_metric_states_round_trip(name):
    check_built(name)
