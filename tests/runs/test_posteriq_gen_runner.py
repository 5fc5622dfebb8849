"""PosterIQ generation has one pipeline: ``transcreval evaluate -p posteriq-gen`` (the runner
adapter) and ``posteriq.evaluate_generation`` give equal Table 6, notes and records, from score
files with no manifest (both modes) and from generated images with a judge (resumed without a
call, rescored without a judge)."""

from __future__ import annotations

import json
import math

import pytest

from tests.protocols.test_posteriq_generation import ITEMS, _poster, _write
from transcreval import Run
from transcreval import evaluate as run_evaluate
from transcreval.cli import main
from transcreval.judge import FunctionJudge
from transcreval.protocols.posteriq import evaluate_generation
from transcreval.protocols.posteriq.generation.runner import write_manifest


def _same(got, want):
    assert (got.rows, got.columns, got.notes) == (want.rows, want.columns, want.notes)
    assert set(got.cells) == set(want.cells)
    for key, w in want.cells.items():
        g = got.cells[key]
        assert (g.n, g.n_missing) == (w.n, w.n_missing), key
        assert (math.isnan(g.value) and math.isnan(w.value)) or g.value == w.value, key


def _records(res):
    return sorted((r.item_id, r.system, r.metric, r.status, repr(r.value)) for r in res.records)


@pytest.mark.parametrize("mode", ["paper", "posteriq-code"])
def test_score_files_through_the_runner_equal_evaluate_generation(tmp_path, mode):
    files = {"A": _write(tmp_path / "A_score.json", ITEMS), "B": _write(tmp_path / "B_score.json", ITEMS[2:9])}
    ref = evaluate_generation(files, mode=mode)
    run = run_evaluate(
        "posteriq-gen", None, {k: str(v) for k, v in files.items()}, tmp_path / "run", options={"mode": mode}
    )
    _same(run.tables["table6"], ref.tables["table6"])
    assert any("B, dense: 2 of 3 prompt(s) have no image" in n for n in ref.tables["table6"].notes)  # exercised
    assert _records(run.results) == _records(ref)
    assert Run(tmp_path / "run").rescore().tables == run.results.tables


def test_images_with_a_judge_through_the_runner_equal_evaluate_generation(tmp_path, capsys):
    prompts = [
        {"task": "poster dense", "path": "dense\\1.jpg", "gt": ["red sun", "blue sea"]},
        {"task": "poster style", "path": "style/1.jpg", "style": "Pop Art"},
        {"task": "poster font", "path": "font/1.jpg"},
        {"task": "poster intention", "path": "intention/2.jpg", "gt": ["peace"]},  # no image
    ]
    for p in prompts[:3]:
        _poster(tmp_path / "imgs" / p["path"].replace("\\", "/"))
    asked = []

    def reply(request):
        asked.append(request.text)
        if "Retro" in request.text:
            return '{"style": "Retro Style"}'
        if "angular" in request.text:
            return '{"attributes": ["thin", "serif"]}'
        return '{"covered": false}' if "blue sea" in request.text else '{"covered": true}'

    ref = evaluate_generation({"G": tmp_path / "imgs"}, tasks=prompts, judge=FunctionJudge(reply))
    n_calls = len(asked)
    manifest = write_manifest(prompts, tmp_path / "manifest.jsonl")
    systems = {"G": str(tmp_path / "imgs" / "{id}")}
    run = run_evaluate("posteriq-gen", manifest, systems, tmp_path / "run", judge=FunctionJudge(reply))
    assert len(asked) == 2 * n_calls == 8  # 2 key points + 1 style + 1 font, once each way
    _same(run.tables["table6"], ref.tables["table6"])
    assert _records(run.results) == _records(ref)
    run_evaluate("posteriq-gen", manifest, systems, tmp_path / "run", judge=FunctionJudge(reply))
    assert len(asked) == 8  # resumed: the stored replies are not asked again
    assert Run(tmp_path / "run").rescore().tables == run.results.tables  # no judge needed
    # the CLI: the same protocol by name
    rc = main(
        ["evaluate", "-p", "posteriq-gen", "-m", str(manifest), "-s", f"G={systems['G']}", "-o", str(tmp_path / "run")]
    )
    assert rc == 0


