"""The built-in prompt templates: the papers' rubrics (scales, criteria, answer keys) in our words.

The papers' own prompt texts stay in the papers. Each built-in template is a data file of the
package, ``transcreval/engines/judge/prompts/<id>.txt``, in the format of a user's template file
(:mod:`transcreval.engines.judge.prompt_template`) with more front matter: ``id``, ``version``,
``images`` (the image slots, comma-separated, in the order unplaced images are appended),
``output`` (the answer keys with their types, a JSON object) and optionally ``max_tokens``.
The text after the front matter is the user message (or ``[system]`` / ``[user]`` sections);
the file's final newline is not part of it. A user who needs the published wording loads it
from a file (``template=PATH``), and the metric's parser accepts the answer keys of both. Bump
a template's version whenever its wording changes (the version is part of every cache key).

Answer slots are written ``<integer 1-5>``, ``<true or false>``, ``<one of: A, B>``, ``<text>``,
``<list ...>``: readable by a model and by the fake server's synthetic answers.
``prompts/quiz_questions.json`` holds the quiz's question and hint per kind.
"""

from __future__ import annotations

import json
from importlib.resources import files
from typing import Any

from transcreval.engines.judge.prompt_template import PromptTemplate, split_template_text
from transcreval.errors import InputError

__all__ = [
    "IMTBENCH_ALIGNMENT",
    "IMTBENCH_HARMONIZATION",
    "IMTBENCH_HARMONIZATION_REF",
    "IMTBENCH_JOINT",
    "IMTBENCH_JOINT_REF",
    "KHANUJA_CREATIVITY",
    "KHANUJA_CSI_MATCH",
    "KHANUJA_CSI_OBJECTS",
    "KHANUJA_CSI_REPLACEMENTS",
    "KHANUJA_CULTURAL",
    "KHANUJA_INTENT",
    "MPTC_ADAPTATION",
    "MPTC_AESTHETIC",
    "MPTC_AESTHETIC_ADAPTATION",
    "MPTC_MARKET",
    "MPTC_PAIRWISE",
    "MPTC_QUIZ",
    "MPTC_TITLE",
    "POSTERIQ_FONT",
    "POSTERIQ_POINT_IMAGE",
    "POSTERIQ_POINT_TEXT",
    "POSTERIQ_STYLE",
    "PROMPTS_PACKAGE",
    "QUIZ_QUESTIONS",
    "TEMPLATES",
    "builtin_template",
    "load_builtin_templates",
]

#: the package whose data files are the built-in templates
PROMPTS_PACKAGE = "transcreval.engines.judge.prompts"
_SUFFIX = ".txt"


def builtin_template(text: str, where: str) -> PromptTemplate:
    """A built-in template from the text of its data file (see the module docstring)."""
    meta, system, user = split_template_text(text.replace("\r\n", "\n"), where)
    missing = [k for k in ("id", "version", "images", "output") if k not in meta]
    if missing:
        raise InputError(f"{where}: the built-in template's front matter lacks {missing}")
    try:
        output = json.loads(meta["output"])
    except ValueError as e:
        raise InputError(f"{where}: 'output' is not a JSON object of answer keys ({e})") from e
    max_tokens = meta.get("max_tokens")
    return PromptTemplate(
        id=meta["id"],
        version=meta["version"],
        user=user.removesuffix("\n"),
        system=system,
        images=tuple(s.strip() for s in meta["images"].split(",") if s.strip()),
        output=output,
        max_tokens=int(max_tokens) if max_tokens else None,
    )


def load_builtin_templates(package: str = PROMPTS_PACKAGE) -> dict[str, PromptTemplate]:
    """Every ``<id>.txt`` data file of ``package``, by id (the file name must be the id)."""
    out: dict[str, PromptTemplate] = {}
    for entry in sorted(files(package).iterdir(), key=lambda e: e.name):
        if not entry.name.endswith(_SUFFIX):
            continue
        t = builtin_template(entry.read_text(encoding="utf-8"), f"{package}/{entry.name}")
        if entry.name != t.id + _SUFFIX:
            raise InputError(f"{package}/{entry.name}: the file of template {t.id!r} must be named {t.id}{_SUFFIX}")
        out[t.id] = t
    return out


def _quiz_questions(package: str = PROMPTS_PACKAGE) -> dict[str, tuple[str, str]]:
    doc: dict[str, Any] = json.loads(files(package).joinpath("quiz_questions.json").read_text(encoding="utf-8"))
    return {kind: (q["question"], q["hint"]) for kind, q in doc.items()}


TEMPLATES: dict[str, PromptTemplate] = load_builtin_templates()
#: the quiz's (question, hint) per ``kind``
QUIZ_QUESTIONS: dict[str, tuple[str, str]] = _quiz_questions()

MPTC_TITLE = TEMPLATES["mptc.title"]
MPTC_QUIZ = TEMPLATES["mptc.quiz"]
MPTC_AESTHETIC = TEMPLATES["mptc.aesthetic"]
MPTC_ADAPTATION = TEMPLATES["mptc.adaptation"]
MPTC_AESTHETIC_ADAPTATION = TEMPLATES["mptc.aesthetic+adaptation"]
MPTC_PAIRWISE = TEMPLATES["mptc.pairwise"]
MPTC_MARKET = TEMPLATES["mptc.market"]
KHANUJA_INTENT = TEMPLATES["khanuja.intent"]
KHANUJA_CREATIVITY = TEMPLATES["khanuja.creativity"]
KHANUJA_CULTURAL = TEMPLATES["khanuja.cultural"]
KHANUJA_CSI_OBJECTS = TEMPLATES["khanuja.csi-objects"]
KHANUJA_CSI_REPLACEMENTS = TEMPLATES["khanuja.csi-replacements"]
KHANUJA_CSI_MATCH = TEMPLATES["khanuja.csi-match"]
IMTBENCH_HARMONIZATION = TEMPLATES["imtbench.harmonization"]
IMTBENCH_ALIGNMENT = TEMPLATES["imtbench.alignment"]
IMTBENCH_JOINT = TEMPLATES["imtbench.joint"]
IMTBENCH_HARMONIZATION_REF = TEMPLATES["imtbench.harmonization-ref"]
IMTBENCH_JOINT_REF = TEMPLATES["imtbench.joint-ref"]
POSTERIQ_POINT_IMAGE = TEMPLATES["posteriq.point-image"]
POSTERIQ_POINT_TEXT = TEMPLATES["posteriq.point-text"]
POSTERIQ_STYLE = TEMPLATES["posteriq.style"]
POSTERIQ_FONT = TEMPLATES["posteriq.font"]
