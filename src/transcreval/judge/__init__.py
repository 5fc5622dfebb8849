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
    "Judge": "transcreval.engines.judge.types",
    "JudgeRequest": "transcreval.engines.judge.types",
    "JudgeReply": "transcreval.engines.judge.types",
    "Message": "transcreval.engines.judge.types",
    "TextPart": "transcreval.engines.judge.types",
    "ImagePart": "transcreval.engines.judge.types",
    "STATUSES": "transcreval.engines.judge.types",
    "FAILURE_STATUSES": "transcreval.engines.judge.types",
    "ITEM_STATUSES": "transcreval.engines.judge.types",
    "JudgeCache": "transcreval.engines.judge.cache",
    "CachingJudge": "transcreval.engines.judge.base",
    "OpenAICompatibleJudge": "transcreval.engines.judge.openai_judge",
    "ReplayJudge": "transcreval.engines.judge.replay",
    "FunctionJudge": "transcreval.engines.judge.replay",
    "PromptTemplate": "transcreval.engines.judge.templates",
    "TEMPLATES": "transcreval.engines.judge.catalog",
    "FakeOpenAIServer": "transcreval.engines.judge.fake_server",
    "request_key": "transcreval.engines.judge.keys",
    "extract_json": "transcreval.engines.judge.parse",
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
    from transcreval.engines.judge.base import CachingJudge
    from transcreval.engines.judge.cache import JudgeCache
    from transcreval.engines.judge.catalog import TEMPLATES
    from transcreval.engines.judge.fake_server import FakeOpenAIServer
    from transcreval.engines.judge.keys import request_key
    from transcreval.engines.judge.openai_judge import OpenAICompatibleJudge
    from transcreval.engines.judge.parse import extract_json
    from transcreval.engines.judge.replay import FunctionJudge, ReplayJudge
    from transcreval.engines.judge.templates import PromptTemplate
    from transcreval.engines.judge.types import (
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
