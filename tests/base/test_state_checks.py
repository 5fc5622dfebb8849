"""States made with other options never combine.

``load_state_dict``, ``merge_state`` (of a metric or of a mapping), ``sync`` and a collection's
compute refuse states made by a metric built with other options, and ``load_state_dict`` /
``merge_state`` refuse negative counts. The mechanism lives in the Metric base
(:mod:`transcreval.core.state_checks`); the family-wide test runs it on every registered metric.
"""

from __future__ import annotations

from typing import Any

import pytest
import torch

from tests._helpers.comet_env import registry_params
from tests._helpers.every_metric import BUILDERS, build
from transcreval import MetricCollection, TitleChrF, WordRecall
from transcreval.core.metric import Metric
from transcreval.core.registry import list_metrics
from transcreval.core.state_checks import SIGNATURE_STATE
from transcreval.core.states import Sum
from transcreval.errors import InputError, StateMismatchError

NAMES = [m.name for m in list_metrics()]
LOW = torch.iinfo(torch.int64).min


def _pairing_gather(other: Metric) -> Any:
    """A 2-rank gather whose second rank is ``other``: its buffers are recorded by running its
    own sync first, then served in the same order beside this rank's."""
    recorded: list[torch.Tensor] = []

    def record(t: torch.Tensor, group: Any) -> list[torch.Tensor]:
        recorded.append(t.clone())
        return [t.clone()]

    other.dist_sync_fn, other.distributed_available_fn = record, lambda: True
    other.synced_state()
    it = iter(recorded)

    def pair(t: torch.Tensor, group: Any) -> list[torch.Tensor]:
        return [t.clone(), next(it).to(t.device)]

    return pair


def test_builders_cover_the_registry():
    assert set(BUILDERS) == set(NAMES)


def _same_states(a: dict[str, Any], b: dict[str, Any]) -> bool:
    if a.keys() != b.keys():
        return False
    for k, v in a.items():
        w = b[k]
        if isinstance(v, torch.Tensor):
            if not (isinstance(w, torch.Tensor) and v.shape == w.shape and torch.equal(v, w)):
                return False
        elif isinstance(v, (list, tuple)) and v and isinstance(v[0], torch.Tensor):
            if len(v) != len(w) or not all(torch.equal(x, y) for x, y in zip(v, w)):
                return False
        elif v != w:
            return False
    return True


@pytest.mark.parametrize("name", registry_params(NAMES))
def test_every_built_metric_is_its_registered_class_and_its_states_round_trip(name):
    """The shared builder gives an instance of the registered class, whose states survive
    ``state_dict`` / ``load_state_dict`` into a second instance, ``clone`` and ``reset``."""
    from transcreval.core.registry import get_metric

    metric = build(name)
    assert type(metric) is get_metric(name).load(), f"{name}: the builder made a {type(metric).__name__}"
    other = build(name)
    other.load_state_dict(metric.state_dict())
    assert _same_states(other.state_dict(), metric.state_dict())
    assert _same_states(metric.clone().state_dict(), metric.state_dict())
    metric.reset()
    assert _same_states(metric.state_dict(), build(name).state_dict())


@pytest.mark.parametrize("name", registry_params(NAMES))
def test_every_metric_refuses_states_made_with_other_options(name):
    m = build(name)
    cls = type(m)
    for method in ("load_state_dict", "merge_state", "state_dict", "synced_state", "sync", "_batch", "_foreign"):
        assert getattr(cls, method) is getattr(Metric, method), f"{name} overrides {method}: the checks may not apply"
    sd = m.state_dict()
    assert SIGNATURE_STATE in sd and sd[SIGNATURE_STATE].tolist() == [LOW, LOW]
    m.load_state_dict(sd)  # an empty state of the same metric loads
    own = m._options_id()
    for forged in ([own + 1, -(own + 1)], [own + 1, -own]):  # another setup; two setups mixed
        bad = {**sd, SIGNATURE_STATE: torch.tensor(forged)}
        with pytest.raises(StateMismatchError, match="other options"):
            m.load_state_dict(bad)
        with pytest.raises(StateMismatchError, match="other options"):
            m.merge_state(bad)
    assert m.state_dict()[SIGNATURE_STATE].tolist() == [LOW, LOW]  # nothing was merged
    # a negative count (n=-5 gave a chrF of -234.8)
    counts = [n for n, s in m.state_specs.items() if isinstance(s, Sum) and not s.dtype.is_floating_point]
    for n in counts:
        neg = {**sd, n: torch.full_like(sd[n], -5)}
        with pytest.raises(InputError, match="negative count"):
            m.load_state_dict(neg)
        with pytest.raises(InputError, match="negative count"):
            m.merge_state(neg)
    # a rank whose metric has other options: sync refuses, on this rank as on the other
    other = build(name)
    other._options_digest = own + 7  # stands for other options (same state layout)
    other.load_state_dict({**sd, SIGNATURE_STATE: torch.tensor([own + 7, -(own + 7)])})
    m.dist_sync_fn, m.distributed_available_fn = _pairing_gather(other), lambda: True
    with pytest.raises(StateMismatchError, match="sync"):
        m.compute()


