"""``transcreval evaluate --protocol imtbench``: the runner adapter against
:func:`transcreval.protocols.imtbench.evaluate` on the same inputs, resume, and the missing-comet path.

The main environment has no unbabel-comet (it pins numpy < 2), so here comet's model is the
deterministic stand-in of tests/_helpers/imtbench_set.py, patched in under COMETScore (every
other piece is real: rapidocr masks, random-init squeeze LPIPS, the judge over HTTP on the
loopback fake server). tests/protocols/test_imtbench_runner_comet.py runs the same path with the tiny real
COMET model in `make test-comet`.
"""

from __future__ import annotations

import importlib.util
import json
import math

import pytest

from tests._helpers.imtbench_set import NO_IMAGE, NO_OUTPUT, NO_TEXT, FakeComet, responder, use_fake_comet, write_set
from transcreval.cli import main
from transcreval.engines.judge.fake_server import FakeOpenAIServer

pytest.importorskip("openai")
pytest.importorskip("rapidocr")

COMPONENTS = ("S_text", "S_bg", "S_align", "S_vis", "S")


@pytest.fixture(scope="module")
def bench(tmp_path_factory):
    return write_set(tmp_path_factory.mktemp("imtbench-run"))


@pytest.fixture
def server():
    with FakeOpenAIServer(responder, model="fake-judge") as s:
        yield s


def _judge(server) -> str:
    return json.dumps({"model": "fake-judge", "base_url": server.base_url, "max_retries": 0})


def _args(bench, out, server, *extra, systems=("sysA", "sysB")):
    args = ["evaluate", "-p", "imtbench", "-m", str(bench["manifest"]), "-o", str(out), "--judge", _judge(server)]
    for name in systems:
        args += ["-s", f"{name}={bench['systems'][name]}"]
    args += ["--option", "lpips_net=squeeze", "--option", f"lpips_weights={json.dumps(str(bench['lpips']))}"]
    args += ["--option", 'comet={"model": "test/fake-comet", "checkpoint": "unused"}']
    return [*args, "--progress", "none", "--batch-size", "3", *extra]


def _reference(bench, server):
    from transcreval.judge import OpenAICompatibleJudge
    from transcreval.protocols import imtbench

    return imtbench.evaluate(
        bench["imt_manifest"],
        dict(bench["imt_systems"]),
        judge=OpenAICompatibleJudge("fake-judge", base_url=server.base_url, max_retries=0),
        comet={"model": "test/fake-comet", "checkpoint": "unused"},
        lpips_net="squeeze",
        lpips_weights=str(bench["lpips"]),
        chunk_size=5,
    )


def _tables(result) -> str:
    return json.dumps(result.to_dict()["tables"], sort_keys=True, default=str)


def _same(a: float, b: float) -> bool:
    return (math.isnan(a) and math.isnan(b)) or a == b


