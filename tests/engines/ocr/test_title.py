"""The OCR title baseline: the largest (or most confident) recognised line."""

from __future__ import annotations

import numpy as np
import pytest
import sacrebleu
import torch
from PIL import Image, ImageDraw

from tests._helpers.text_images import SAMPLES, font, render
from transcreval.errors import InputError
from transcreval.ocr import OCRResult, OCRTitleExtractor, choose_title, get_detector


def _poster(title: str, subtitle: str, script: str = "latin") -> Image.Image:
    im = Image.new("RGB", (600, 800), (230, 225, 210))
    d = ImageDraw.Draw(im)
    d.text((40, 60), subtitle, font=font("latin", 26), fill=(40, 40, 40))
    d.text((40, 300), title, font=font(script, 64), fill=(10, 10, 10))
    d.text((40, 700), "IN CINEMAS JUNE 12", font=font("latin", 22), fill=(40, 40, 40))
    return im


def test_largest_line_is_the_title_and_matches_rapidocr_output():
    import shapely
    from rapidocr import RapidOCR

    img = _poster("NIGHT TRAIN", "A FILM BY ANNA LEE")
    ref = RapidOCR(params={"Global.log_level": "error"})(img, use_det=True, use_cls=False, use_rec=True)
    areas = [shapely.Polygon(b).area for b in ref.boxes]
    want = ref.txts[int(np.argmax(areas))]
    read = OCRTitleExtractor()
    (reading,) = read.read(img)
    assert reading.text == want == "NIGHT TRAIN"
    assert reading.n_lines == len(ref.txts) == 3 and reading.found
    assert reading.area == pytest.approx(max(areas))
    assert read(img) == ["NIGHT TRAIN"]


def test_confidence_rule_picks_the_most_confident_line():
    img = _poster("NIGHT TRAIN", "A FILM BY ANNA LEE")
    res = get_detector().detect(img, recognize=True)[0]
    (best,) = OCRTitleExtractor(rule="confidence").read(img)
    assert best.score == max(res.scores)
    assert best.text == res.texts[int(np.argmax(res.scores))]


def test_scripts_the_bundled_recogniser_reads_give_full_chrf():
    from transcreval import TitleChrF

    titles = ["NIGHT EXPRESS", SAMPLES["cjk"]]
    imgs = [_poster(titles[0], "PRESENTS"), _poster(titles[1], "PRESENTS", script="cjk")]
    read = OCRTitleExtractor()
    got = read(imgs)
    assert [g.replace(" ", "") for g in got] == [t.replace(" ", "") for t in titles]
    chrf = TitleChrF()
    chrf.update(got, titles)
    want = np.mean([sacrebleu.metrics.CHRF().sentence_score(h, [r]).score for h, r in zip(got, titles)])
    assert float(chrf.compute().value) == pytest.approx(want, abs=1e-9)
    assert float(chrf.compute().value) > 90


def test_no_text_reads_empty_and_ties_go_to_reading_order():
    (none,) = OCRTitleExtractor().read(Image.new("RGB", (300, 200), (90, 90, 90)))
    assert none.text == "" and not none.found and none.n_lines == 0 and none.score == 0.0
    info = get_detector().info_for(True)
    sq = np.array([[0, 0], [10, 0], [10, 10], [0, 10]], np.float32)
    res = OCRResult((sq, sq + 20, sq + 40), (100, 100), info, texts=("a", " ", "c"), scores=(0.9, 0.99, 0.9))
    assert choose_title(res).text == "a"  # equal areas: the first line; whitespace lines never count
    assert choose_title(res, "confidence").text == "a"
    assert choose_title(res, min_score=0.95).text == ""


def test_bad_arguments():
    with pytest.raises(InputError, match="rule"):
        OCRTitleExtractor(rule="biggest")  # type: ignore[arg-type]
    with pytest.raises(InputError, match="min_score"):
        OCRTitleExtractor(min_score=3)
    det_only = get_detector().detect(render("X", "latin").image)[0]
    with pytest.raises(InputError, match="recognize=True"):
        choose_title(det_only)


