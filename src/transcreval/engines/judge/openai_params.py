"""What an :class:`~transcreval.judge.OpenAICompatibleJudge` sends besides the prompt: the checks of
``extra_params`` made when a judge is built, the request options among them, and which header
names count as credentials (never stored, never pickled)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from transcreval.errors import InputError

__all__ = ["REQUEST_OPTIONS", "check_extra_params", "secret_header"]

_SECRET_HEADER = re.compile(r"auth|key|token|secret|cookie|password|signature|credential", re.I)
# parameters that chat.completions.create takes as request options rather than body fields, and the
# SDK request-option names they become (extra_params written for create work the same; "extra_body"
# is merged into the body)
REQUEST_OPTIONS = {"extra_headers": "headers", "extra_query": "params", "timeout": "timeout"}


def secret_header(name: str) -> bool:
    """True for a header whose name suggests it carries a credential (never pickled)."""
    return bool(_SECRET_HEADER.search(name))


def check_extra_params(extra: Mapping[str, Any]) -> None:
    """InputError unless ``extra_params`` leaves the judge's own fields alone (also through
    ``extra_body``), gives ``extra_body`` / ``extra_headers`` / ``extra_query`` as mappings (header
    values as strings, no credential: those go in ``default_headers``, which are never stored) and
    ``timeout`` as a positive number of seconds. Checked once, when the judge is built."""
    for k in ("extra_body", "extra_headers", "extra_query"):
        if extra.get(k) is not None and not isinstance(extra[k], Mapping):
            raise InputError(f"extra_params[{k!r}] must be a mapping, got {type(extra[k]).__name__}")
    reserved = {"model", "messages", "stream", "n"}
    for where, keys in (
        ("extra_params", set(extra)),
        ("extra_params['extra_body']", set(extra.get("extra_body") or {})),
    ):
        if reserved & keys:
            raise InputError(f"{where} may not set {sorted(reserved & keys)}: the judge sets them")
    for name, value in (extra.get("extra_headers") or {}).items():
        if not isinstance(value, str):
            raise InputError(f"extra_params['extra_headers'][{name!r}] must be a string, got {type(value).__name__}")
        if secret_header(str(name)):
            raise InputError(
                f"extra_params['extra_headers'] may not carry {name!r}: extra_params are stored with every cached "
                "answer; pass credentials as default_headers= (never stored, not pickled) or api_key="
            )
    timeout = extra.get("timeout")
    if timeout is not None and (isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or not timeout > 0):
        raise InputError(f"extra_params['timeout'] must be a positive number of seconds, got {timeout!r}")
