"""``protocols.mptc.similarity_metrics(**kwargs)`` passes the feature options to every member
FID_GT and FID_SRC refused [-1, 1] input and asked for the ``input_range``
the caller had passed, because only CLIP received it."""

from __future__ import annotations

import pytest

from tests._helpers.model_weights import TINY_CLIP, inception_file, poster_like, tiny_clip_checkpoint
from transcreval.features import FeatureCache
from transcreval.functional import clip_similarity, fid


def test_input_range_batch_size_and_feature_cache_reach_every_member(tmp_path):
    from transcreval.protocols.mptc import similarity_metrics

    w = inception_file(3)
    cache = tmp_path / "features.sqlite"
    coll = similarity_metrics(
        clip_model=TINY_CLIP,
        clip_pretrained=tiny_clip_checkpoint(),
        fid_weights=w,
        input_range=[-1, 1],
        batch_size=2,
        feature_cache=str(cache),
    )
    for key in ("CLIP", "FID_GT", "FID_SRC"):
        opts = coll[key].options
        assert (opts.input_range, opts.batch_size) == ((-1.0, 1.0), 2), key
        assert isinstance(opts.feature_cache, FeatureCache) and opts.feature_cache.path == cache, key
    out_, gt, src = (poster_like(3, 64, 48, s).float() / 127.5 - 1 for s in (1, 2, 3))
    coll.update(out_, gt, source=src)
    res = coll.compute()
    kw = {"input_range": (-1, 1)}
    assert res["FID_GT"].value == pytest.approx(fid(out_, gt, weights=w, **kw).value, rel=1e-9)
    assert res["FID_SRC"].value == pytest.approx(fid(out_, src, weights=w, **kw).value, rel=1e-9)
    clip = clip_similarity(out_, gt, model=TINY_CLIP, pretrained=tiny_clip_checkpoint(), **kw)
    assert res["CLIP"].value == pytest.approx(clip.value, abs=1e-9)
    assert len(FeatureCache(cache)) > 0


def test_clip_options_go_to_clip_and_unknown_keywords_fail():
    from transcreval.protocols.mptc import similarity_metrics

    coll = similarity_metrics(
        clip_model=TINY_CLIP, clip_pretrained=tiny_clip_checkpoint(), fid_weights=inception_file(3), crop="pad"
    )
    assert coll["CLIP"].crop == "pad"
    with pytest.raises(TypeError, match="no_such_option"):
        similarity_metrics(
            clip_model=TINY_CLIP,
            clip_pretrained=tiny_clip_checkpoint(),
            fid_weights=inception_file(3),
            no_such_option=1,
        )