def test_a_null_judge_field_reads_alike_through_the_runner(tmp_path):
    items = [
        {"task": "poster dense", "path": "dense/1.jpg", "gt": ["a"], "judge": None},
        {"task": "poster dense", "path": "dense/2.jpg", "gt": ["a"], "judge": ["Yes"]},
        {"task": "poster font", "path": "font/1.jpg", "judge": None},
    ]
    f = _write(tmp_path / "N_score.json", items)
    ref = evaluate_generation({"N": f})
    run = run_evaluate("posteriq-gen", None, {"N": str(f)}, tmp_path / "run")
    _same(run.tables["table6"], ref.tables["table6"])
    assert _records(run.results) == _records(ref)


def test_validate_reads_score_files_without_false_warnings(tmp_path):
    """A score file carries the replies, not an image: validate must not warn "no image" for each
    of its items, nor call the keys the adapter itself writes ("file", "no_judge") unused."""
    from transcreval.runs.validation import validate

    items = [*ITEMS[:3], {"task": "poster font", "path": "font/9.jpg", "prompt": "p", "judge": None}]
    rep = validate("posteriq-gen", None, {"A": str(_write(tmp_path / "A_score.json", items))})
    assert rep["ok"] and rep["systems"]["A"]["ok"] == 4
    assert not [w for w in rep["warnings"] if "no image" in w or "not used by" in w], rep["warnings"]


def test_an_undecodable_image_is_named_as_such_not_as_unjudged(tmp_path):
    """A generated file that does not decode is never sent to the judge; its record and the
    table's note name it as an image that does not decode (undecodable_output), not "not_judged"."""
    prompts = [
        {"task": "poster dense", "path": "dense/1.jpg", "gt": ["a"]},
        {"task": "poster dense", "path": "dense/2.jpg", "gt": ["a"]},
    ]
    _poster(tmp_path / "imgs" / "dense" / "1.jpg")
    (tmp_path / "imgs" / "dense" / "2.jpg").write_text("not an image")
    manifest = write_manifest(prompts, tmp_path / "manifest.jsonl")
    judge = FunctionJudge(lambda request: '{"covered": true}')
    run = run_evaluate("posteriq-gen", manifest, {"G": str(tmp_path / "imgs" / "{id}")}, tmp_path / "run", judge=judge)
    status = {r.item_id: r.status for r in run.results.records}
    assert status == {"dense/1.jpg": "ok", "dense/2.jpg": "undecodable_output"}
    assert any(
        "G, dense: 1 image(s) that do not decode (first: 'dense/2.jpg'); each scores 0" in n
        for n in run.tables["table6"].notes
    )


def _broken_folder(tmp_path):
    """dense/1.jpg a poster, dense/2.jpg a file that does not decode, dense/3.jpg nothing."""
    prompts = [{"task": "poster dense", "path": f"dense/{i}.jpg", "gt": ["a"]} for i in (1, 2, 3)]
    _poster(tmp_path / "imgs" / "dense" / "1.jpg")
    (tmp_path / "imgs" / "dense" / "2.jpg").write_text("not an image")
    return prompts


@pytest.mark.parametrize("denominator", ["prompts", "present"])
def test_a_broken_image_counts_as_the_systems_failure_in_both_entries(tmp_path, denominator):
    """A file that does not decode is the generator's failure: under "prompts" it scores 0 like a
    missing image (a system writing broken files never beats one writing nothing), under
    "present" it is left out; named either way. The Python entry scores the rest of the folder
    (it stopped on the first broken file) and gives the runner's table, notes and records."""
    prompts = _broken_folder(tmp_path)
    _poster(tmp_path / "none" / "dense" / "1.jpg")  # the same poster, and nothing for dense/2 and dense/3
    judge = FunctionJudge(lambda request: '{"covered": true}')
    opts = {"denominator": denominator}
    ref = evaluate_generation({"G": tmp_path / "imgs", "N": tmp_path / "none"}, tasks=prompts, judge=judge, **opts)
    t = ref.tables["table6"]
    # G: dense/1 covered (1), dense/2 broken, dense/3 missing
    want = (1 / 3, 3, 0) if denominator == "prompts" else (1.0, 1, 2)
    cell = t.cell("G", "Dense")
    assert (cell.value, cell.n, cell.n_missing) == pytest.approx(want)
    assert t.cell("N", "Dense").value == cell.value  # broken files score no better than none
    rule = "each scores 0 (denominator: every prompt)" if denominator == "prompts" else "left out (denominator"
    assert any(f"G, dense: 1 image(s) that do not decode (first: 'dense/2.jpg'); {rule}" in n for n in t.notes)
    assert not any("without judge replies" in n for n in t.notes)
    status = {(r.system, r.item_id): r.status for r in ref.records}
    assert status[("G", "dense/2.jpg")] == "undecodable_output" and status[("G", "dense/3.jpg")] == "missing_image"
    manifest = write_manifest(prompts, tmp_path / "manifest.jsonl")
    systems = {"G": str(tmp_path / "imgs" / "{id}"), "N": str(tmp_path / "none" / "{id}")}
    run = run_evaluate("posteriq-gen", manifest, systems, tmp_path / "run", judge=judge, options=opts)
    _same(run.tables["table6"], t)
    assert _records(run.results) == _records(ref)


