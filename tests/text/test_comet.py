"""COMETScore (IMTBench S_text) against comet's own load_from_checkpoint + predict, offline.

The model is built here (tests/_helpers/comet_model.py): a 2-layer XLM-R-shaped encoder with
random weights and a sentencepiece tokenizer trained on a few sentences. Needs unbabel-comet,
which pins numpy < 2: these tests run in `make test-comet` (.venv-comet) and are skipped in the
main environment (tests/text/test_comet_dependency.py checks the MissingDependencyError there).
"""

from __future__ import annotations

import functools
import math
import shutil
import subprocess
import sys

import pytest

from tests._helpers.comet_env import needs_comet
from tests._helpers.tester import MetricCase, check_metric, join_lists
from transcreval.errors import EmptyInputError, InputError, WeightsNotFoundError

pytestmark = needs_comet

SRC = [
    "The cat sits on the mat.",
    "Buy one get one free.",
    "Open every day from 9 to 5.",
    "Teacher's lounge",
    "Terms and conditions apply.",
    "Grand opening sale starts on March 3.",
    "x",
    "",
    "Die Katze sitzt auf der Matte und schläft den ganzen Tag lang, bis jemand sie weckt.",
    "日本語のテキスト",
    "Ouvert tous les jours.",
]
MT = [
    "Le chat est assis.",
    "Achetez un, obtenez un gratuit.",
    "Ouvert tous les jours.",
    "Salle des professeurs",
    "Conditions générales.",
    "Grande vente d'ouverture le 3 mars.",
    "y",
    "vide",
    "The cat sits on the mat and sleeps all day long until someone wakes it.",
    "Japanese text",
    "Open every day.",
]
REF = [
    "Le chat est assis sur le tapis.",
    "Un acheté, un offert.",
    "Ouvert tous les jours de 9 h à 17 h.",
    "Salle des profs",
    "Voir conditions.",
    "Soldes d'ouverture dès le 3 mars.",
    "z",
    "",
    "The cat sits on the mat.",
    "Japanese text here",
    "Open daily.",
]
SLICES = [(0, 4), (4, 9), (9, 11)]
TOL = 1e-6


@pytest.fixture(scope="session")
def tiny_ckpt(tmp_path_factory):
    from tests._helpers.comet_model import build_tiny_comet

    return build_tiny_comet(tmp_path_factory.mktemp("comet") / "tiny")


@functools.cache
def _comet_model(ckpt: str):
    from transcreval.engines.comet.engine import import_comet, quiet

    with quiet():
        return import_comet().load_from_checkpoint(ckpt)


def comet_reference(ckpt, mt, ref, src, batch_size=16):
    """comet's own scores: load_from_checkpoint + predict, as the comet docs call them."""
    from transcreval.engines.comet.engine import quiet

    samples = [{"src": s, "mt": m, "ref": r} for s, m, r in zip(src, mt, ref)]
    with quiet():
        out = _comet_model(str(ckpt)).predict(samples, batch_size=batch_size, gpus=0, progress_bar=False)
    return list(out.scores), out.system_score


def metric(ckpt, **kw):
    from transcreval import COMETScore

    return COMETScore("test/tiny-comet", checkpoint=ckpt, **kw)


def test_the_tiny_model_spreads_its_scores(tiny_ckpt):
    scores, _ = comet_reference(tiny_ckpt, MT, REF, SRC)
    assert max(scores) - min(scores) > 0.2  # a mixed-up segment shows far beyond the tolerance
    assert len({round(s, 4) for s in scores}) == len(scores)


@pytest.mark.parametrize("batch_size", [1, 3, 16])
def test_segment_and_system_scores_agree_with_comet_predict(tiny_ckpt, batch_size):
    ref_scores, ref_system = comet_reference(tiny_ckpt, MT, REF, SRC)
    m = metric(tiny_ckpt, batch_size=batch_size)
    for a, b in SLICES:
        m.update(MT[a:b], REF[a:b], sources=SRC[a:b])
    res = m.compute()
    assert res.n == len(MT) and res.per_item.tolist() == pytest.approx(ref_scores, abs=TOL)
    assert res.value == pytest.approx(ref_system, abs=TOL)
    assert res.extras["n_outside_unit"] == 0
    from transcreval.functional import comet_score

    f = comet_score(MT, REF, SRC, model="test/tiny-comet", checkpoint=tiny_ckpt, batch_size=batch_size)
    assert f.value == pytest.approx(ref_system, abs=TOL)
    assert f.per_item.tolist() == pytest.approx(ref_scores, abs=TOL)


