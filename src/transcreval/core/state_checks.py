"""Checks on metric states that come from elsewhere: a ``state_dict``, ``merge_state``, a sync.

States carry no options, so every metric keeps one more state, ``signature_check``: a
``Max(int64, (2,))`` holding ``[id, -id]`` where ``id`` is a 62-bit digest of the metric's class
name and signature options (:func:`options_id`). Merging takes the element-wise maximum, so
states of one setup keep ``[id, -id]``, states mixed from two setups (through
``load_state_dict``, ``merge_state`` of a mapping, or ranks built differently and synced) end
up with ``max != -(-max)``, and an empty state keeps the initial ``[min, min]``. The check costs
no extra collective of its own: it travels in the packed ``all_reduce(MAX)`` of int64 states.

:func:`check_counts` refuses negative integer counts (``Sum`` states of an integer dtype), which
only a hand-edited or corrupt ``state_dict`` can hold (``n=-5`` would give a chrF of -234.8).
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Any

import torch

from transcreval.core.states import Max, State, Sum
from transcreval.errors import InputError, StateMismatchError

#: the name of the state every metric keeps for :func:`check_signature_state`
SIGNATURE_STATE = "signature_check"
_EMPTY = torch.iinfo(torch.int64).min

__all__ = [
    "SIGNATURE_STATE",
    "check_counts",
    "check_keys",
    "check_signature_state",
    "list_digest",
    "options_id",
    "signature_spec",
    "signature_value",
]


def list_digest(values: Any) -> str:
    """A short printable id of a list option (labels, a vocabulary): ``<length>@<8 hex digits>``,
    so two different lists of one length give two signatures."""
    items = [str(v) for v in values]
    digest = hashlib.sha256("\x00".join(items).encode("utf-8", "surrogatepass")).hexdigest()[:8]
    return f"{len(items)}@{digest}"


def signature_spec() -> Max:
    """The declaration of the ``signature_check`` state."""
    return Max(torch.int64, (2,))


def options_id(name: str, options: Mapping[str, Any]) -> int:
    """A positive 62-bit digest of a metric's class name and signature options."""
    text = repr((name, sorted((str(k), repr(v)) for k, v in options.items())))
    digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).digest()
    return (int.from_bytes(digest[:8], "big") >> 2) + 1


def signature_value(own_id: int, device: torch.device | str | None = None) -> torch.Tensor:
    """The ``signature_check`` statistic of one batch: ``[id, -id]``."""
    return torch.tensor([own_id, -own_id], dtype=torch.int64, device=device)


def check_signature_state(value: Any, own_id: int, metric: Any, where: str) -> None:
    """StateMismatchError unless ``value`` is empty or was made with this metric's options only."""
    got = [int(x) for x in torch.as_tensor(value).reshape(-1).tolist()]
    if got == [_EMPTY, _EMPTY] or got == [own_id, -own_id]:
        return
    mixed = len(got) == 2 and got[0] != -got[1]
    how = (
        f"the states mix {metric.name}s built with different options, at least one with other options than"
        if mixed
        else f"the states were made by a {metric.name} built with other options than"
    )
    fix = {
        "sync": "build the metric with the same options on every rank",
        "load_state_dict": "load states only into a metric built with the same options",
        "merge_state": "merge only states of metrics built with the same options",
    }.get(where, "combine only states of metrics built with the same options")
    raise StateMismatchError(
        f"{metric.name}.{where}(): {how} this one ({metric!r}); their states differ, and combining them would "
        f"mix two metrics: {fix}"
    )


def check_counts(specs: Mapping[str, State], state: Mapping[str, Any], metric: Any, where: str) -> None:
    """InputError when an integer count state (``Sum`` of an integer dtype) holds a negative value."""
    for name, spec in specs.items():
        if isinstance(spec, Sum) and not spec.dtype.is_floating_point and name in state:
            t = torch.as_tensor(state[name])
            if t.numel() and bool((t < 0).any()):
                raise InputError(
                    f"{metric.name}.{where}(): state {name!r} holds a negative count ({t.min().item()}); counts are "
                    "never negative: the state dict was edited or is corrupt"
                )


def check_keys(specs: Mapping[str, State], state: Mapping[str, Any], metric: Any, what: str) -> None:
    """A state dict from elsewhere must have exactly the metric's state names (else KeyError)."""
    missing = set(specs) - set(state)
    extra = set(state) - set(specs)
    if missing or extra:
        raise KeyError(
            f"{what}: keys do not match {metric.name}'s states: missing {sorted(missing)}, "
            f"unexpected {sorted(map(str, extra))}"
        )
