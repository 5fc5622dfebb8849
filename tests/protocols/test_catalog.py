"""The protocol catalog: every protocol module is listed, imports, and names a known paper."""

from __future__ import annotations

import argparse
import io
import pathlib

import pytest

from transcreval.cli import main, run_list
from transcreval.core.registry import PAPERS
from transcreval.protocols.catalog import PROTOCOLS, get_protocol, list_protocols

PROTOCOL_DIR = pathlib.Path(__file__).resolve().parents[2] / "src" / "transcreval" / "protocols"
NOT_PROTOCOLS = {
    "__init__",
    "adapter",
    "catalog",
    "records",
    "stored_features",
}  # shared pieces: the runner contract, records, stored features


def test_every_protocol_module_is_in_the_catalog():
    modules = {f"transcreval.protocols.{f.stem}" for f in PROTOCOL_DIR.glob("*.py") if f.stem not in NOT_PROTOCOLS}
    listed = {p.module for p in PROTOCOLS}
    assert modules <= listed, f"protocol modules missing from protocols/catalog.py: {sorted(modules - listed)}"


@pytest.mark.parametrize("info", PROTOCOLS, ids=lambda p: p.name)
def test_entry_imports_and_names_a_known_paper(info):
    assert info.paper in PAPERS
    assert info.load().__name__ == info.module
    assert info.tables and info.summary
    assert get_protocol(info.name) is info


def test_names_are_unique_and_lookup_errors_name_the_known_ones():
    names = [p.name for p in PROTOCOLS]
    assert len(names) == len(set(names))
    with pytest.raises(KeyError, match="known protocols: " + names[0]):
        get_protocol("no-such-protocol")
    assert [p.name for p in list_protocols(paper="mptc")] == ["mptc"]


def test_list_protocols_cli_prints_every_protocol(capsys):
    assert main(["list", "--protocols"]) == 0
    out = capsys.readouterr().out
    for p in PROTOCOLS:
        assert p.name in out and p.paper in out
    # a namespace built without the flag (older callers) still lists metrics
    buf = io.StringIO()
    ns = argparse.Namespace(domain=None, paper=None, extra=None, needs=None, name="TitleChrF")
    assert run_list(ns, buf) == 0 and "TitleChrF" in buf.getvalue()


@pytest.mark.parametrize("info", PROTOCOLS, ids=lambda p: p.name)
def test_every_protocol_is_one_package_holding_its_runner(info):
    assert hasattr(info.load(), "__path__"), f"{info.module} is a flat module, not a package"
    for ref in (info.runner, info.meta_evaluate):
        assert not ref or ref.startswith(info.module + "."), f"{ref} lies outside {info.module}"
