"""The generated parts of the metric docs: each page's facts table and the index.

Every registered metric has a page ``docs/metrics/<Name>.md`` written by hand (what it
measures, the formula, a runnable example, its options), whose facts table sits between the
markers ``<!-- facts -->`` and ``<!-- /facts -->`` and is generated from the registry. The index
``docs/metrics/README.md`` (by domain and by paper) is generated whole.

    python -m transcreval.core.metric_docs          # rewrite the facts tables and the index
    python -m transcreval.core.metric_docs --check  # exit 1 if anything is out of date or missing

The test suite runs the check, so the pages cannot drift from the registry.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from transcreval.core.registry import DOMAINS, PAPERS, MetricInfo, list_metrics

BEGIN, END = "<!-- facts -->", "<!-- /facts -->"

__all__ = ["BEGIN", "END", "facts_block", "index_page", "sync_pages"]


def _direction(m: MetricInfo) -> str:
    if m.higher_is_better is None:
        return "no preferred direction"
    return "higher is better" if m.higher_is_better else "lower is better"


def _path(module: str) -> str:
    return "src/" + module.replace(".", "/") + ".py"


def facts_block(m: MetricInfo) -> str:
    """The facts table of one metric's page, markers included."""
    needs = ", ".join(m.needs) if m.needs else "nothing beyond its inputs"
    lo, hi = m.value_range
    cls_path, fn_path = _path(m.module), _path(m.functional_module)
    rows = [
        ("class", f"`transcreval.{m.name}` ([{cls_path}](../../{cls_path}))"),
        ("function", f"`transcreval.functional.{m.functional}` ([{fn_path}](../../{fn_path}))"),
        ("paper", f"{m.paper}, {m.section}"),
        ("range", f"[{lo:g}, {hi:g}], {_direction(m)}"),
        ("install", f"`{m.install}`"),
        ("needs", needs),
        ("agrees with", f"{m.reference} (tolerance: {m.tolerance})"),
    ]
    lines = [BEGIN, "| | |", "| --- | --- |", *(f"| {k} | {v} |" for k, v in rows), END]
    return "\n".join(lines)


def index_page() -> str:
    """``docs/metrics/README.md``: every metric, grouped by domain and by paper."""
    out = [
        "# Metrics",
        "",
        "Generated from the registry by `python -m transcreval.core.metric_docs` (do not edit by hand);",
        "`transcreval list` prints the same facts in a terminal. Each name links to its page.",
        "",
        "## By domain",
    ]
    for d in DOMAINS:
        ms = list_metrics(domain=d)
        if not ms:
            continue
        out += [
            "",
            f"### {d}",
            "",
            "| metric | function | paper | range | measures |",
            "| --- | --- | --- | --- | --- |",
        ]
        out += [
            f"| [{m.name}]({m.name}.md) | `{m.functional}` | {m.paper} {m.section} | "
            f"[{m.value_range[0]:g}, {m.value_range[1]:g}] {_direction(m).split()[0]} | {m.summary} |"
            for m in ms
        ]
    out += ["", "## By paper"]
    for key, title in PAPERS.items():
        ms = list_metrics(paper=key)
        out += ["", f"### {key}", "", f"{title}.", ""]
        out += [f"- [{m.name}]({m.name}.md): {m.section}" for m in ms] if ms else ["- (none yet)"]
    return "\n".join(out) + "\n"


def sync_pages(root: Path, check: bool = False) -> list[str]:
    """Rewrite (or with ``check``, compare) every page's facts block and the index; returns
    the problems (missing pages or markers; stale blocks when checking)."""
    problems: list[str] = []
    folder = root / "docs" / "metrics"
    for m in list_metrics():
        page = root / m.doc_page
        if not page.exists():
            problems.append(f"{m.doc_page}: missing (every registered metric needs a page)")
            continue
        text = page.read_text(encoding="utf-8")
        if BEGIN not in text or END not in text:
            problems.append(f"{m.doc_page}: no {BEGIN} ... {END} block")
            continue
        head, rest = text.split(BEGIN, 1)
        _, tail = rest.split(END, 1)
        new = head + facts_block(m) + tail
        if new != text:
            if check:
                problems.append(f"{m.doc_page}: facts block out of date")
            else:
                page.write_text(new, encoding="utf-8")
    index = folder / "README.md"
    want = index_page()
    if not index.exists() or index.read_text(encoding="utf-8") != want:
        if check:
            problems.append("docs/metrics/README.md: index out of date")
        else:
            folder.mkdir(parents=True, exist_ok=True)
            index.write_text(want, encoding="utf-8")
    return problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m transcreval.core.metric_docs", description=__doc__)
    parser.add_argument("--check", action="store_true", help="only report what is out of date")
    parser.add_argument("--root", default=".", help="the repository root (default: the current directory)")
    args = parser.parse_args(argv)
    problems = sync_pages(Path(args.root), check=args.check)
    for p in problems:
        print(p, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
