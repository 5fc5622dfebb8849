"""The built-in prompt templates are data files: their wording, loading, shipping in the wheel,
and the shared batch pipeline's pieces (JudgeSpec, judge_items, JudgeTally side totals)."""

from __future__ import annotations

import ast
import hashlib
import json
import os
import subprocess
import sys
import zipfile
from importlib.resources import files
from pathlib import Path

import pytest

import transcreval
from tests.judge.conftest import image
from transcreval.engines.judge.catalog import PROMPTS_PACKAGE, TEMPLATES, builtin_template, load_builtin_templates
from transcreval.engines.judge.pipeline import JudgeSpec, judge_items
from transcreval.engines.judge.tally import JudgeTally
from transcreval.engines.judge.templates import PromptTemplate, resolve_template
from transcreval.engines.judge.verdicts import Verdict, json_reader
from transcreval.errors import InputError

ROOT = Path(__file__).resolve().parents[3]

# id -> (version, SHA-256 of the user message): a change of wording without a version bump
# would replay cached answers to the old wording; this table makes it fail here instead
WORDING = {
    "imtbench.alignment": ("2", "f57e95428c1a9055"),
    "imtbench.harmonization": ("2", "058ccb6c3a029ca3"),
    "imtbench.harmonization-ref": ("1", "0579b1b21e4a0634"),
    "imtbench.joint": ("2", "1818a5530c6b98e2"),
    "imtbench.joint-ref": ("1", "df5b9df7011909b8"),
    "khanuja.creativity": ("1", "f7a70c1680597505"),
    "khanuja.csi-match": ("2", "40480fe5f95d8f19"),
    "khanuja.csi-objects": ("2", "0e8539f8001442b6"),
    "khanuja.csi-replacements": ("2", "1052ee1992921134"),
    "khanuja.cultural": ("1", "739d75dcb9c91a94"),
    "khanuja.intent": ("2", "fe325139e039fa1b"),
    "mptc.adaptation": ("1", "850e827dc615bafc"),
    "mptc.aesthetic": ("1", "302c480b57085c68"),
    "mptc.aesthetic+adaptation": ("1", "c714f0099ebe3c63"),
    "mptc.market": ("2", "a657b1f7fbe5ab33"),
    "mptc.pairwise": ("2", "da1d742cde794492"),
    "mptc.quiz": ("1", "535ecbdd37483be5"),
    "mptc.title": ("2", "dff339e529c55580"),
    "posteriq.font": ("2", "554df2ee30d9eb67"),
    "posteriq.point-image": ("1", "6749ad9758e5d15f"),
    "posteriq.point-text": ("1", "d4dbfc668c98ab39"),
    "posteriq.style": ("1", "072a40cca8ccf8f5"),
}


def _digest(templates: dict[str, PromptTemplate]) -> dict[str, tuple[str, str]]:
    return {k: (t.version, hashlib.sha256(t.user.encode()).hexdigest()[:16]) for k, t in templates.items()}


def test_the_wording_of_every_builtin_template_is_pinned_to_its_version():
    assert _digest(TEMPLATES) == WORDING


def test_every_builtin_template_is_a_data_file_of_the_package_named_by_its_id():
    names = sorted(e.name for e in files(PROMPTS_PACKAGE).iterdir() if e.name.endswith(".txt"))
    assert names == sorted(f"{k}.txt" for k in TEMPLATES)
    package_dir = Path(transcreval.__file__).parent / "engines" / "judge" / "prompts"
    for k, t in TEMPLATES.items():
        assert (package_dir / f"{k}.txt").is_file()
        assert t.source == "builtin" and t.system is None and t.output
        assert not t.user.endswith("\n")  # the file's final newline is not part of the message


def test_builtin_data_file_front_matter_is_checked(tmp_path, monkeypatch):
    good = '---\nid: x.one\nversion: 3\nimages: a, b\noutput: {"score": "integer 1-5"}\n---\nRate {item}.\n'
    t = builtin_template(good, "x.one.txt")
    assert (t.id, t.version, t.images, dict(t.output), t.user) == (
        "x.one",
        "3",
        ("a", "b"),
        {"score": "integer 1-5"},
        "Rate {item}.",
    )
    with pytest.raises(InputError, match="lacks \\['output'\\]"):
        builtin_template(good.replace('output: {"score": "integer 1-5"}\n', ""), "x.one.txt")
    with pytest.raises(InputError, match="not a JSON object"):
        builtin_template(good.replace('{"score"', "{score"), "x.one.txt")
    pkg = tmp_path / "w16_prompts_pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "x.two.txt").write_text(good)  # the file name is not the id
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(InputError, match=r"must be named x\.one\.txt"):
        load_builtin_templates("w16_prompts_pkg")
    (pkg / "x.two.txt").rename(pkg / "x.one.txt")
    assert list(load_builtin_templates("w16_prompts_pkg")) == ["x.one"]