def test_table2_and_records_equal_the_python_protocol(bench, server, tmp_path, monkeypatch, capsys):
    from transcreval.runs import Run

    use_fake_comet(monkeypatch)
    out = tmp_path / "run"
    assert main(_args(bench, out, server)) == 0, capsys.readouterr().err
    got = Run(out).results
    want = _reference(bench, server)
    assert set(got.tables) == set(want.tables) == {"table2/sysA", "table2/sysB"}
    for key, t in want.tables.items():
        g = got.tables[key]
        assert g.rows == t.rows and g.columns == t.columns and g.notes == t.notes
        assert set(g.cells) == set(t.cells)
        for cell, c in t.cells.items():
            assert _same(g.cells[cell].value, c.value), (key, cell)
            assert (g.cells[cell].n, g.cells[cell].n_missing) == (c.n, c.n_missing), (key, cell)
    # Fig. 6 (right panel) from the same builder on both paths
    assert set(got.figures) == set(want.figures) == {"fig6_by_source"}
    g, t = got.figures["fig6_by_source"], want.figures["fig6_by_source"]
    assert g.rows == t.rows and g.notes == t.notes and set(g.cells) == set(t.cells)
    for cell, c in t.cells.items():
        assert _same(g.cells[cell].value, c.value) and (g.cells[cell].n, g.cells[cell].n_missing) == (c.n, c.n_missing)
    assert any("1 item(s) without a source_language" in n for n in g.notes)
    assert len(got.records) == len(want.records) == 2 * 8 * 5
    mine = {(r.item_id, r.system, r.metric): r for r in got.records}
    for r in want.records:
        m = mine[(r.item_id, r.system, r.metric)]
        assert m.status == r.status and _same(m.value, r.value), (r.item_id, r.system, r.metric)
        assert {k: m.meta[k] for k in ("scenario", "language")} == {k: r.meta[k] for k in ("scenario", "language")}
    # the edge cases are there, counted, never 0
    status = {(r.item_id, r.metric): r.status for r in got.records if r.system == "sysA"}
    assert all(status[(f"it{NO_OUTPUT}", c)] != "ok" for c in COMPONENTS)
    assert status[(f"it{NO_TEXT}", "S_text")] == "missing_output" and status[(f"it{NO_TEXT}", "S_vis")] == "ok"
    assert status[(f"it{NO_IMAGE}", "S_bg")] == "missing_output" and status[(f"it{NO_IMAGE}", "S_text")] == "ok"
    assert status[("it1", "S_vis")] == "refused"
    assert {r.status for r in got.records if r.system == "sysB"} == {"ok"}
    # records join by item id with the item's group, and results.json counts every failure
    assert {r.group for r in got.records} == {f"it{k}" for k in range(8)}
    counts = json.loads((out / "results.json").read_text())["counts"]
    assert counts["sysA"]["S_text"]["of"] == 8 and counts["sysA"]["S_text"]["failures"] == {"missing_output": 2}
    if importlib.util.find_spec("matplotlib") is not None:  # the report's S heatmap per system draws
        from transcreval.protocols.imtbench.runner import ADAPTER

        figures = ADAPTER.report_options(got)["figures"]
        heatmaps = [f"S by scenario x language: {s}" for s in ("sysA", "sysB")]
        by_source = [f"Fig. 6 (right): S by source language, target {t}" for t in ("de", "fr")]
        assert [t for t, _ in figures] == heatmaps + by_source  # one Fig. 6 panel per target language
        for _, draw in figures:
            fig, _ = draw()
            assert fig is not None


def test_resume_computes_nothing_twice_and_a_changed_option_reruns_only_its_unit(
    bench, server, tmp_path, monkeypatch, capsys
):
    from transcreval.runs import Run

    use_fake_comet(monkeypatch)
    out = tmp_path / "run"
    assert main(_args(bench, out, server)) == 0
    n_calls, n_comet = server.request_count, sum(FakeComet.calls)
    assert n_calls == 2 * 8 - 2 and n_comet == 2 * 8 - 2  # sysA: no output line for one item, no image/text for one
    before = Run(out).results
    assert main(_args(bench, out, server)) == 0
    assert server.request_count == n_calls and sum(FakeComet.calls) == n_comet  # nothing asked or scored again
    assert _tables(Run(out).results) == _tables(before)
    lines = {p.name: len(p.read_text().splitlines()) for p in (out / "items" / "sysA").glob("*.jsonl")}
    assert main(_args(bench, out, server, "--option", "lpips_mode=upsample")) == 0
    after = {p.name: len(p.read_text().splitlines()) for p in (out / "items" / "sysA").glob("*.jsonl")}
    assert after["text.jsonl"] == lines["text.jsonl"] and after["judge.jsonl"] == lines["judge.jsonl"]
    assert after["background.jsonl"] > lines["background.jsonl"]  # only S_bg was scored again
    assert server.request_count == n_calls and sum(FakeComet.calls) == n_comet
    changed = Run(out).results
    bg = [r for r in changed.records if r.metric == "S_bg" and r.status == "ok"]
    old = {(r.item_id, r.system): r.value for r in before.records if r.metric == "S_bg"}
    assert bg and any(r.value != old[(r.item_id, r.system)] for r in bg)
    # rescore equals evaluate's aggregates
    assert main(["rescore", str(out), "--format", "json"]) == 0
    capsys.readouterr()
    assert _tables(Run(out).results) == _tables(changed)