def test_title_chrf_lowercase_states_never_mix():
    """The issue's example: lowercase=False and True gave 60.30 together (locally 20.6 and 100)."""
    a, b = TitleChrF(lowercase=False), TitleChrF(lowercase=True)
    a.update(["LE VOYAGE"], ["le voyage"])
    b.update(["LE VOYAGE"], ["le voyage"])
    with pytest.raises(StateMismatchError, match="other options"):
        a.load_state_dict(b.state_dict())
    with pytest.raises(StateMismatchError, match="other options"):
        a.merge_state(b.state_dict())
    with pytest.raises(StateMismatchError, match="options differ"):
        a.merge_state(b)
    with pytest.raises(TypeError):  # StateMismatchError is a TypeError for merge_state(metric), as before
        a.merge_state(b)
    # the same options: through torch.save as well
    import io

    buf = io.BytesIO()
    torch.save(a.state_dict(), buf)
    buf.seek(0)
    c = TitleChrF(lowercase=False)
    c.load_state_dict(torch.load(buf, weights_only=True))
    assert c.compute().value == a.compute().value


def _mixed_options_task(rank: int, world: int, group: Any) -> str:
    m = TitleChrF(lowercase=rank == 1, process_group=group)
    m.update(["LE VOYAGE"], ["le voyage"])
    try:
        m.compute()
    except StateMismatchError as e:
        return f"refused: {e}"
    return "combined"


def _same_options_task(rank: int, world: int, group: Any) -> float:
    col = MetricCollection({"t": TitleChrF(process_group=group), "w": WordRecall(process_group=group)})
    col.update(["le voyage"], ["le voyage"])
    return col.compute()["t"].value


def _collection_mixed_task(rank: int, world: int, group: Any) -> str:
    col = MetricCollection(
        {"t": TitleChrF(lowercase=rank == 1, process_group=group), "w": WordRecall(process_group=group)}
    )
    col.update(["LE VOYAGE"], ["le voyage"])
    try:
        col.compute()
    except StateMismatchError as e:
        return f"refused: {e}"
    return "combined"


@pytest.mark.ddp
def test_ranks_built_with_other_options_are_refused_at_sync(ddp_pool):
    for out in ddp_pool.run(_mixed_options_task, 2):
        assert out.startswith("refused") and "TitleChrF.sync()" in out and "every rank" in out
    for out in ddp_pool.run(_collection_mixed_task, 2):
        assert out.startswith("refused") and "TitleChrF" in out
    assert ddp_pool.run(_same_options_task, 2) == [100.0, 100.0]


def test_masked_lpips_min_coverage_is_in_the_signature():
    """``min_coverage`` decides the low_coverage count, so it is an option of the
    states: two thresholds have different signatures and their states never merge."""
    from tests._helpers.every_metric import squeeze_trunk
    from transcreval import MaskedLPIPS

    a = MaskedLPIPS(net="squeeze", weights=squeeze_trunk(), min_coverage=0.05)
    b = MaskedLPIPS(net="squeeze", weights=squeeze_trunk(), min_coverage=0.5)
    assert a.signature != b.signature and "min_cov:0.5" in str(b.signature)
    x = torch.rand(1, 3, 32, 32, generator=torch.Generator().manual_seed(0))
    mask = torch.zeros(32, 32, dtype=torch.bool)
    mask[:8] = True  # 25% coverage: low for b, fine for a
    b.update(x, x, mask)
    with pytest.raises(StateMismatchError):
        a.merge_state(b)
    with pytest.raises(StateMismatchError):
        a.load_state_dict(b.state_dict())


def test_list_options_of_one_length_give_different_signatures():
    """A label list or vocabulary entered the signature as its length: two lists of one length
    had one signature, so their states merged."""
    from transcreval import FontRichness, QuadraticWeightedKappa, StyleScore
    from transcreval.functional.choice.style_score import POSTERIQ_STYLES

    other17 = [*POSTERIQ_STYLES[:-1], "Vaporwave"]
    pairs = [
        (StyleScore(labels=list(POSTERIQ_STYLES[::-1])), StyleScore(labels=other17)),
        (FontRichness(vocabulary=["bold", "serif"]), FontRichness(vocabulary=["bold", "italic"])),
        (QuadraticWeightedKappa(labels=[1, 2, 3]), QuadraticWeightedKappa(labels=[0, 1, 2])),
    ]
    for a, b in pairs:
        assert a.signature != b.signature
        with pytest.raises(StateMismatchError):
            a.merge_state(b)
    assert "labels:posteriq17" in str(StyleScore().signature)  # the default prints as before
