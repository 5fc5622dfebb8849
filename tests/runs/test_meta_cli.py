"""``transcreval meta-evaluate``: the tables of ``khanuja.meta_evaluate``, printed and written;
bad input is exit code 2 with one line naming the problem (docs/cli.md)."""

from __future__ import annotations

import json

from tests.protocols.test_khanuja_meta import dataset, scores_for, write_csv
from transcreval.cli import main
from transcreval.protocols.khanuja import meta_evaluate


def test_the_command_prints_and_writes_the_tables(tmp_path, capsys):
    root, human = dataset(tmp_path)
    p = tmp_path / "s.jsonl"
    p.write_text("".join(json.dumps(r) + "\n" for r in scores_for(human)), encoding="utf-8")
    want = meta_evaluate(p, root)
    argv = ["meta-evaluate", "-p", "khanuja", "--scores", str(p), "--ratings", str(root)]
    assert main([*argv, "-o", str(tmp_path / "out" / "t.json")]) == 0
    out = capsys.readouterr().out
    assert "**Khanuja et al. Table 3 (mean over countries of the per-country means)**" in out
    assert f"| m1 | {want.tables['table3'].cell('m1', 'cult-rel').value:.2f} |" in out
    saved = json.loads((tmp_path / "out" / "t.json").read_text())
    assert saved["tables"]["table3"] == json.loads(json.dumps(want.tables["table3"].to_dict()))
    assert len(saved["records"]) == len(want.records)
    assert main([*argv, "-o", str(tmp_path / "t.md"), "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert set(data["tables"]) == set(want.tables) and data["options"]["average"] == "countries"
    assert (tmp_path / "t.md").read_text().startswith("**Khanuja et al. Table 3")
    # bad input: exit 2 and one line naming the problem
    bad = write_csv(tmp_path, "country,image,system,metric,column,value", "india,japan_food_miso-soup,a,m1,cult-rel,1")
    assert main(["meta-evaluate", "-p", "khanuja", "--scores", str(bad), "--ratings", str(root)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("transcreval meta-evaluate: ") and "unknown field(s) 'metric'" in err and err.count("\n") == 1
    assert main(["meta-evaluate", "-p", "mptc", "--scores", str(p), "--ratings", str(root)]) == 2
    assert "has no human ratings to meta-evaluate against (protocols that do: khanuja)" in capsys.readouterr().err
    assert main(["meta-evaluate", "-p", "khanuja", "--scores", str(p), "--ratings", str(tmp_path)]) == 2
    assert "human ratings for 'india'" in capsys.readouterr().err