def test_the_twin_returns_the_class_result_signature_included(tiny_ckpt):
    """comet_score returns what COMETScore.compute() returns (value, per_item, extras, signature),
    and comet_score_from_stats reads raw per-batch statistics as well as the class's states."""
    from transcreval.functional import comet_score
    from transcreval.functional.text.comet import COMETOptions, comet_score_from_stats, comet_score_stats

    m = metric(tiny_ckpt, normalize=(0.2, 0.6))
    m.update(MT, REF, SRC)
    want = m.compute()
    got = comet_score(MT, REF, SRC, model="test/tiny-comet", checkpoint=tiny_ckpt, normalize=(0.2, 0.6))
    assert str(got.signature) == str(want.signature) and "norm:(0.2,0.6)->(0,1)" in str(got.signature)
    assert got.value == want.value and got.n == want.n and got.extras == want.extras
    assert got.per_item.tolist() == want.per_item.tolist()
    assert isinstance(m.options, COMETOptions) and m._signature_options() == m.options.signature_options()
    raw = comet_score_stats(MT, REF, SRC, scorer=m.scorer, options=m.options)
    assert comet_score_from_stats(raw, m.options).per_item.tolist() == want.per_item.tolist()


def test_bad_options_fail_before_the_inputs_are_read(tiny_ckpt):
    from transcreval.functional import comet_score

    with pytest.raises(InputError, match="batch_size"):
        comet_score("not a list", None, 5, model="test/tiny-comet", checkpoint=tiny_ckpt, batch_size=0)
    with pytest.raises(InputError, match="normalize must be"):
        comet_score("not a list", None, 5, model="test/tiny-comet", checkpoint=tiny_ckpt, normalize="unit")


def test_a_swapped_pair_of_segments_is_caught(tiny_ckpt):
    """The agreement test can fail: scores of reordered inputs differ from comet's by far more than 1e-6."""
    ref_scores, _ = comet_reference(tiny_ckpt, MT, REF, SRC)
    swapped = [MT[1], MT[0], *MT[2:]]
    res = metric(tiny_ckpt)(swapped, REF, SRC)
    assert max(abs(a - b) for a, b in zip(res.per_item.tolist(), ref_scores)) > 1e-3


@pytest.mark.ddp
def test_metric_harness_batches_and_1_2_4_processes(tiny_ckpt, ddp_pool):
    batches = [(MT[a:b], REF[a:b], SRC[a:b]) for a, b in SLICES]

    def reference(mt, ref, src):
        return comet_reference(tiny_ckpt, mt, ref, src)[1]

    from transcreval.functional import comet_score

    case = MetricCase(
        factory=functools.partial(metric, tiny_ckpt),
        functional=functools.partial(comet_score, model="test/tiny-comet", checkpoint=tiny_ckpt),
        reference=reference,
        batches=batches,
        join=join_lists,
        atol=TOL,
        same_atol=TOL,
        extras_keys=("n_outside_unit",),
    )
    check_metric(case, ddp_pool)


def test_normalize_maps_linearly_and_never_clips(tiny_ckpt):
    ref_scores, _ = comet_reference(tiny_ckpt, MT, REF, SRC)
    lo, hi = 0.2, 0.6
    res = metric(tiny_ckpt, normalize=(lo, hi))(MT, REF, SRC)
    mapped = [(s - lo) / (hi - lo) for s in ref_scores]
    assert res.per_item.tolist() == pytest.approx(mapped, abs=TOL / (hi - lo))
    assert res.extras["n_outside_unit"] == sum(1 for v in mapped if v < 0 or v > 1) > 0
    assert res.value == pytest.approx(sum(mapped) / len(mapped), abs=TOL / (hi - lo))
    assert "norm:(0.2,0.6)->(0,1)" in str(res.signature)
    ident = metric(tiny_ckpt, normalize="identity")(MT, REF, SRC)
    assert ident.per_item.tolist() == pytest.approx(ref_scores, abs=TOL)
    assert "norm:identity" in str(ident.signature)


