"""``fixed_batches(spread=True)``: chunks on the budget's workers with one torch thread each, in
order, under the caller's no-grad/inference mode; the same values whatever the chunking."""

from __future__ import annotations

import threading

import pytest
import torch

from transcreval.features.images import FIXED_BATCH, fixed_batches
from transcreval.utils.threads import torch_threads


def _net() -> torch.nn.Module:
    torch.manual_seed(0)
    return torch.nn.Sequential(torch.nn.Conv2d(3, 8, 3), torch.nn.ReLU(), torch.nn.Flatten(), torch.nn.LazyLinear(5))


def test_spread_matches_chunks_on_one_thread_and_keeps_order():
    net = _net()
    x = torch.rand(11, 3, 12, 12)
    with torch.inference_mode():
        net(x[:1])
        with torch_threads(1):
            k = FIXED_BATCH["cpu"]
            want = torch.cat([net(torch.cat([c, c[-1:].expand(k - len(c), -1, -1, -1)]))[: len(c)] for c in x.split(k)])
        with torch_threads(2):
            got = fixed_batches(net, x, spread=True)
        for n in (1, 3, 4, 11):  # any batching, one thread or two: the same values
            with torch_threads(2):
                parts = [fixed_batches(net, c, spread=True) for c in x.split(n)]
            assert torch.equal(torch.cat(parts), want)
    assert torch.equal(got, want)


def test_spread_workers_run_one_torch_thread_in_the_callers_mode():
    seen = []
    both = threading.Barrier(2, timeout=60)  # the first two chunks wait for each other: two threads

    def fn(c: torch.Tensor) -> torch.Tensor:
        seen.append((threading.current_thread().name, torch.get_num_threads(), torch.is_inference_mode_enabled()))
        if len(seen) <= 2:
            both.wait()
        return c * 2

    x = torch.rand(4 * FIXED_BATCH["cpu"], 3)  # four chunks
    with torch.inference_mode(), torch_threads(2):
        out = fixed_batches(fn, x, spread=True)
    assert torch.equal(out, x * 2)
    assert len(seen) == 4
    assert all(n == 1 and inference for _, n, inference in seen)
    assert any(name.startswith("transcreval-map") for name, _, _ in seen)
    seen.clear()
    with torch.no_grad(), torch_threads(2):
        fixed_batches(fn, x, spread=True)
    assert all(n == 1 and not inference for _, n, inference in seen)


@pytest.mark.parametrize("spread", [False, True])
def test_gradients_keep_the_callers_thread(spread):
    """With a gradient to record the chunks run in the calling thread (autograd and its
    thread-local grad mode untouched), as without ``spread``."""
    names = []

    def fn(c: torch.Tensor) -> torch.Tensor:
        names.append(threading.current_thread().name)
        return c * 3

    x = torch.rand(9, 2, requires_grad=True)
    with torch_threads(2):
        out = fixed_batches(fn, x, spread=spread)
    out.sum().backward()
    assert torch.equal(x.grad, torch.full_like(x, 3.0))
    assert set(names) == {threading.current_thread().name}


def test_chunk_rows_small_networks_take_larger_chunks_and_stay_invariant():
    """A network under SMALL_NETWORK's parameter count runs on the CPU in chunks of its rows (its
    per-op cost dominates a small chunk), a larger one in FIXED_BATCH's: still one fixed size per
    network, so a row's value does not depend on the batch it came in."""
    from transcreval.features.images import SMALL_NETWORK, chunk_rows

    small = _net()
    small(torch.rand(1, 3, 12, 12))
    big = torch.nn.Linear(2000, 2000)  # 4,002,000 parameters
    assert chunk_rows(small, "cpu") == SMALL_NETWORK[1]
    assert chunk_rows(big, "cpu") == FIXED_BATCH["cpu"]
    assert chunk_rows(small, "cuda") == FIXED_BATCH["cuda"]
    rows = chunk_rows(small, "cpu")
    x = torch.rand(rows + 5, 3, 12, 12)  # crosses a chunk edge
    with torch.inference_mode(), torch_threads(2):
        whole = fixed_batches(small, x, rows, spread=True)
        for n in (1, 7, rows):
            assert torch.equal(torch.cat([fixed_batches(small, c, rows, spread=True) for c in x.split(n)]), whole)
