"""Demo section: pHash edit intensity (MPTc-Bench), title chrF (MPTc) and word recall (PosterIQ)."""

from __future__ import annotations

from typing import TYPE_CHECKING, TextIO

from transcreval.utils.text_table import format_table

if TYPE_CHECKING:
    from transcreval.demo.context import DemoContext

TITLE = "pHash edit intensity, title chrF, title word recall"


def run(ctx: DemoContext, out: TextIO) -> None:
    from transcreval.functional.image.phash import edit_intensity_split, phash
    from transcreval.image.phash import PHashDistance
    from transcreval.text.chrf import TitleChrF
    from transcreval.text.word_recall import WordRecall

    posters = ctx.posters
    src_hashes = phash([p.source for p in posters])
    tgt_hashes = phash([p.target for p in posters])
    ref_dist = PHashDistance()
    ref_dist.update(preds=tgt_hashes, target=src_hashes)
    rows = []
    per_system = {}
    for name in ctx.systems:
        dist, chrf, recall = PHashDistance(), TitleChrF(), WordRecall()
        titles = [p.output_titles[name] for p in posters]
        references = [p.target_title for p in posters]
        recall.update(preds=titles, target=references)
        d = dist.forward(preds=phash([p.outputs[name] for p in posters]), target=src_hashes).per_item
        scores = chrf.forward(preds=titles, target=references).per_item
        assert d is not None and scores is not None
        for p, di, band, sc in zip(posters, d.tolist(), edit_intensity_split(d), scores.tolist()):
            rows.append([p.poster_id, p.market, name, di, band, p.output_titles[name], p.target_title, f"{sc:.2f}"])
        per_system[name] = (dist.compute(), chrf.compute(), recall.compute())
    header = ["poster", "market", "system", "pHash(src,out)", "band", "title read", "reference title", "chrF"]
    print(format_table(rows, header), end="\n\n", file=out)

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
    print(format_table(summary, header), end="\n\n", file=out)
    print(f"human target posters vs source: mean pHash distance {ref_dist.compute().value:.2f}", file=out)
    print("\nsignatures:", file=out)
    first = ctx.systems[0]
    print(f"  {per_system[first][0]}", file=out)
    print(f"  {per_system[first][1]}", file=out)
