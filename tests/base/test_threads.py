"""Thread control: torch's intra-op count inside our loops is the one we
choose, and the caller's setting is restored afterwards, on every path."""

from __future__ import annotations

import importlib
from typing import Any, ClassVar

import numpy as np
import pytest
import torch
from PIL import Image

import transcreval.functional.image.hashing as phash_module
import transcreval.io.gray as gray_module
from transcreval import PHashDistance
from transcreval.core import registry
from transcreval.core.metric import Metric
from transcreval.core.result import MetricResult
from transcreval.core.states import Sum
from transcreval.errors import InputError
from transcreval.functional import phash
from transcreval.utils.threads import (
    available_cpus,
    check_num_threads,
    default_threads,
    map_threads,
    torch_threads,
    worker_count,
)


@pytest.fixture
def three_threads():
    """torch at 3 intra-op threads for the test (a count none of our defaults picks here)."""
    before = torch.get_num_threads()
    torch.set_num_threads(3)
    yield 3
    torch.set_num_threads(before)


def test_torch_threads_sets_and_restores(three_threads):
    with torch_threads(1) as n:
        assert n == 1 and torch.get_num_threads() == 1
        with torch_threads(2):
            assert torch.get_num_threads() == 2
        assert torch.get_num_threads() == 1
    assert torch.get_num_threads() == three_threads


def test_torch_threads_restores_on_error(three_threads):
    with pytest.raises(RuntimeError, match="boom"), torch_threads(1):
        raise RuntimeError("boom")
    assert torch.get_num_threads() == three_threads


def test_default_budget_is_torchs_count_capped_by_the_cpus_we_may_use(three_threads):
    assert default_threads() == min(3, available_cpus())
    with torch_threads() as n:
        assert n == torch.get_num_threads() == min(3, available_cpus())
    torch.set_num_threads(1)  # what torch sets inside a DataLoader worker
    assert default_threads() == 1
    assert worker_count(None, items=10) == 1


def test_worker_count():
    assert worker_count(5, items=2) == 2  # never more workers than chunks
    assert worker_count(1, items=10) == 1
    assert 1 <= worker_count(None, items=100) <= min(4, available_cpus())


@pytest.mark.parametrize("bad", [0, -1, 1.5, True, "2"])
def test_num_threads_is_checked(bad):
    with pytest.raises(InputError, match="num_threads"):
        check_num_threads(bad)
    with pytest.raises(InputError, match="num_threads"):
        PHashDistance(num_threads=bad)


def _spy(monkeypatch: pytest.MonkeyPatch, module: Any, name: str) -> list[int]:
    """Record torch's intra-op count each time ``module.name`` runs."""
    seen: ClassVar[list[int]] = []
    real = getattr(module, name)

    def spy(*args: Any, **kwargs: Any) -> Any:
        seen.append(torch.get_num_threads())
        return real(*args, **kwargs)

    monkeypatch.setattr(module, name, spy)
    return seen


def _posters(n: int, seed: int = 0) -> list[Image.Image]:
    rng = np.random.default_rng(seed)
    return [Image.fromarray(rng.integers(0, 256, (300, 200, 3), dtype=np.uint8)) for _ in range(n)]


@pytest.mark.parametrize("num_threads", [1, 2, None])
def test_phash_resize_runs_torch_on_one_thread_and_restores(monkeypatch, three_threads, num_threads):
    seen = _spy(monkeypatch, phash_module, "resize_square")
    grays = _spy(monkeypatch, gray_module, "_gray_items")
    imgs = _posters(4)
    monkeypatch.setattr(phash_module, "_CHUNK_PIXELS", 60_000)  # one image per chunk: several workers
    hashes = phash(imgs, num_threads=num_threads)
    assert seen and set(seen) == {1} and set(grays) == {1}
    assert torch.get_num_threads() == three_threads
    monkeypatch.undo()
    assert torch.equal(hashes, phash(imgs, num_threads=1))


