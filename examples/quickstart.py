"""Score a few poster pairs with pHash distance and title chrF (runs offline in seconds)."""

from __future__ import annotations

from transcreval import MetricCollection, PHashDistance, TitleChrF
from transcreval.data.demo_set import build_demo_set
from transcreval.functional import edit_intensity_split, title_chrf


def main() -> None:
    posters = build_demo_set()
    sources = [p.source for p in posters]
    outputs = [p.outputs["text-edit"] for p in posters]

    dist = PHashDistance()
    dist.update(preds=outputs, target=sources)  # system outputs first, the source posters second
    res = dist.compute()
    print(res)
    print("bands:", edit_intensity_split(res.per_item))

    titles = MetricCollection({"title": TitleChrF()})
    titles.update(preds=[p.output_titles["redesign"] for p in posters], target=[p.target_title for p in posters])
    print(titles.compute()["title"])
    print("functional:", title_chrf(["Le voyage de Chihiro"], ["Le Voyage de Chihiro"]).value)


if __name__ == "__main__":
    main()
