"""The Metric base is the ground floor: importing it loads nothing from the layers above.

Each import runs in a fresh interpreter (the test process has loaded everything by now), and the
loaded ``transcreval.*`` modules are compared against the packages that sit above the base.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

#: packages above the ground floor: importing the base must load none of their modules
ABOVE = ("features", "weights", "engines", "protocols", "runs", "report")


def _loaded_after(statement: str) -> list[str]:
    probe = (
        "import sys, json\n"
        f"{statement}\n"
        "print(json.dumps(sorted(m for m in sys.modules if m == 'transcreval' or m.startswith('transcreval.'))))"
    )
    out = subprocess.run([sys.executable, "-c", probe], check=True, capture_output=True, text=True, timeout=300)
    return list(json.loads(out.stdout.strip().splitlines()[-1]))


@pytest.mark.parametrize(
    "statement",
    [
        "import transcreval",
        "import transcreval.errors",
        "import transcreval.core.metric",
        "from transcreval.core.metric import Metric",
        "import transcreval.core.collection",
        "import transcreval.core.aggregate_metric",
    ],
)
def test_the_base_loads_no_module_from_above(statement):
    loaded = _loaded_after(statement)
    assert "transcreval" in loaded  # the probe saw the package (a typo in it would find nothing)
    above = [m for m in loaded if m.split(".")[1:2] and m.split(".")[1] in ABOVE]
    assert not above, f"`{statement}` loads {len(above)} module(s) from above the base: {above}"


def test_metric_is_one_class_without_mixins():
    """The whole base reads in one class: no mixin bases (whose attributes would be declared in
    another file), and nothing of the held update calls, which only the open_clip metrics use."""
    from transcreval.core.metric import Metric

    assert Metric.__mro__ == (Metric, object)
    assert not [n for n in vars(Metric) if "held" in n.lower() or "defer" in n.lower()]


def test_a_metric_that_holds_calls_builds_on_the_base():
    """The held calls are a Metric subclass the open_clip metrics opt into (so it uses the base's
    attributes rather than declaring them); the base never imports it."""
    from transcreval.core.held_calls import HeldCalls
    from transcreval.core.metric import Metric
    from transcreval.multimodal.embedding_similarity import EmbeddingMetric

    assert issubclass(HeldCalls, Metric) and issubclass(EmbeddingMetric, HeldCalls)
    assert not vars(HeldCalls).get("__annotations__"), "HeldCalls declares attributes it does not own"
