"""The ``transcreval`` command: ``transcreval demo`` and ``transcreval --version``."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import TextIO

from transcreval._version import __version__


def _width(text: str) -> int:
    """Terminal columns of a string (East Asian wide characters take two, marks none)."""
    import unicodedata

    return sum(0 if unicodedata.combining(c) else 2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)


def _table(rows: list[list[str]], header: list[str]) -> str:
    widths = [max(_width(str(r[i])) for r in [header, *rows]) for i in range(len(header))]
    line = "  ".join("-" * w for w in widths)
    fmt = lambda r: "  ".join(str(c) + " " * (w - _width(str(c))) for c, w in zip(r, widths)).rstrip()  # noqa: E731
    return "\n".join([fmt(header), line, *(fmt(r) for r in rows)])


def run_demo(out: TextIO | None = None) -> int:
    """Score the embedded demo set with every metric that exists so far and print tables."""
    from transcreval.data.demo_set import build_demo_set
    from transcreval.functional.phash import edit_intensity_split, phash
    from transcreval.image.phash import PHashDistance
    from transcreval.text.chrf import TitleChrF
    from transcreval.text.word_recall import WordRecall

    stream = out if out is not None else sys.stdout
    posters = build_demo_set()
    systems = list(posters[0].outputs)
    print(
        f"transcreval {__version__} demo: {len(posters)} posters x {len(systems)} systems (embedded set)\n", file=stream
    )

    src_hashes = phash([p.source for p in posters])
    tgt_hashes = phash([p.target for p in posters])
    ref_dist = PHashDistance()
    ref_dist.update(src_hashes, tgt_hashes)
    rows = []
    per_system = {}
    for name in systems:
        dist, chrf, recall = PHashDistance(), TitleChrF(), WordRecall()
        recall.update([p.target_title for p in posters], [p.output_titles[name] for p in posters])
        out_hashes = phash([p.outputs[name] for p in posters])
        d = dist.forward(src_hashes, out_hashes).per_item
        assert d is not None
        bands = edit_intensity_split(d)
        scores = chrf.forward([p.output_titles[name] for p in posters], [p.target_title for p in posters]).per_item
        assert scores is not None
        for p, di, band, sc in zip(posters, d.tolist(), bands, scores.tolist()):
            rows.append(
                [p.poster_id, p.market, name, str(di), band, p.output_titles[name], p.target_title, f"{sc:.2f}"]
            )
        per_system[name] = (dist.compute(), chrf.compute(), recall.compute())
    header = ["poster", "market", "system", "pHash(src,out)", "band", "title read", "reference title", "chrF"]
    print(_table(rows, header), end="\n\n", file=stream)

    summary = []
    for name, (dres, cres, wres) in per_system.items():
        ex = dres.extras
        summary.append(
            [
                name,
                f"{dres.value:.2f}",
                f"{ex['surface']}/{ex['intermediate']}/{ex['deep']}",
                f"{cres.value:.2f}",
                f"{cres.extras['corpus']:.2f}",
                f"{wres.value:.2f}",
            ]
        )
    header = ["system", "mean pHash", "surface/interm./deep", "TitleChrF", "corpus chrF", "title WR (PosterIQ)"]
    print(_table(summary, header), end="\n\n", file=stream)
    print(f"human target posters vs source: mean pHash distance {ref_dist.compute().value:.2f}", file=stream)
    print("\nsignatures:", file=stream)
    first = systems[0]
    print(f"  {per_system[first][0]}", file=stream)
    print(f"  {per_system[first][1]}", file=stream)
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="transcreval", description="Evaluation metrics for image transcreation.")
    parser.add_argument("--version", action="version", version=f"transcreval {__version__}")
    sub = parser.add_subparsers(dest="command")
    sub.add_parser("demo", help="score the small embedded demo set and print the results")
    from transcreval.weights import cli as weights_cli

    weights_cli.add_parser(sub)
    args = parser.parse_args(argv)
    if args.command == "demo":
        return run_demo()
    if args.command == "weights":
        return weights_cli.run(args)
    parser.print_help()
    return 2


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