def test_an_image_under_another_extension_is_hinted_in_both_entries(tmp_path):
    """``dense/2.png`` for the prompt ``dense/2.jpg``: still a missing image (the protocol reads
    the prompt's path only), but the note says the file is there under another extension."""
    prompts = [{"task": "poster dense", "path": f"dense/{i}.jpg", "gt": ["a"]} for i in (1, 2, 3)]
    _poster(tmp_path / "imgs" / "dense" / "1.jpg")
    _poster(tmp_path / "imgs" / "dense" / "2.png")
    judge = FunctionJudge(lambda request: '{"covered": true}')
    ref = evaluate_generation({"G": tmp_path / "imgs"}, tasks=prompts, judge=judge)
    t = ref.tables["table6"]
    assert t.cell("G", "Dense").value == pytest.approx(1 / 3)  # read only as the path names it
    assert any("G, dense: 2 of 3 prompt(s) have no image" in n for n in t.notes)
    assert any(
        "G, dense: 1 prompt(s) without an image have a file under another extension "
        "(first: 'dense/2.jpg' as 'dense/2.png')" in n
        for n in t.notes
    ), t.notes
    manifest = write_manifest(prompts, tmp_path / "manifest.jsonl")
    run = run_evaluate("posteriq-gen", manifest, {"G": str(tmp_path / "imgs" / "{id}")}, tmp_path / "run", judge=judge)
    _same(run.tables["table6"], t)
    assert Run(tmp_path / "run").rescore().tables == run.results.tables


def test_validate_does_not_call_the_benchmarks_own_jpeg_paths_lossy(tmp_path):
    """The prompts' paths name .jpg: outputs saved there are what the benchmark asks for, so
    neither validate nor evaluate warns "lossy format" for them; an output in another lossy format
    than its path names (a .webp for dense/2.jpg) is still warned about."""
    from transcreval.runs.validation import validate

    prompts = [*_broken_folder(tmp_path)[:1], {"task": "poster dense", "path": "dense/2.jpg", "gt": ["a"]}]
    manifest = write_manifest(prompts, tmp_path / "manifest.jsonl")
    rep = validate("posteriq-gen", manifest, {"G": str(tmp_path / "imgs" / "{id}")})
    assert not [w for w in rep["warnings"] if "lossy" in w], rep["warnings"]
    assert rep["systems"]["G"]["lossy"] == 0
    _poster(tmp_path / "other" / "2.webp")
    outs = tmp_path / "outs.jsonl"
    outs.write_text(
        json.dumps({"id": "dense/1.jpg", "image": str(tmp_path / "imgs" / "dense" / "1.jpg")})
        + "\n"
        + json.dumps({"id": "dense/2.jpg", "image": str(tmp_path / "other" / "2.webp")})
        + "\n"
    )
    from transcreval.protocols.posteriq.generation.runner import ADAPTER
    from transcreval.runs.orchestrate import read_inputs

    notes = read_inputs(ADAPTER, manifest, {"G": str(tmp_path / "imgs" / "{id}")})[2]  # what evaluate says
    assert not [n for n in notes if "lossy" in n], notes
    rep = validate("posteriq-gen", manifest, {"G": str(outs)})
    assert [w for w in rep["warnings"] if "1 output(s) in a lossy format" in w and "dense/2.jpg" in w], rep["warnings"]


