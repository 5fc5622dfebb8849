"""IMTBench's judge prompts (App. A.3 rubric, our wording): harmonization and alignment, 0-10.

Eq. 4 has the evaluator see the translated image beside the reference image I_tgt
(``g_psi(I^_tgt, I_tgt)``): the ``-ref`` templates show both, the translated image first, and
ask for the scores of the translated image only. The templates without ``-ref`` show the
translated image alone (the behaviour before the reference role existed).
"""

from __future__ import annotations

from transcreval.judge.prompts.common import JSON_ONLY
from transcreval.judge.templates import PromptTemplate

__all__ = [
    "IMTBENCH_ALIGNMENT",
    "IMTBENCH_HARMONIZATION",
    "IMTBENCH_HARMONIZATION_REF",
    "IMTBENCH_JOINT",
    "IMTBENCH_JOINT_REF",
]

_SYNTHETIC_NOTE = "The images are synthetic or machine-edited; no privacy concerns apply."
_HARMONIZATION_RUBRIC = (
    "naturalness (0-10): 0 = the scene is clearly unnatural (distance, shadows or lighting are wrong); "
    "10 = the image looks entirely natural.\n"
    "artifacts (0-10): 0 = large areas of distortion, watermarks, scratches, blurred faces, malformed body "
    "parts or subjects that do not blend in; 10 = no artifacts at all."
)
_ALIGNMENT_RUBRIC = (
    "alignment (0-10): how well the translation text matches the text rendered in the image. 0 = it does not "
    "match at all, or contradicts it in major parts; 10 = it matches perfectly in meaning and in every key "
    "detail. Criteria: key facts must agree exactly (figures, dates, units of measure, prices, proper names "
    "and negations); it must cover every prominent text region (headline before body before small print), and "
    "a missing prominent region costs a lot; rephrasing is fine when the meaning is kept, contradictions are "
    "penalised heavily; a term that recurs in the image needs the same rendering every time; image text that "
    "cannot be made out is not held against the translation: assess only the legible parts."
)

IMTBENCH_HARMONIZATION = PromptTemplate(
    id="imtbench.harmonization",
    version="2",
    images=("image",),
    output={"reasoning": "string", "naturalness": "integer 0-10", "artifacts": "integer 0-10"},
    user=(
        "{image:image}\n"
        "You are a localisation quality reviewer. The text in this image was translated and rendered back into "
        "the image. Judge the image itself, with two integer scores:\n"
        f"{_HARMONIZATION_RUBRIC}\n{_SYNTHETIC_NOTE} Keep the reasoning short.\n"
        f"{JSON_ONLY}\n"
        '{{"reasoning": "<text>", "naturalness": <integer 0-10>, "artifacts": <integer 0-10>}}'
    ),
)

IMTBENCH_ALIGNMENT = PromptTemplate(
    id="imtbench.alignment",
    version="2",
    images=("image",),
    output={"reasoning": "string", "alignment": "integer 0-10"},
    user=(
        "{image:image}\n"
        "You are a localisation quality reviewer. The text in this image was translated and rendered back into "
        'the image; the system also produced this translation text:\n"{translation}"\n'
        f"Score {_ALIGNMENT_RUBRIC}\n{_SYNTHETIC_NOTE} Keep the reasoning short.\n"
        f"{JSON_ONLY}\n"
        '{{"reasoning": "<text>", "alignment": <integer 0-10>}}'
    ),
)

IMTBENCH_JOINT = PromptTemplate(
    id="imtbench.joint",
    version="2",
    images=("image",),
    output={
        "reasoning": "string",
        "naturalness": "integer 0-10",
        "artifacts": "integer 0-10",
        "alignment": "integer 0-10",
    },
    user=(
        "{image:image}\n"
        "You are a localisation quality reviewer. The text in this image was translated and rendered back into "
        'the image; the system also produced this translation text:\n"{translation}"\n'
        "Give three integer scores.\n"
        f"{_HARMONIZATION_RUBRIC}\n{_ALIGNMENT_RUBRIC}\n{_SYNTHETIC_NOTE} Keep the reasoning short.\n"
        f"{JSON_ONLY}\n"
        '{{"reasoning": "<text>", "naturalness": <integer 0-10>, "artifacts": <integer 0-10>, '
        '"alignment": <integer 0-10>}}'
    ),
)

_REFERENCE_NOTE = (
    "The second image is the reference: the benchmark's ground-truth translation of the same source image. Use it "
    "only to see what a natural, well-blended result of this edit looks like; every score is about the first image."
)

IMTBENCH_HARMONIZATION_REF = PromptTemplate(
    id="imtbench.harmonization-ref",
    version="1",
    images=("image", "reference"),
    output={"reasoning": "string", "naturalness": "integer 0-10", "artifacts": "integer 0-10"},
    user=(
        "{image:image}\n{image:reference}\n"
        "You are a localisation quality reviewer. The text in the first image was translated and rendered back "
        f"into the image by the system under review. {_REFERENCE_NOTE}\n"
        "Judge the first image with two integer scores:\n"
        f"{_HARMONIZATION_RUBRIC}\n{_SYNTHETIC_NOTE} Keep the reasoning short.\n"
        f"{JSON_ONLY}\n"
        '{{"reasoning": "<text>", "naturalness": <integer 0-10>, "artifacts": <integer 0-10>}}'
    ),
)

IMTBENCH_JOINT_REF = PromptTemplate(
    id="imtbench.joint-ref",
    version="1",
    images=("image", "reference"),
    output={
        "reasoning": "string",
        "naturalness": "integer 0-10",
        "artifacts": "integer 0-10",
        "alignment": "integer 0-10",
    },
    user=(
        "{image:image}\n{image:reference}\n"
        "You are a localisation quality reviewer. The text in the first image was translated and rendered back "
        "into the image by the system under review; the system also produced this translation text:\n"
        f'"{{translation}}"\n{_REFERENCE_NOTE}\n'
        "Give three integer scores for the first image.\n"
        f"{_HARMONIZATION_RUBRIC}\n{_ALIGNMENT_RUBRIC}\n{_SYNTHETIC_NOTE} Keep the reasoning short.\n"
        f"{JSON_ONLY}\n"
        '{{"reasoning": "<text>", "naturalness": <integer 0-10>, "artifacts": <integer 0-10>, '
        '"alignment": <integer 0-10>}}'
    ),
)
