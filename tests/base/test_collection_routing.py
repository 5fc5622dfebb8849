"""Text metrics refuse image paths, and a collection routes different inputs to different members
PHashDistance + TitleChrF given image paths gave chrF 83.3 on the path strings."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from tests._helpers.comet_env import registry_params
from tests._helpers.every_metric import BUILDERS
from transcreval import MetricCollection, PHashDistance, TitleChrF, WordRecall
from transcreval.core.registry import list_metrics
from transcreval.errors import InputError

TITLES = ["Le voyage", "Parasite", "La strada"]
REFS = ["Le Voyage", "Parasite", "La Strada"]


@pytest.fixture
def posters(tmp_path: Path) -> tuple[list[str], list[str]]:
    rng = np.random.default_rng(0)
    out, src = [], []
    for i in range(3):
        a = rng.integers(0, 256, (40, 32, 3), dtype=np.uint8)
        for side, arr in (("out", a), ("src", np.clip(a.astype(int) + 9, 0, 255).astype(np.uint8))):
            p = tmp_path / f"{side}{i}.png"
            Image.fromarray(arr).save(p)
            (out if side == "out" else src).append(str(p))
    return out, src


# every registered text metric: the arguments after preds/target for 3 items
TEXT_EXTRA = {
    "TitleChrF": {},
    "PlanChrF": {},
    "WordRecall": {},
    "OCRRobustnessGap": {"split": ["simple", "hard", "hard"]},
    "FontSizeStability": {"font_sizes": [10, 12, 12]},
    "OCRAccuracy": {},
    "COMETScore": {"sources": ["The trip", "Parasite", "The road"]},  # needs comet
}


def test_the_table_covers_every_text_metric():
    assert set(TEXT_EXTRA) == {m.name for m in list_metrics(domain="text")}


@pytest.mark.parametrize("name", registry_params(sorted(TEXT_EXTRA)))
def test_text_metrics_refuse_image_paths_and_image_file_names(name, posters, tmp_path):
    cls = BUILDERS[name]  # a fresh metric per call
    extra = TEXT_EXTRA[name]
    cls().update(TITLES, REFS, **extra)  # texts are fine
    out, _ = posters
    no_suffix = tmp_path / "poster_without_suffix"
    no_suffix.write_bytes(Path(out[0]).read_bytes())
    bad = {
        "the path of an image file": [out[0], *TITLES[1:]],
        "a file name with an image extension": ["Le voyage", "missing/poster.JPG", "La strada"],
    }
    for why, preds in bad.items():
        with pytest.raises(InputError, match=why) as e:
            cls().update(preds, REFS, **extra)
        assert "preds[" in str(e.value) and "MetricCollection" in str(e.value)
        with pytest.raises(InputError, match=why):
            cls().update(TITLES, preds, **extra)
    with pytest.raises(InputError, match="the path of an image file"):  # recognised by its bytes
        cls().update([str(no_suffix), *TITLES[1:]], REFS, **extra)
    readme = tmp_path / "README"
    readme.write_text("not an image")
    cls().update([str(readme), *TITLES[1:]], REFS, **extra)  # an existing file that is no image: a text


def test_a_collection_of_image_and_text_metrics_given_paths_refuses_them(posters):
    out, src = posters
    col = MetricCollection([PHashDistance(), TitleChrF()])
    with pytest.raises(InputError, match="path of an image file"):
        col.update(out, src)
    assert all(m.update_count == 0 for _, m in col.items())  # atomic: nothing was accumulated


def test_input_maps_route_different_inputs_to_different_members(posters):
    out, src = posters
    col = MetricCollection(
        {
            "phash": PHashDistance(),
            "chrf": (TitleChrF(), {"preds": "pred_titles", "target": "ref_titles"}),
            "wr": (WordRecall(), {"preds": "pred_titles", "target": "ref_titles"}),
        }
    )
    batch = col(out, src, pred_titles=TITLES, ref_titles=REFS)
    col.update(preds=out, target=src, pred_titles=TITLES, ref_titles=REFS)  # keywords work too
    res = col.compute()
    alone = {"phash": PHashDistance()(out, src), "chrf": TitleChrF()(TITLES, REFS), "wr": WordRecall()(TITLES, REFS)}
    for k, r in alone.items():
        assert batch[k].value == pytest.approx(r.value) and res[k].value == pytest.approx(r.value)
        assert res[k].n == 2 * r.n
    # "preds" / "target" in a map name the collection's positional arguments
    swap = MetricCollection({"c": (TitleChrF(), {"preds": "target", "target": "preds"})})
    assert swap(TITLES, REFS)["c"].value == pytest.approx(TitleChrF()(REFS, TITLES).value)


def test_bad_input_maps_and_missing_inputs_are_clear_errors(posters):
    out, src = posters
    with pytest.raises(TypeError, match="has no parameter 'titles'"):
        MetricCollection({"c": (TitleChrF(), {"titles": "pred_titles"})})
    with pytest.raises(TypeError, match="input map"):
        MetricCollection({"c": (TitleChrF(), {})})
    with pytest.raises(TypeError, match="argument name"):
        MetricCollection({"c": (TitleChrF(), {"preds": 3})})
    col = MetricCollection({"p": PHashDistance(), "c": (TitleChrF(), {"preds": "pred_titles", "target": "ref_titles"})})
    with pytest.raises(TypeError, match=r"member 'c' takes target= from the argument 'ref_titles', which was not"):
        col.update(out, src, pred_titles=TITLES)
    with pytest.raises(TypeError, match=r"no member takes the keyword\(s\) \['titles'\].*pred_titles"):
        col.update(out, src, pred_titles=TITLES, ref_titles=REFS, titles=TITLES)
    # a list of members takes (metric, map) pairs too
    lst = MetricCollection([PHashDistance(), (TitleChrF(), {"preds": "pred_titles", "target": "ref_titles"})])
    assert set(lst(out, src, pred_titles=TITLES, ref_titles=REFS)) == {"PHashDistance", "TitleChrF"}