def test_auto_normalize_refuses_a_model_of_unknown_range(tmp_path):
    from tests._helpers.comet_model import build_tiny_comet

    ckpt = build_tiny_comet(tmp_path / "linear", final_activation=None)
    with pytest.raises(InputError, match="normalize='identity'"):
        metric(ckpt)
    raw, _ = comet_reference(ckpt, MT, REF, SRC)
    assert metric(ckpt, normalize="identity")(MT, REF, SRC).per_item.tolist() == pytest.approx(raw, abs=TOL)


def test_signature_names_model_checkpoint_digest_and_comet_version(tiny_ckpt):
    from importlib.metadata import version

    from transcreval.weights import sha256_file

    sig = str(metric(tiny_ckpt).signature)
    assert sig.startswith("COMETScore|model:test/tiny-comet|ckpt:" + sha256_file(tiny_ckpt)[:12])
    assert f"unbabel-comet:{version('unbabel-comet')}" in sig and "transformers:" in sig


@pytest.mark.parametrize(
    ("args", "match"),
    [
        ((MT[:2], REF[:3], SRC[:2]), "mismatched lengths"),
        (("one", ["r"], ["s"]), "bare string"),
        ((MT[:2], [REF[0], None], SRC[:2]), r"target\[1\] must be a string"),
        ((MT[:1], REF[:1], 5), "sources must be a list"),
    ],
)
def test_bad_inputs_are_input_errors(tiny_ckpt, args, match):
    with pytest.raises(InputError, match=match):
        metric(tiny_ckpt).update(*args)


@pytest.mark.parametrize(
    ("kw", "match"),
    [
        ({"normalize": "unit"}, "normalize must be"),
        ({"normalize": (1, 0)}, "lo < hi"),
        ({"normalize": (0, math.inf)}, "finite"),
        ({"batch_size": 0}, "batch_size"),
        ({"device": "mps"}, "cpu' or a CUDA device"),
    ],
)
def test_bad_options_fail_when_built(tiny_ckpt, kw, match):
    with pytest.raises(InputError, match=match):
        metric(tiny_ckpt, **kw)


def test_empty_and_single_segment(tiny_ckpt):
    m = metric(tiny_ckpt)
    m.update([], [], [])
    with pytest.raises(EmptyInputError):
        m.compute()
    ref_scores, _ = comet_reference(tiny_ckpt, MT[:1], REF[:1], SRC[:1])
    m.update(MT[:1], REF[:1], SRC[:1])
    assert m.compute().value == pytest.approx(ref_scores[0], abs=TOL)


# ---------------------------------------------------------------------- finding the model
def test_offline_without_the_files_is_weights_not_found_naming_the_fetch_command(tmp_path, monkeypatch):
    from transcreval import COMETScore

    monkeypatch.setenv("TRANSCREVAL_OFFLINE", "1")
    monkeypatch.setenv("TRANSCREVAL_WEIGHTS_DIR", str(tmp_path / "empty"))
    monkeypatch.setenv("TRANSCREVAL_CACHE", str(tmp_path / "cache"))
    with pytest.raises(WeightsNotFoundError) as e:
        COMETScore()
    assert not isinstance(e.value, KeyError)
    assert "transcreval weights fetch comet-wmt22-da comet-wmt22-da-hparams xlm-roberta-large-config" in str(e.value)
    assert e.value.command.startswith("transcreval weights fetch comet-wmt22-da")


def test_an_unknown_name_offline_is_weights_not_found_not_comets_key_error(tmp_path, monkeypatch):
    from transcreval import COMETScore

    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf"))
    with pytest.raises(WeightsNotFoundError, match="not one transcreval knows") as e:
        COMETScore("Unbabel/no-such-comet-model")
    assert not isinstance(e.value, KeyError)


