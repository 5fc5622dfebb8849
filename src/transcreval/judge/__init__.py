"""VLM/LLM judges: clients, the response cache, prompt templates and the judge-based metrics.

Start here::

    from transcreval.judge import OpenAICompatibleJudge, ReplayJudge

    judge = OpenAICompatibleJudge(model="gpt-4o", cache="judge.sqlite")   # key: OPENAI_API_KEY
    local = OpenAICompatibleJudge(model="Qwen/Qwen2.5-VL-7B-Instruct", base_url="http://localhost:8000/v1",
                                  cache="judge.sqlite")
    ci = ReplayJudge(cache="judge.sqlite")                                # cache only, for CI

Names load lazily: importing this package imports neither the openai SDK nor PIL.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

_LAZY = {
    "Judge": "transcreval.judge.types",
    "JudgeRequest": "transcreval.judge.types",
    "JudgeReply": "transcreval.judge.types",
    "Message": "transcreval.judge.types",
    "TextPart": "transcreval.judge.types",
    "ImagePart": "transcreval.judge.types",
    "STATUSES": "transcreval.judge.types",
    "FAILURE_STATUSES": "transcreval.judge.types",
    "ITEM_STATUSES": "transcreval.judge.types",
    "JudgeCache": "transcreval.judge.cache",
    "CachingJudge": "transcreval.judge.base",
    "OpenAICompatibleJudge": "transcreval.judge.openai_judge",
    "ReplayJudge": "transcreval.judge.replay",
    "FunctionJudge": "transcreval.judge.replay",
    "PromptTemplate": "transcreval.judge.templates",
    "TEMPLATES": "transcreval.judge.catalog",
    "FakeOpenAIServer": "transcreval.judge.fake_server",
    "request_key": "transcreval.judge.keys",
    "extract_json": "transcreval.judge.parse",
}

__all__ = [
    "FAILURE_STATUSES",
    "ITEM_STATUSES",
    "STATUSES",
    "TEMPLATES",
    "CachingJudge",
    "FakeOpenAIServer",
    "FunctionJudge",
    "ImagePart",
    "Judge",
    "JudgeCache",
    "JudgeReply",
    "JudgeRequest",
    "Message",
    "OpenAICompatibleJudge",
    "PromptTemplate",
    "ReplayJudge",
    "TextPart",
    "extract_json",
    "request_key",
]

if TYPE_CHECKING:
    from transcreval.judge.base import CachingJudge
    from transcreval.judge.cache import JudgeCache
    from transcreval.judge.catalog import TEMPLATES
    from transcreval.judge.fake_server import FakeOpenAIServer
    from transcreval.judge.keys import request_key
    from transcreval.judge.openai_judge import OpenAICompatibleJudge
    from transcreval.judge.parse import extract_json
    from transcreval.judge.replay import FunctionJudge, ReplayJudge
    from transcreval.judge.templates import PromptTemplate
    from transcreval.judge.types import (
        FAILURE_STATUSES,
        ITEM_STATUSES,
        STATUSES,
        ImagePart,
        Judge,
        JudgeReply,
        JudgeRequest,
        Message,
        TextPart,
    )


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        value = getattr(importlib.import_module(_LAZY[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'transcreval.judge' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted([*globals(), *_LAZY])