def test_without_comet_evaluate_fails_up_front_naming_the_extra(bench, server, tmp_path, capsys):
    from tests._helpers.comet_env import WHY

    if WHY is None:
        pytest.skip("comet imports here: the missing-comet path is tested in the main environment")
    out = tmp_path / "run"
    assert main(_args(bench, out, server)) == 2
    err = capsys.readouterr().err
    assert "transcreval[comet]" in err and "--metrics background,judge" in err
    assert "Traceback" not in err
    assert not (out / "run.json").exists() and not (out / "items").exists()  # nothing scored (the judge cache
    assert server.request_count == 0  # opens first), nobody asked
    from transcreval.runs import evaluate

    with pytest.raises(ImportError, match=r"transcreval\[comet\]"):  # a MissingDependencyError from Python
        evaluate("imtbench", bench["manifest"], {"sysB": bench["systems"]["sysB"]}, tmp_path / "r2")
    assert not (tmp_path / "r2").exists()
    # the other components run when S_text is left out; S_text and S are reported missing
    assert main(_args(bench, out, server, "--metrics", "background,judge", systems=("sysB",))) == 0
    from transcreval.runs import Run

    res = Run(out).results
    t = res.tables["table2/sysB"]
    assert t.cells[(("All", "item-weighted"), "S_text")].n == 0
    assert t.cells[(("All", "item-weighted"), "S_text")].n_missing == 8
    assert t.cells[(("All", "item-weighted"), "S_bg")].n == 8
    assert {r.status for r in res.records if r.metric == "S_text"} == {"not_computed"}
    assert {r.status for r in res.records if r.metric == "S"} == {"missing_component"}


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("meta", {"source_text": "x"}, "unknown scenario None"),
        ("meta", {"scenario": "poster", "source_text": "x"}, "unknown scenario 'poster'"),
        ("meta", {"scenario": "web"}, "meta.source_text"),
        ("target_locale", "xx", "unknown language 'xx'"),
        ("meta", {"scenario": "web", "source_text": "x", "mask": 3}, "meta.mask"),
    ],
)
def test_bad_manifest_lines_are_named(bench, tmp_path, field, value, message, capsys):
    rows = [json.loads(x) for x in bench["manifest"].read_text().splitlines()]
    rows[2][field] = value
    for r in rows:
        for k in ("source_image", "reference_image"):
            r[k] = str(bench["root"] / r[k])
    bad = tmp_path / "bad.jsonl"
    bad.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    args = ["evaluate", "-p", "imtbench", "-m", str(bad), "-o", str(tmp_path / "r")]
    assert main([*args, "-s", f"sysB={bench['systems']['sysB']}", "--progress", "none"]) == 2
    err = capsys.readouterr().err
    assert "bad.jsonl:3" in err and message in err


def test_bad_options_fail_before_anything_runs(bench, tmp_path, capsys):
    base = ["evaluate", "-p", "imtbench", "-m", str(bench["manifest"]), "-o", str(tmp_path / "r")]
    base += ["-s", f"sysB={bench['systems']['sysB']}", "--progress", "none"]
    for opt, msg in [
        ("judge_call=twice", "judge_call"),
        ("bg_mask=sam", "bg_mask"),
        ("lpips_net=resnet", "lpips_net"),
        ("reference=1", "reference"),
        ("comet=3", "comet"),
        ("colour=red", "unknown option"),
    ]:
        assert main([*base, "--option", opt]) == 2, opt
        assert msg in capsys.readouterr().err, opt
    assert not (tmp_path / "r").exists()


def test_a_run_that_fails_before_it_begins_can_start_again_in_the_same_folder(server, tmp_path, capsys):
    """evaluate opened the judge cache before it picked the metrics: a selection error left a
    folder holding only cache/judge.sqlite that every rerun refused (any protocol; MPTc here).
    The metrics are now picked and checked before anything is written: nothing is left."""
    from transcreval.demo.run_set import write_demo_set

    manifest, systems = write_demo_set(tmp_path / "set")
    out = tmp_path / "run"
    args = ["evaluate", "-p", "mptc", "-m", str(manifest), "-o", str(out), "--judge", _judge(server)]
    args += ["-s", f"text-edit={systems['text-edit']}", "--progress", "none"]
    assert main([*args, "--metrics", "nosuch"]) == 2
    assert not out.exists()
    capsys.readouterr()
    assert main([*args, "--metrics", "judge"]) == 0, capsys.readouterr().err
    assert (out / "run.json").is_file()
    mine = tmp_path / "mine"  # a folder transcreval did not make is still refused
    (mine / "cache").mkdir(parents=True)
    (mine / "cache" / "notes.txt").write_text("x")
    assert main([*[a if a != str(out) else str(mine) for a in args], "--metrics", "judge"]) == 2
    assert "holds no run.json" in capsys.readouterr().err


