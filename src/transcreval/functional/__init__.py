"""Pure functions, one module per metric family; each metric class is built on the same pieces."""

from transcreval.functional.choice import k_option_score
from transcreval.functional.chrf import corpus_chrf, sentence_chrf, title_chrf
from transcreval.functional.phash import (
    edit_intensity_split,
    hamming_distance,
    phash,
    phash_bits,
    phash_distance,
    phash_hex,
)

__all__ = [
    "corpus_chrf",
    "edit_intensity_split",
    "hamming_distance",
    "k_option_score",
    "phash",
    "phash_bits",
    "phash_distance",
    "phash_hex",
    "sentence_chrf",
    "title_chrf",
]
