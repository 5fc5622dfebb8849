"""PosterIQ pieces the protocol builds on: the text cleaning, the label readers,
the code's choice rules and refusal filter, the shipped vocabularies, the Table 1 helpers.

Expected numbers are worked out by hand in the comments, from the paper's Supp. B (paper mode)
or from the behaviour of PosterIQ's script as docs/posteriq-paper-vs-code.md describes it.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from transcreval.data.posteriq import font_attributes, font_colors, font_effects
from transcreval.errors import InputError
from transcreval.functional.choice import labels as L
from transcreval.functional.text.cleaning import posteriq_clean, strip_invisible
from transcreval.protocols.posteriq import font_size_std, posteriq_summary, wr_gap

CODE = "posteriq-code"


# ---------------------------------------------------------------- cleaning
def test_cleaning():
    assert strip_invisible("a b\tc\nd\\ne\u2060") == "abcde"
    assert posteriq_clean(["Pop-Art!", " 7"]) == "PopArt7"


# ---------------------------------------------------------------- label readers (paper mode)
@pytest.mark.parametrize(
    "answer,label",
    [
        ("['center-aligned']", "center-aligned"),
        ("Center-Aligned", "center-aligned"),
        ("The text is centred.", "center-aligned"),
        ("left aligned", "left-aligned"),
        ("RIGHT", "right-aligned"),
        ("left-aligned or right-aligned", None),  # two labels: unreadable
        ("I can't tell", None),
    ],
)
def test_read_alignment(answer, label):
    assert L.read_alignment(answer) == label


@pytest.mark.parametrize(
    "answer,label",
    [
        ("counterclockwise rotation", "counterclockwise rotation"),
        ("Counter-clockwise.", "counterclockwise rotation"),  # never also "clockwise"
        ("anticlockwise", "counterclockwise rotation"),
        ("[clockwise rotation]", "clockwise rotation"),
        ("The text is rotated clockwise", "clockwise rotation"),
        ("no rotation", "no rotation"),
        ("The text is not rotated.", "no rotation"),
        ("clockwise or counterclockwise", None),
        ("slanted", None),
    ],
)
def test_read_rotation(answer, label):
    assert L.read_rotation(answer) == label


@pytest.mark.parametrize(
    "answer,letter",
    [
        ("A", "A"),
        ("**B**", "B"),
        ("['B']", "B"),
        ("Image A", "A"),
        ("Poster B has a more visually appealing layout.", "B"),
        ("A has the better layout", "A"),
        ("Answer: A", "A"),
        ("I prefer B.", "B"),
        ("Image A or image B", None),
        ("a nice layout overall", None),  # the article, not an option
        ("", None),
    ],
)
def test_read_ab(answer, letter):
    assert L.read_ab(answer) == letter


def test_read_letter_and_colour_effects():
    assert L.read_letter("The answer is C.", "ABCDEFGHI") == "C"
    assert L.read_letter("C, maybe D", "ABCD") is None
    colors, effects = font_colors(), font_effects()
    # longest phrase first: "reddish-brown" is not also "red", "colorful background" is an
    # effect (not the colour "colorful"), "composed of flame" is not also "flame"
    got = L.read_color_effects("reddish-brown; composed of flame, colorful background", colors, effects)
    assert got == ("reddish-brown", ["composed of flame", "colorful background"])
    assert L.read_color_effects("red and blue, smoke", colors, effects) == (None, ["smoke"])  # two colours
    assert L.read_color_effects("  ", colors, effects) == (None, None)


# ---------------------------------------------------------------- the script's rules
def test_code_refusal_filter_and_choice_rules():
    # refused: no letter A-I at all, or > 5 cleaned characters with several letters, each once
    assert L.posteriq_code_refused("I cannot tell") is False  # the capital "I" is option I: kept
    assert L.posteriq_code_refused("none of these") is True
    assert L.posteriq_code_refused("B") is False
    assert L.posteriq_code_refused("A, B, C") is False  # cleans to "ABC": 3 characters, kept
    assert L.posteriq_code_refused("Options A, B or C") is True  # "OptionsABorC": A, B, C once each
    assert L.posteriq_code_refused("The answer is B") is False  # "TheanswerisB": one letter
    # font matching: > 20 cleaned characters is wrong, else the target as a substring
    assert L.posteriq_code_font_matching("A, B, C", "B") is True
    assert L.posteriq_code_font_matching("The matching font is option B here", "B") is False
    assert L.posteriq_code_contains("answer: B", "B") is True
    # font effect 2: options not cleaned, the answer cleaned: spaced labels never match
    assert L.posteriq_code_effects("red, metallic texture", "red", ["metallic texture"]) == (True, 0.0)
    assert L.posteriq_code_effects("red", "red", []) == (True, None)
    assert L.posteriq_code_layout_comparison("B is better", "B") is True
    assert L.posteriq_code_layout_comparison("!!", "A") is None  # the script crashes on it
    assert L.posteriq_code_alignment("['center-aligned']", ["center-aligned"]) == [True]
    assert L.posteriq_code_rotation("counterclockwise rotation", "clockwise rotation") is False
    assert L.posteriq_code_rotation("clockwise rotation", "clockwise rotation") is True
    assert L.posteriq_code_style(" pop art ", "Pop Art") is True
    assert L.posteriq_code_style("", "Pop Art") is True  # "" is in every target (the script's rule)


# ---------------------------------------------------------------- shipped vocabularies
def test_vocabularies_ship_with_the_package():
    attrs = font_attributes()
    assert len(attrs) == 37 and len(set(attrs)) == 37
    assert {"modern", "playful", "serif", "italic"} <= set(attrs)  # the paper's examples
    assert len(font_colors()) == 16 and "reddish-brown" in font_colors()
    assert len(font_effects()) == 48 and "metallic texture" in font_effects()


# ---------------------------------------------------------------- Table 1 helpers
@pytest.mark.parametrize(
    "bad", [[0.8, math.nan], [0.8, None], [0.8, "0.5"], [True], [1.5], math.inf, "0.8", None, {"a": 1}]
)
def test_wr_gap_refuses_bad_values(bad):
    with pytest.raises(InputError):
        wr_gap(bad, 0.5)


def test_wr_gap_and_font_size_std_accept_arrays():
    assert wr_gap(np.array([0.8, 0.6]), torch.tensor([0.5])) == pytest.approx(0.2)
    assert wr_gap(np.float32(0.75), 0.25) == pytest.approx(0.5)
    assert font_size_std({80: np.array([1.0, 0.8]), 60: 0.6})[0] == pytest.approx(0.75)


@pytest.mark.parametrize(
    "by_size,ddof",
    [
        ({80: [0.1], 60: [None]}, 1),
        ({80: [0.1], 60: ["a"]}, 1),
        ({80: 0.1, 60: math.nan}, 1),
        ({80: 0.1, 60: 0.2}, "1"),
        ({80: 0.1, 60: 0.2}, -1),
        ({80: 0.1, 60: 0.2}, 1.5),
        ({80: 0.1, 60: 0.2}, True),
        ([0.1, 0.2], 1),
        ({80: []}, 1),
    ],
)
def test_font_size_std_refuses_bad_input(by_size, ddof):
    with pytest.raises(InputError):
        font_size_std(by_size, ddof=ddof)


def test_summary_refuses_non_numbers():
    with pytest.raises(InputError, match="number"):
        posteriq_summary({"logo_ocr_ac": "0.9"})
    with pytest.raises(InputError, match="number"):
        posteriq_summary({"logo_ocr_ac": None})


# ---------------------------------------------------------------- the style list (issue 33)
#: the 17 styles of PosterIQ's text (§3, "17 mainstream styles") and its style figure, typed from
#: the paper; its printed style-understanding prompt lists 16 of them ("New Chinese Aesthetic" missing)
PAPER_FIGURE_STYLES = {
    "Acid Graphics", "Cinema 4D Style", "Cyberpunk Style", "Diffuse Glow Style", "Flat Design", "Glitch Art",
    "Illustrative Style", "Japanese Style", "Memphis Style", "Minimalist Style", "New Chinese Aesthetic",
    "Papercut Style", "Pixel Art", "Pop Art", "Retro Style", "Typographic Minimalism", "Vaporwave Style",
}  # fmt: skip


def test_style_understanding_reads_all_17_styles_in_both_modes():
    from transcreval.functional.choice.style_score import POSTERIQ_STYLES, read_label
    from transcreval.protocols.posteriq import evaluate

    assert len(POSTERIQ_STYLES) == 17 and set(POSTERIQ_STYLES) == PAPER_FIGURE_STYLES
    assert read_label("New Chinese Aesthetic", POSTERIQ_STYLES) == "New Chinese Aesthetic"
    recs = [
        {"system": "S", "task": "style_understanding", "item_id": "a", "answer": "New Chinese Aesthetic",
         "target": "New Chinese Aesthetic"},
        {"system": "S", "task": "style_understanding", "item_id": "b", "answer": "Pop Art", "target": "Retro Style"},
    ]  # fmt: skip
    for mode in ("paper", CODE):
        assert evaluate(recs, mode=mode).values("S", "style_understanding_correct") == [1.0, 0.0], mode