def test_a_user_template_file_loads_as_before_with_bom_front_matter_and_extra_keys(tmp_path):
    base = TEMPLATES["mptc.aesthetic"]
    f = tmp_path / "mine.txt"
    body = "Rate TGT for {target_market}.\n{image:output}\n"
    f.write_bytes("\ufeff---\r\nid: mine\r\nversion: 7\r\nimages: zzz\r\n---\r\n".encode() + body.encode())
    t = resolve_template(str(f), base)
    # id and version from the front matter; slots and answer keys from the metric's default
    assert (t.id, t.version, t.images, dict(t.output), t.source) == (
        "mine",
        "7",
        base.images,
        dict(base.output),
        str(f),
    )
    assert t.user == body


def test_the_wheel_ships_the_prompt_files_and_the_catalog_loads_them_from_the_installed_package(tmp_path):
    wheel_mod = pytest.importorskip("hatchling.builders.wheel")
    wheel = Path(next(wheel_mod.WheelBuilder(str(ROOT)).build(directory=str(tmp_path / "dist"), versions=["standard"])))
    with zipfile.ZipFile(wheel) as z:
        shipped = {n for n in z.namelist() if n.startswith("transcreval/engines/judge/prompts/")}
        z.extractall(tmp_path / "site")
    assert {f"transcreval/engines/judge/prompts/{k}.txt" for k in TEMPLATES} <= shipped
    assert "transcreval/engines/judge/prompts/quiz_questions.json" in shipped
    code = (
        "import hashlib, json, transcreval\n"
        "from transcreval.engines.judge.catalog import TEMPLATES, QUIZ_QUESTIONS\n"
        "print(json.dumps({'file': transcreval.__file__, 'quiz': sorted(QUIZ_QUESTIONS), 'wording': "
        "{k: [t.version, hashlib.sha256(t.user.encode()).hexdigest()[:16]] for k, t in TEMPLATES.items()}}))"
    )
    env = {**os.environ, "PYTHONPATH": str(tmp_path / "site")}
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=tmp_path, timeout=300
    )
    assert out.returncode == 0, out.stderr
    got = json.loads(out.stdout.strip().splitlines()[-1])
    assert Path(got["file"]).resolve().is_relative_to((tmp_path / "site").resolve())
    assert {k: tuple(v) for k, v in got["wording"].items()} == WORDING
    assert got["quiz"] == ["decade", "genre"]


def _imports(module: str) -> set[str]:
    path = Path(transcreval.__file__).parent.joinpath(*module.split(".")[1:]).with_suffix(".py")
    tree = ast.parse(path.read_text())
    return {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module}


def test_templates_catalog_and_prompt_template_import_no_cycle():
    pt, cat, tpl = (
        "transcreval.engines.judge.prompt_template",
        "transcreval.engines.judge.catalog",
        "transcreval.engines.judge.templates",
    )
    assert not {cat, tpl} & _imports(pt)
    assert tpl not in _imports(cat)
    assert cat in _imports(tpl)


def test_judge_tally_side_totals_and_take():
    t = JudgeTally(wins=0)
    t.take([Verdict("ok", 2), Verdict("timeout", detail="slow"), Verdict("ok", 4)], lambda v: (v / 2, {"wins": 1}))
    stats = t.stats()
    assert (stats["total"], stats["count"], stats["wins"]) == (3.0, 2, 2)
    assert stats["values"].tolist()[0] == 1.0 and stats["values"].tolist()[1] != stats["values"].tolist()[1]
    with pytest.raises(ValueError, match="not declared"):
        t.add(1.0, losses=1)


class _Judge:
    def __init__(self, answers):
        self.answers, self.requests = list(answers), []

    def complete(self, requests):
        from transcreval.engines.judge.types import JudgeReply

        self.requests += requests
        return [JudgeReply("ok", self.answers.pop(0)) for _ in requests]


def test_judge_items_single_images_pairs_fields_and_the_mismatch_message():
    tpl = PromptTemplate("t.pair", "1", "{image:output} {image:source} in {market}", images=("output", "source"))
    spec = JudgeSpec("Toy", tpl, ("market",), arguments={"market": "markets"}, mismatch="{name}: {n} vs {m}")
    judge = _Judge(['{"score": 2}', '{"score": 5}'])
    read = json_reader(
        lambda obj: __import__("transcreval.engines.judge.parse", fromlist=["x"]).read_int(obj, ("score",), 1, 5)
    )
    stats = judge_items(
        spec, [image(1), image(2)], [image(3), image(4)], {"market": ["JP", "FR"]}, read, "skip", judge=judge
    )
    assert (stats["total"], stats["count"]) == (7.0, 2)
    assert [r.messages[-1].parts[-1].text for r in judge.requests] == ["in JP", "in FR"]
    with pytest.raises(InputError, match=r"^Toy: 2 vs 1$"):
        judge_items(spec, [image(1), image(2)], [image(3)], {"market": "JP"}, read, "skip", judge=judge)
    with pytest.raises(InputError, match="markets="):
        judge_items(spec, [image(1)], [image(3)], {}, read, "skip", judge=_Judge([]))
    single = JudgeSpec("Toy1", PromptTemplate("t.one", "1", "{image:output}", images=("output",)), ())
    assert judge_items(single, [image(1)], None, {}, read, "skip", judge=_Judge(['{"score": 3}']))["total"] == 3.0