def test_score_files_from_the_cli_say_how_to_give_the_prompts_and_print_no_judge_note(tmp_path, capsys):
    """Without a manifest, the note on the prompt set names the command line's way (``-m``, a
    manifest from write_manifest), not a Python keyword; and the judge unit, which has nothing to
    do for score files, is not reported as "skipped: needs a judge"."""
    f = _write(tmp_path / "A_score.json", ITEMS)
    args = ["evaluate", "-p", "posteriq-gen", "-s", f"A={f}", "-o", str(tmp_path / "run"), "--progress", "log"]
    assert main(args) == 0
    said = "".join(capsys.readouterr())
    assert "skipped" not in said and "needs a judge" not in said, said
    (note,) = [n for n in Run(tmp_path / "run").tables["table6"].notes if n.startswith("the prompt set")]
    assert "-m" in note and "write_manifest" in note, note


def test_score_files_with_a_manifest_count_the_prompts_a_file_lacks(tmp_path, capsys):
    """``-m`` (a manifest write_manifest wrote) with score files: the prompt set is the
    manifest's, as ``tasks=`` in Python; a prompt no file holds is a missing image, named."""
    from transcreval.runs.validation import validate

    f = _write(tmp_path / "A_score.json", ITEMS)
    prompts = [{k: v for k, v in it.items() if k != "judge"} for it in ITEMS]
    prompts.append({"task": "poster dense", "path": "dense/9.jpg", "gt": ["a"], "prompt": "p"})
    manifest = write_manifest(prompts, tmp_path / "gen_manifest.jsonl")
    out = tmp_path / "run"
    args = ["evaluate", "-p", "posteriq-gen", "-m", str(manifest), "-s", f"A={f}", "-o", str(out), "--progress", "log"]
    assert main(args) == 0, capsys.readouterr().err
    assert "needs a judge" not in "".join(capsys.readouterr())
    ref = evaluate_generation({"A": f}, tasks=prompts)
    t = Run(out).tables["table6"]
    _same(t, ref.tables["table6"])
    assert _records(Run(out).results) == _records(ref)
    assert any("A, dense: 1 of 4 prompt(s) have no image (first: 'dense/9.jpg')" in n for n in t.notes), t.notes
    assert not any(n.startswith("the prompt set") for n in t.notes)
    rep = validate("posteriq-gen", manifest, {"A": str(f)})
    assert rep["ok"] and rep["systems"]["A"]["ok"] == len(ITEMS), rep
    assert not [w for w in rep["warnings"] if "no image" in w or "not used by" in w], rep["warnings"]


def test_an_item_outside_the_prompt_set_is_left_out_in_both_entries(tmp_path, capsys):
    """Given the prompt set (``tasks=`` in Python, ``-m`` a manifest from the CLI), a score file's
    item that is not among the prompts is named and not scored, in both entries alike."""
    f = _write(tmp_path / "A_score.json", ITEMS)
    prompts = [{k: v for k, v in it.items() if k != "judge"} for it in ITEMS[1:]]  # dense/1 is not a prompt
    ref = evaluate_generation({"A": f}, tasks=prompts)
    assert not [r for r in ref.records if r.item_id == "dense/1.jpg"], "scored although not a prompt"
    notes = ref.tables["table6"].notes
    assert any("A: 1 item(s) not among the prompts (first: 'dense/1.jpg'); not scored" in n for n in notes), notes
    manifest = write_manifest(prompts, tmp_path / "gen_manifest.jsonl")
    out = tmp_path / "run"
    assert main(["evaluate", "-p", "posteriq-gen", "-m", str(manifest), "-s", f"A={f}", "-o", str(out)]) == 0
    assert "not among the manifest's prompts" in capsys.readouterr().err
    assert _records(Run(out).results) == _records(ref)
    for col in ("Dense", "Font", "Style", "Average"):
        got, want = Run(out).tables["table6"].cell("A", col), ref.tables["table6"].cell("A", col)
        assert (got.value, got.n, got.n_missing) == (want.value, want.n, want.n_missing), col