def test_signature_options_name_detector_recogniser_and_rule():
    opts = OCRTitleExtractor(rule="confidence").signature_options()
    assert opts["ocr"] == "rapidocr" and opts["title"] == "confidence"
    assert opts["rec"].split("@")[0].endswith(".onnx") and len(opts["rec"].split("@")[1]) == 12


def test_ocr_title_chrf_helper_equals_the_three_line_path():
    from transcreval import TitleChrF
    from transcreval.ocr import ocr_title_chrf

    outs = [_poster("NIGHT TRAIN", "PRESENTS"), _poster("NIGHT TRAM", "PRESENTS"), Image.new("RGB", (200, 100))]
    refs = [_poster("NIGHT TRAIN", "A FILM"), _poster("NIGHT TRAIN", "A FILM"), _poster("DAWN", "A FILM")]
    res = ocr_title_chrf(outs, refs)
    read = OCRTitleExtractor()
    m = TitleChrF()
    m.update(read(outs), read(refs))
    want = m.compute()
    assert res.value == want.value and torch.equal(res.per_item, want.per_item)
    assert res.extras["no_title_preds"] == 1 and res.extras["no_title_target"] == 0
    assert res.per_item[2] == 0.0 and res.per_item[0] == 100.0


def test_ocr_title_chrf_signature_records_the_reader():
    """Review 10, item 5: titles read by another detector or rule must not look comparable."""
    from transcreval.ocr import ocr_title_chrf

    outs, refs = [_poster("NIGHT TRAIN", "PRESENTS")], [_poster("NIGHT TRAIN", "A FILM")]
    reader = OCRTitleExtractor()
    res = ocr_title_chrf(outs, refs, reader=reader)
    sig = dict(res.signature.options)
    for k, v in reader.signature_options().items():
        assert sig[k] == v
    assert str(res.signature).startswith("TitleChrF|nc:6|") and "|ocr:rapidocr|" in str(res.signature)
    other = ocr_title_chrf(outs, refs, reader=OCRTitleExtractor(rule="confidence"))
    assert str(other.signature) != str(res.signature)
    assert dict(other.signature.options)["title"] == "confidence"


def test_unreadable_target_titles_are_left_out_never_scored():
    """Review 10, item 6: chrF against an empty reference is undefined (as OCRMaskIoU's both-empty pairs)."""
    from transcreval import TitleChrF
    from transcreval.errors import UndefinedValueError
    from transcreval.ocr import ocr_title_chrf

    blank = Image.new("RGB", (200, 100), (90, 90, 90))
    outs = [_poster("NIGHT TRAIN", "PRESENTS"), _poster("NIGHT TRAM", "PRESENTS"), blank, blank]
    refs = [_poster("NIGHT TRAIN", "A FILM"), blank, blank, _poster("DAWN", "A FILM")]
    res = ocr_title_chrf(outs, refs)
    # pair 1 (target unreadable) and pair 2 (nothing read on either side) are left out
    read = OCRTitleExtractor()
    m = TitleChrF()
    m.update([read(outs)[i] for i in (0, 3)], [read(refs)[i] for i in (0, 3)])
    want = m.compute()
    assert res.n == 2 and res.value == pytest.approx(want.value) and res.value == pytest.approx(50.0)
    assert res.per_item[0] == 100.0 and res.per_item[3] == 0.0
    assert torch.isnan(res.per_item[1]) and torch.isnan(res.per_item[2])
    assert res.extras["pairs"] == 4 and res.extras["no_title_target"] == 2 and res.extras["no_title_preds"] == 1
    assert res.extras["corpus"] == pytest.approx(want.extras["corpus"])
    with pytest.raises(UndefinedValueError, match="no title could be read"):
        ocr_title_chrf([outs[0], blank], [blank, blank])
