"""A tiny COMET model built on disk, so comet's real ``load_from_checkpoint`` + ``predict`` run offline.

:func:`build_tiny_comet` writes, under a directory:

* ``xlmr-tiny/``: an XLM-R-shaped encoder (2 layers, hidden size 32) as a Hugging Face model
  directory: ``config.json``, a sentencepiece model trained here on a few sentences
  (``sentencepiece.bpe.model``, the file name XLM-R uses) and the matching fast tokenizer
  (``tokenizer.json``, written with the ``tokenizers`` library in XLM-R's layout: ``<s>``,
  ``<pad>``, ``</s>``, ``<unk>``, the sentencepiece pieces, ``<mask>``);
* ``checkpoints/model.ckpt`` + ``hparams.yaml``: a COMET ``RegressionMetric`` (the estimator
  family of ``Unbabel/wmt22-comet-da``: avg pooling, sparsemax layer mix, sigmoid output) with
  random weights (seeded), saved as a Lightning checkpoint whose ``pretrained_model`` is the
  absolute path of ``xlmr-tiny/``.

The estimator's weights are scaled up so that segment scores spread over (0, 1) instead of
sitting near 0.5: a mix-up of segments then shows by far more than the 1e-6 tolerance.
Needs the comet environment (``make test-comet``).
"""

from __future__ import annotations

from pathlib import Path

SENTENCES = (
    "The cat sits on the mat.",
    "Le chat est assis sur le tapis.",
    "Die Katze sitzt auf der Matte.",
    "Grand opening sale starts on March 3.",
    "Grande vente d'ouverture le 3 mars.",
    "Buy one get one free.",
    "Un acheté, un offert.",
    "Terms and conditions apply.",
    "Voir conditions en magasin.",
    "Teacher's lounge",
    "Salle des professeurs",
    "Lehrerzimmer",
    "Open every day from 9 to 5.",
    "Ouvert tous les jours de 9 h à 17 h.",
    "Täglich geöffnet von 9 bis 17 Uhr.",
    "El gato está en la alfombra.",
)
ENCODER_FILES = ("config.json", "tokenizer.json", "sentencepiece.bpe.model")


def _tokenizer(encoder: Path, corpus: Path) -> int:
    import sentencepiece as spm
    from tokenizers import Regex, Tokenizer, decoders, models, normalizers, pre_tokenizers, processors
    from transformers import XLMRobertaTokenizerFast

    spm.SentencePieceTrainer.train(
        input=str(corpus),
        model_prefix=str(encoder / "sentencepiece.bpe"),
        vocab_size=120,
        model_type="unigram",
        character_coverage=1.0,
        num_threads=1,
        hard_vocab_limit=False,
        normalization_rule_name="identity",
        minloglevel=2,
    )
    sp = spm.SentencePieceProcessor(model_file=str(encoder / "sentencepiece.bpe.model"))
    specials = [("<s>", 0.0), ("<pad>", 0.0), ("</s>", 0.0), ("<unk>", 0.0)]
    pieces = [(sp.id_to_piece(i), sp.get_score(i)) for i in range(3, sp.get_piece_size())]
    tok = Tokenizer(models.Unigram([*specials, *pieces, ("<mask>", 0.0)], unk_id=3, byte_fallback=False))
    tok.normalizer = normalizers.Sequence([normalizers.Replace(Regex(" {2,}"), " ")])
    tok.pre_tokenizer = pre_tokenizers.Metaspace(replacement="\u2581", prepend_scheme="always")
    tok.decoder = decoders.Metaspace(replacement="\u2581", prepend_scheme="always")
    tok.post_processor = processors.TemplateProcessing(
        single="<s> $A </s>", pair="<s> $A </s> </s> $B </s>", special_tokens=[("<s>", 0), ("</s>", 2)]
    )
    fast = XLMRobertaTokenizerFast(
        tokenizer_object=tok,
        bos_token="<s>",
        eos_token="</s>",
        sep_token="</s>",
        cls_token="<s>",
        unk_token="<unk>",
        pad_token="<pad>",
        mask_token="<mask>",
    )
    fast.save_pretrained(str(encoder))
    return len(fast)


def build_tiny_comet(root: Path, *, seed: int = 0, final_activation: str | None = "sigmoid") -> Path:
    """Write the tiny model under ``root``; returns the checkpoint path."""
    import pytorch_lightning as pl
    import torch
    import yaml
    from comet.models import RegressionMetric
    from transformers import XLMRobertaConfig

    root.mkdir(parents=True, exist_ok=True)
    encoder = root / "xlmr-tiny"
    encoder.mkdir(exist_ok=True)
    corpus = root / "corpus.txt"
    corpus.write_text("\n".join(SENTENCES * 3), encoding="utf-8")
    vocab = _tokenizer(encoder, corpus)
    XLMRobertaConfig(
        vocab_size=vocab,
        hidden_size=32,
        num_hidden_layers=2,
        num_attention_heads=2,
        intermediate_size=64,
        max_position_embeddings=130,
        type_vocab_size=1,
        pad_token_id=1,
        bos_token_id=0,
        eos_token_id=2,
    ).save_pretrained(str(encoder))

    torch.manual_seed(seed)
    model = RegressionMetric(
        pretrained_model=str(encoder),
        load_pretrained_weights=False,
        local_files_only=True,
        hidden_sizes=[16],
        layer_transformation="sparsemax",
        layer_norm=False,
        final_activation=final_activation,
    )
    with torch.no_grad():
        for p in model.estimator.parameters():
            p.mul_(3.0)
    hparams = {**dict(model.hparams), "load_pretrained_weights": True, "local_files_only": False}
    ckpt = root / "checkpoints" / "model.ckpt"
    ckpt.parent.mkdir(exist_ok=True)
    torch.save(
        {"state_dict": model.state_dict(), "hyper_parameters": hparams, "pytorch-lightning_version": pl.__version__},
        ckpt,
    )
    (root / "hparams.yaml").write_text(yaml.safe_dump(hparams), encoding="utf-8")
    return ckpt
