"""transcreval.utils.packages: the one lookup of installed package versions (signatures, feature-cache
keys and OCR run identities all go through it)."""

from __future__ import annotations

import importlib.metadata

import pytest

from transcreval.utils.packages import package_version


@pytest.fixture
def counted(monkeypatch):
    """importlib.metadata.version with a call counter, and a cold cache (restored after)."""
    from transcreval.utils import packages

    calls: list[str] = []
    real = importlib.metadata.version

    def version(name: str) -> str:
        calls.append(name)
        return real(name)

    monkeypatch.setattr(importlib.metadata, "version", version)
    monkeypatch.setattr(packages, "_FOUND", {})
    return calls


def test_the_installed_version_looked_up_once_per_process(counted):
    assert package_version("torch") == importlib.metadata.distribution("torch").version
    assert package_version("torch") == package_version("torch")
    assert counted == ["torch"]


def test_a_missing_distribution_is_none_and_looked_up_again(counted, tmp_path, monkeypatch):
    """Not cached: a package installed later in the session is then seen with its version."""
    name = "transcreval-no-such-distribution"
    assert package_version(name) == "none"
    assert package_version(name) == "none"
    assert counted == [name, name]
    info = tmp_path / "transcreval_no_such_distribution-1.2.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.2\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert package_version(name) == "1.2"


def test_every_consumer_uses_the_one_lookup():
    """Signatures, the feature extractors' identity and the OCR detectors record the same string."""
    from transcreval.core.result import Signature
    from transcreval.engines.ocr import base, detector
    from transcreval.features import extractor

    assert extractor.package_version is base.package_version is detector.package_version is package_version
    assert Signature.make("M", {}, ("no-such-dist", "torch")).versions == (
        ("no-such-dist", "none"),
        ("torch", package_version("torch")),
    )
