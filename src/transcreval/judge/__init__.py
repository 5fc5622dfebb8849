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

from typing import TYPE_CHECKING

from transcreval.lazy import lazy_exports

_EXPORTS = {
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
__all__, __getattr__, __dir__ = lazy_exports(globals(), _EXPORTS)

# the same names for type checkers (tests/test_lazy_exports.py keeps this block equal to _EXPORTS)
if TYPE_CHECKING:
    from transcreval.judge.base import CachingJudge as CachingJudge
    from transcreval.judge.cache import JudgeCache as JudgeCache
    from transcreval.judge.catalog import TEMPLATES as TEMPLATES
    from transcreval.judge.fake_server import FakeOpenAIServer as FakeOpenAIServer
    from transcreval.judge.keys import request_key as request_key
    from transcreval.judge.openai_judge import OpenAICompatibleJudge as OpenAICompatibleJudge
    from transcreval.judge.parse import extract_json as extract_json
    from transcreval.judge.replay import FunctionJudge as FunctionJudge
    from transcreval.judge.replay import ReplayJudge as ReplayJudge
    from transcreval.judge.templates import PromptTemplate as PromptTemplate
    from transcreval.judge.types import FAILURE_STATUSES as FAILURE_STATUSES
    from transcreval.judge.types import ITEM_STATUSES as ITEM_STATUSES
    from transcreval.judge.types import STATUSES as STATUSES
    from transcreval.judge.types import ImagePart as ImagePart
    from transcreval.judge.types import Judge as Judge
    from transcreval.judge.types import JudgeReply as JudgeReply
    from transcreval.judge.types import JudgeRequest as JudgeRequest
    from transcreval.judge.types import Message as Message
    from transcreval.judge.types import TextPart as TextPart