def test_a_checkpoint_without_hparams_or_a_missing_file_is_weights_not_found(tiny_ckpt, tmp_path):
    lone = tmp_path / "lone" / "checkpoints" / "model.ckpt"
    lone.parent.mkdir(parents=True)
    shutil.copyfile(tiny_ckpt, lone)
    with pytest.raises(WeightsNotFoundError, match=r"hparams\.yaml is missing"):
        metric(lone)
    with pytest.raises(WeightsNotFoundError, match="does not exist"):
        metric(tmp_path / "nowhere.ckpt")
    with pytest.raises(WeightsNotFoundError, match=r"no checkpoints/model\.ckpt"):
        metric(tmp_path)


def test_a_model_directory_works_as_the_checkpoint(tiny_ckpt):
    ref_scores, _ = comet_reference(tiny_ckpt, MT, REF, SRC)
    res = metric(tiny_ckpt.parent.parent)(MT, REF, SRC)
    assert res.per_item.tolist() == pytest.approx(ref_scores, abs=TOL)


def test_a_known_model_is_found_by_name_through_the_weights_resolver(tiny_ckpt, tmp_path, monkeypatch):
    """Files under their manifest names in TRANSCREVAL_WEIGHTS_DIR, verified by sha256, linked
    into comet's layout with the encoder files beside the checkpoint (no hub)."""
    from transcreval import COMETScore
    from transcreval.engines.comet.models import CometModelSpec, register_comet_model, unregister_comet_model
    from transcreval.weights import WeightsEntry, register_weights, sha256_file, unregister_weights

    root = tiny_ckpt.parent.parent
    files = {
        "tiny-comet-ckpt": (tiny_ckpt, "tiny-comet.ckpt"),
        "tiny-comet-hparams": (root / "hparams.yaml", "tiny-comet.hparams.yaml"),
        **{f"tiny-xlmr-{f}": (root / "xlmr-tiny" / f, f"tiny-xlmr.{f}") for f in ("config.json", "tokenizer.json")},
    }
    wdir = tmp_path / "weights"
    wdir.mkdir()
    try:
        for name, (src, filename) in files.items():
            shutil.copyfile(src, wdir / filename)
            register_weights(
                WeightsEntry(name, filename, sha256_file(src), src.stat().st_size, (), "test", used_by=("COMETScore",))
            )
        spec = CometModelSpec(
            "test/by-name",
            "tiny-comet-ckpt",
            "tiny-comet-hparams",
            (("config.json", "tiny-xlmr-config.json"), ("tokenizer.json", "tiny-xlmr-tokenizer.json")),
            unit_range=True,
        )
        register_comet_model(spec)
        monkeypatch.setenv("TRANSCREVAL_WEIGHTS_DIR", str(wdir))
        monkeypatch.setenv("TRANSCREVAL_CACHE", str(tmp_path / "cache"))
        m = COMETScore("test/by-name")
        assert m.scorer.files.source == "manifest" and m.scorer.files.encoder is not None
        assert m.scorer.files.checkpoint.parent.parent.parent == tmp_path / "cache" / "comet"
        ref_scores, ref_system = comet_reference(tiny_ckpt, MT, REF, SRC)
        res = m(MT, REF, SRC)
        assert res.per_item.tolist() == pytest.approx(ref_scores, abs=TOL)
        assert res.value == pytest.approx(ref_system, abs=TOL)
    finally:
        for name in files:
            unregister_weights(name)
        unregister_comet_model("test/by-name")


def test_importing_comet_leaves_the_root_logger_alone():
    code = (
        "import logging\n"
        "from transcreval.engines.comet.engine import import_comet\n"
        "import_comet()\n"
        "print(len(logging.getLogger().handlers), logging.getLogger().level)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, check=True)
    assert out.stdout.split() == ["0", str(30)]  # no handler added, level WARNING as Python starts it


@pytest.mark.skipif("not __import__('torch').cuda.is_available()", reason="needs a CUDA device")
def test_gpu_scores_agree_with_cpu(tiny_ckpt):
    ref_scores, _ = comet_reference(tiny_ckpt, MT, REF, SRC)
    res = metric(tiny_ckpt, device="cuda")(MT, REF, SRC)
    assert res.per_item.tolist() == pytest.approx(ref_scores, abs=1e-5)
