"""Which prompt template a metric uses: the default, a built-in id, a template object or a file.

:func:`resolve_template` checks a replacement against the text fields and the image slots the
metric fills, before any call. The template itself (:class:`PromptTemplate`, the file format)
lives in :mod:`transcreval.engines.judge.prompt_template`, the built-in ones in
:mod:`transcreval.engines.judge.catalog`.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

from transcreval.engines.judge.catalog import TEMPLATES
from transcreval.engines.judge.prompt_template import IMAGE_MARKER, PromptTemplate, is_missing
from transcreval.errors import InputError

__all__ = ["PromptTemplate", "format_options", "is_missing", "resolve_template"]


def resolve_template(
    template: PromptTemplate | str | os.PathLike[str] | None,
    default: PromptTemplate,
    *,
    fields: Sequence[str] | None = None,
    what: str = "this metric",
) -> PromptTemplate:
    """None -> ``default``; a template -> itself; a path to a file -> the file's wording on the
    default's slots; a built-in id -> that template.

    A template other than the default may only use the text fields the metric fills
    (``fields``; default: those of ``default``) and the images it provides (``default``'s
    slots): anything else is an InputError now, before any call.
    """
    if template is None:
        return default
    if isinstance(template, PromptTemplate):
        t = template
    elif isinstance(template, (str, os.PathLike)):
        if os.path.isfile(template):
            t = PromptTemplate.from_file(template, base=default)
        elif str(template) in TEMPLATES:
            t = TEMPLATES[str(template)]
        else:
            raise InputError(
                f"template {str(template)!r} is neither a file nor a built-in template id "
                f"(built-in: {sorted(TEMPLATES)})"
            )
    else:
        raise InputError(
            f"template must be a PromptTemplate, a file path or a template id, got {type(template).__name__}"
        )
    fills = list(default.fields if fields is None else fields)
    unknown = [f for f in t.fields if f not in fills]
    if unknown:
        raise InputError(
            f"{what}: template {t.ref} ({t.source}) uses the field(s) {unknown}, which {what} does not fill; "
            f"it fills {fills or 'no field'} (literal braces are written {{{{ and }}}})"
        )
    images = [n for n in dict.fromkeys([*t.images, *IMAGE_MARKER.findall(t.user)]) if n not in default.images]
    if images:
        raise InputError(
            f"{what}: template {t.ref} ({t.source}) places the image(s) {images}, which {what} does not provide; "
            f"it provides {list(default.images) or 'no image'}"
        )
    return t


def format_options(options: Sequence[str], letters: str = "ABCDEFGHIJKLMNOPQRSTUVWXYZ") -> str:
    """``A. first\\nB. second ...`` for multiple-choice prompts."""
    return "\n".join(f"{letters[i]}. {o}" for i, o in enumerate(options))