def test_phash_distance_update_restores_the_callers_count(three_threads):
    m = PHashDistance(num_threads=1)
    imgs = _posters(2, seed=1)
    m.update(imgs[:1], imgs[1:])
    assert torch.get_num_threads() == three_threads
    m.compute()
    assert torch.get_num_threads() == three_threads


class _Probe(Metric):
    """Records torch's count inside ``_stats`` and ``_from_stats``."""

    higher_is_better = None
    seen: ClassVar[list[int]] = []

    def __init__(self) -> None:
        super().__init__()
        self.add_state("count", Sum(torch.int64))

    def _stats(self, preds: list[int], target: list[int]) -> dict[str, Any]:
        self.seen.append(torch.get_num_threads())
        return {"count": len(preds)}

    def _from_stats(self, s: dict[str, Any]) -> MetricResult:
        self.seen.append(torch.get_num_threads())
        return MetricResult(float(s["count"]), int(s["count"]), self.signature)


def test_every_metric_update_and_compute_run_on_the_budget_and_restore(three_threads):
    m = _Probe()
    m.seen.clear()
    torch.set_num_threads(1)  # inside a DataLoader worker
    m.update([1], [1])
    torch.set_num_threads(three_threads)
    m.update([1, 2], [1, 2])
    m.compute()
    assert m.seen == [1, min(3, available_cpus()), min(3, available_cpus())]
    assert torch.get_num_threads() == three_threads


def test_the_budget_wraps_the_base_every_registered_metric_uses():
    # the thread budget sits in Metric._batch / Metric.compute, which no registered metric overrides
    for info in registry.list_metrics():
        cls = getattr(importlib.import_module(info.module), info.name)
        assert cls._batch is Metric._batch, info.name
        assert cls.compute is Metric.compute, info.name


# ----------------------------------------------------------------------------- map_threads
def test_map_threads_keeps_order_and_runs_torch_on_one_thread(three_threads):
    import threading

    both = threading.Barrier(2, timeout=60)  # the first two items wait for each other: two threads
    seen: list[tuple[str, int]] = []

    def fn(i: int) -> int:
        seen.append((threading.current_thread().name, torch.get_num_threads()))
        if i < 2:
            both.wait()
        return i * i

    assert map_threads(fn, range(50), num_threads=2) == [i * i for i in range(50)]
    assert {n for _, n in seen} == {1}
    assert len({name for name, _ in seen}) == 2
    assert torch.get_num_threads() == three_threads
    assert map_threads(fn, [], num_threads=2) == []


def test_map_threads_raises_the_first_error_after_the_others_stop(three_threads):
    done: list[int] = []

    def fn(i: int) -> int:
        if i == 3:
            raise ValueError("item 3 is bad")
        done.append(i)
        return i

    with pytest.raises(ValueError, match="item 3"):
        map_threads(fn, range(1000), num_threads=2)
    assert len(done) < 999  # stopped early, not run to the end
    assert torch.get_num_threads() == three_threads
    assert map_threads(lambda i: i + 1, range(5), num_threads=2) == [1, 2, 3, 4, 5]  # the pool still works


def test_map_threads_nested_and_concurrent_calls_finish():
    """A nested call runs in its thread (never waits on a queued task of a busy pool), and calls
    from several user threads at once share the pool without deadlock."""
    from concurrent.futures import ThreadPoolExecutor

    def inner(i: int) -> int:
        return sum(map_threads(lambda j: i * j, range(10), num_threads=4))

    want = [45 * i for i in range(20)]
    assert map_threads(inner, range(20), num_threads=4) == want
    with ThreadPoolExecutor(4) as users:
        results = list(users.map(lambda _: map_threads(inner, range(20), num_threads=4), range(8)))
    assert results == [want] * 8


def _two_threads_meet() -> list[str]:
    """map_threads on 4 items whose first two wait for each other: needs a live helper thread."""
    import threading

    both = threading.Barrier(2, timeout=30)

    def fn(i: int) -> str:
        if i < 2:
            both.wait()
        return threading.current_thread().name

    return map_threads(fn, range(4), num_threads=2)