def test_given_masks_are_checked_before_anything_is_scored(bench, tmp_path, capsys):
    rows = [json.loads(x) for x in bench["manifest"].read_text().splitlines()]
    for r in rows:
        r["meta"]["mask"] = "masks/" + r["id"] + ".png"
        for k in ("source_image", "reference_image"):
            r[k] = str(bench["root"] / r[k])
    manifest = tmp_path / "m.jsonl"
    manifest.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    args = ["evaluate", "-p", "imtbench", "-m", str(manifest), "-o", str(tmp_path / "r"), "--progress", "none"]
    args += ["-s", f"sysB={bench['systems']['sysB']}", "--metrics", "background", "--option", "bg_mask=given"]
    assert main(args) == 2
    assert "m.jsonl:1" in (err := capsys.readouterr().err) and "mask_root" in err
    assert main([*args, "--option", f"mask_root={tmp_path}"]) == 2
    assert "does not exist" in capsys.readouterr().err
    assert not (tmp_path / "r" / "run.json").exists()


def test_given_masks_are_read_at_their_own_bit_depth_as_the_python_protocol_reads_them(bench, tmp_path, capsys):
    """A float mask of 0/0.3 marks the same background as an 8-bit 0/255 one (the rule of
    transcreval.io.read_mask, which imtbench.evaluate uses): the runner's S_bg is the same with either."""
    import numpy as np
    from PIL import Image

    rows = [json.loads(x) for x in bench["manifest"].read_text().splitlines()]
    (tmp_path / "masks").mkdir()
    for r in rows:
        for k in ("source_image", "reference_image"):
            r[k] = str(bench["root"] / r[k])
        w, h = Image.open(r["reference_image"]).size
        background = np.zeros((h, w), dtype=bool)
        background[:, : w // 2] = True
        Image.fromarray(background.astype(np.uint8) * 255).save(tmp_path / "masks" / f"{r['id']}.png")
        Image.fromarray(background.astype(np.float32) * 0.3).save(tmp_path / "masks" / f"{r['id']}.tif")
    got = {}
    for suffix in ("png", "tif"):
        for r in rows:
            r["meta"]["mask"] = f"masks/{r['id']}.{suffix}"
        manifest = tmp_path / f"m-{suffix}.jsonl"
        manifest.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
        out = tmp_path / f"run-{suffix}"
        args = ["evaluate", "-p", "imtbench", "-m", str(manifest), "-o", str(out), "--progress", "none"]
        args += ["-s", f"sysB={bench['systems']['sysB']}", "--metrics", "background", "--option", "bg_mask=given"]
        args += ["--option", f"mask_root={tmp_path}", "--option", "lpips_net=squeeze"]
        args += ["--option", f"lpips_weights={json.dumps(str(bench['lpips']))}"]
        assert main(args) == 0, capsys.readouterr().err
        from transcreval.runs import Run

        got[suffix] = {(r.item_id, r.status, r.value) for r in Run(out).results.records if r.metric == "S_bg"}
    assert {s for _, s, _ in got["png"]} == {"ok"}
    assert got["tif"] == got["png"]


def test_a_judge_only_run_reports_and_draws_fig6_from_the_components_it_has(bench, server, tmp_path, capsys):
    """No S without S_text / S_bg: the report still comes out, and Fig. 6 shows S_align and S_vis
    (a user's run with ``--metrics judge`` once exited 2 here: "no S value for target 'fr'")."""
    out = tmp_path / "run"
    args = ["evaluate", "-p", "imtbench", "-m", str(bench["manifest"]), "-o", str(out), "--judge", _judge(server)]
    args += ["--metrics", "judge", "--progress", "none"]
    for name in ("sysA", "sysB"):
        args += ["-s", f"{name}={bench['systems'][name]}"]
    assert main(args) == 0, capsys.readouterr().err
    assert main(["report", str(out)]) == 0, capsys.readouterr().err
    report = (out / "report.md").read_text(encoding="utf-8")
    assert "IMTBench Fig. 6 (by source language)" in report  # the numbers, drawn or not
    if importlib.util.find_spec("matplotlib") is not None:
        for target in ("de", "fr"):
            for col in ("S_align", "S_vis"):
                assert f"Fig. 6 (right): {col} by source language, target {target}" in report
            assert f"Fig. 6 (right): S by source language, target {target}" not in report
        assert "not drawn" not in report
