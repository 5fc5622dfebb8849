"""The significance engine, the report and the integrations keep ``import transcreval`` light."""

from __future__ import annotations

import json
import subprocess
import sys

OPTIONAL = {"matplotlib", "pandas", "pyarrow", "torchmetrics", "lightning", "PIL", "scipy", "torch"}


def _loaded_after(code: str) -> set[str]:
    probe = f"import sys, json\n{code}\nprint(json.dumps(sorted({{m.split('.')[0] for m in sys.modules}})))"
    out = subprocess.run([sys.executable, "-c", probe], check=True, capture_output=True, text=True, timeout=300)
    return set(json.loads(out.stdout.strip().splitlines()[-1]))


def test_new_packages_import_nothing_optional():
    code = (
        "import transcreval, transcreval.significance, transcreval.report, transcreval.integrations\n"
        "import transcreval.integrations.tables\n"
        "from transcreval.stats import paired_bootstrap, compare_systems\n"
        "transcreval.report.__dir__(); transcreval.stats.paired_randomization"
    )
    loaded = _loaded_after(code)
    assert not loaded & OPTIONAL, sorted(loaded & OPTIONAL)


def test_public_names_resolve():
    import transcreval
    import transcreval.report as report
    import transcreval.stats as stats

    own = {"judge_agreement", "Agreement", "Estimate"}  # the stats package's own (judge-human agreement)
    for name in stats.__all__:
        if name in own:
            assert getattr(stats, name).__module__ == "transcreval.functional.stats.agreement"
        else:
            assert getattr(stats, name) is getattr(transcreval.significance, name)
    assert own <= set(stats.__all__)
    for name in report.__all__:
        assert getattr(report, name) is not None
    assert {"significance", "report", "integrations", "stats"} <= set(dir(transcreval))