def test_map_threads_after_fork():
    """A forked child (a DataLoader worker) has none of the parent's pool threads: it builds its
    own pool, whose helper really runs (a pool inherited from the parent would queue the task
    for threads that do not exist, and the caller would do all the work alone)."""
    import multiprocessing

    assert len(set(_two_threads_meet())) == 2  # the parent's pool exists and works
    ctx = multiprocessing.get_context("fork")
    with ctx.Pool(1) as pool:
        names = pool.apply_async(_two_threads_meet).get(timeout=120)
    assert len(set(names)) == 2


def test_map_threads_items_run_in_the_callers_grad_and_inference_mode():
    """torch's modes are thread-local: every item sees the caller's, whichever thread runs it;
    under autocast (which a worker cannot reproduce) the items run in the calling thread."""
    import threading

    def modes(_: int) -> tuple[bool, bool, str]:
        return torch.is_inference_mode_enabled(), torch.is_grad_enabled(), threading.current_thread().name

    with torch.inference_mode():
        assert {m[:2] for m in map_threads(modes, range(40), num_threads=2)} == {(True, False)}
    with torch.no_grad():
        assert {m[:2] for m in map_threads(modes, range(40), num_threads=2)} == {(False, False)}
    assert {m[:2] for m in map_threads(modes, range(40), num_threads=2)} == {(False, True)}
    with torch.autocast("cpu"):
        assert {m[2] for m in map_threads(modes, range(40), num_threads=2)} == {threading.current_thread().name}


def test_map_threads_a_caller_is_not_broken_by_another_growing_the_pool(monkeypatch):
    """Growing the shared pool shuts the old one down; a caller between choosing the pool and
    submitting to it then failed with "cannot schedule new futures after shutdown". Growing and
    submitting are one step under the pool's lock now. Here the first caller pauses inside its
    submit while another caller grows the pool: both must finish with their results."""
    import threading
    from concurrent.futures import ThreadPoolExecutor

    from transcreval.utils import threads

    go = threading.Event()
    paused = threading.Event()

    class PausingPool(ThreadPoolExecutor):
        def submit(self, fn, /, *args, **kwargs):
            if threading.current_thread().name == "first" and not paused.is_set():
                paused.set()
                go.wait(60)
            return super().submit(fn, *args, **kwargs)

    monkeypatch.setattr(threads, "_POOL", threads._Pool())
    monkeypatch.setattr(threads, "ThreadPoolExecutor", PausingPool)
    result: dict[str, object] = {}

    def first() -> None:
        try:
            result["first"] = map_threads(lambda x: x, [1, 2], num_threads=2)
        except RuntimeError as e:  # the failure this test is about
            result["first"] = repr(e)

    t = threading.Thread(target=first, name="first")
    t.start()
    assert paused.wait(60)
    grower = threading.Thread(target=lambda: result.setdefault("second", map_threads(abs, range(8), num_threads=8)))
    grower.start()
    grower.join(1.0)  # before the fix it grew (and shut down) the pool meanwhile; now it waits for the lock
    go.set()
    t.join(60)
    grower.join(60)
    assert result == {"first": [1, 2], "second": list(range(8))}


def test_torch_threads_decorates_and_refuses_to_be_entered_twice_at_once(three_threads):
    @torch_threads(1)
    def inside() -> int:
        return torch.get_num_threads()

    assert inside() == 1 and inside() == 1 and torch.get_num_threads() == three_threads
    block = torch_threads(2)
    with block:
        with pytest.raises(RuntimeError, match="already open"), block:
            pass
        assert torch.get_num_threads() == 2  # the refused entry changed nothing
    assert torch.get_num_threads() == three_threads
    with block:  # one block after another is fine
        assert torch.get_num_threads() == 2
    assert torch.get_num_threads() == three_threads


def test_torch_threads_refuses_a_bad_count_at_once():
    for bad in (0, -1, "2", 2.0, True):
        with pytest.raises(ValueError, match="positive thread count"):
            torch_threads(bad)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"write @torch_threads\(\)"):

        @torch_threads  # type: ignore[arg-type]
        def forgot_the_parentheses() -> None:
            pass
