"""Where unbabel-comet cannot be imported (the main environment: it pins numpy < 2), COMETScore
says so when it is built, naming the extra, instead of failing at the first update."""

from __future__ import annotations

import pytest

from transcreval.errors import MissingDependencyError


def _comet_imports() -> bool:
    try:
        import comet  # noqa: F401
    except Exception:
        return False
    return True


@pytest.mark.skipif(_comet_imports(), reason="comet imports here (the `make test-comet` venv)")
def test_without_comet_the_metric_says_how_to_get_it():
    from transcreval import COMETScore
    from transcreval.functional import comet_score

    with pytest.raises(MissingDependencyError, match=r"transcreval\[comet\]|own environment"):
        COMETScore()
    with pytest.raises(MissingDependencyError):
        comet_score(["a"], ["b"], ["c"])


def test_bad_options_fail_before_comet_is_needed():
    from transcreval.errors import InputError
    from transcreval.functional.text.comet import COMETOptions, check_normalize, comet_samples, normalize_scores

    with pytest.raises(InputError, match="normalize must be"):
        check_normalize("clip")
    for bad, match in (
        ({"normalize": "clip"}, "normalize must be"),
        ({"batch_size": 0}, "batch_size"),
        ({"model": ""}, "model must be"),
    ):
        with pytest.raises(InputError, match=match):
            COMETOptions(**bad)
    assert COMETOptions(normalize=[0, 100]).normalize == (0.0, 100.0)
    with pytest.raises(InputError, match="mismatched lengths"):
        comet_samples(["a"], ["b", "c"], ["d"])
    assert normalize_scores([0.0, 50.0, 100.0, 120.0], (0, 100)) == [0.0, 0.5, 1.0, 1.2]


def test_comet_installed_but_unimportable_says_why(monkeypatch):
    """comet present but one of its pins not met (numpy 2, setuptools>=81): the message says so
    (str(ImportError) prints .msg, which once still held the plain "not installed" text)."""
    import builtins
    import sys

    from transcreval.engines.comet import engine as comet_engine

    real_import = builtins.__import__

    def fake_import(name, *args, **kwargs):
        if name == "comet":
            raise ImportError("No module named 'pkg_resources'", name="pkg_resources")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(comet_engine, "_COMET", None)
    monkeypatch.delitem(sys.modules, "comet", raising=False)
    monkeypatch.setattr(builtins, "__import__", fake_import)
    with pytest.raises(MissingDependencyError) as e:
        comet_engine.import_comet()
    assert "installed but cannot be imported" in str(e.value) and "pkg_resources" in str(e.value)
    assert "setuptools<81" in str(e.value)
