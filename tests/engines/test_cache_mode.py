"""One table of cache-mode spellings for the judge cache and the feature cache."""

from __future__ import annotations

import pytest

from transcreval.engines.cache_mode import cache_mode
from transcreval.engines.judge.cache import normalise_mode as judge_mode
from transcreval.errors import InputError
from transcreval.features.cache_db import normalise_mode as feature_mode


@pytest.mark.parametrize(
    ("spelling", "mode"),
    [
        *[(s, "read-write") for s in ("read-write", "read_write", "rw", " RW ")],
        *[(s, "read-only") for s in ("read-only", "read_only", "ro", "Read-Only")],
    ],
)
@pytest.mark.parametrize("normalise", [judge_mode, feature_mode])
def test_both_caches_read_the_same_spellings(normalise, spelling, mode):
    assert normalise(spelling) == mode


def test_only_the_judge_cache_can_be_off():
    assert judge_mode("OFF") == "off"
    with pytest.raises(InputError, match=r"^mode must be 'read-write' or 'read-only', got 'off'$"):
        feature_mode("off")


@pytest.mark.parametrize("bad", ["write", "", None, 1, "read write"])
def test_a_bad_mode_names_the_accepted_ones(bad):
    with pytest.raises(InputError, match=r"^cache mode must be 'read-write', 'read-only' or 'off', got "):
        judge_mode(bad)
    with pytest.raises(InputError, match=r"^mode must be 'read-write' or 'read-only', got "):
        feature_mode(bad)
    with pytest.raises(InputError, match=r"^what must be 'off', got "):
        cache_mode(bad, ("off",), "what")
