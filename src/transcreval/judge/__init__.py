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

from transcreval.utils.lazy import lazy_exports

if TYPE_CHECKING:
    from transcreval.engines.judge.base import CachingJudge as CachingJudge
    from transcreval.engines.judge.cache import JudgeCache as JudgeCache
    from transcreval.engines.judge.catalog import TEMPLATES as TEMPLATES
    from transcreval.engines.judge.fake_server import FakeOpenAIServer as FakeOpenAIServer
    from transcreval.engines.judge.keys import request_key as request_key
    from transcreval.engines.judge.openai_judge import OpenAICompatibleJudge as OpenAICompatibleJudge
    from transcreval.engines.judge.parse import extract_json as extract_json
    from transcreval.engines.judge.replay import FunctionJudge as FunctionJudge
    from transcreval.engines.judge.replay import ReplayJudge as ReplayJudge
    from transcreval.engines.judge.templates import PromptTemplate as PromptTemplate
    from transcreval.engines.judge.types import FAILURE_STATUSES as FAILURE_STATUSES
    from transcreval.engines.judge.types import ITEM_STATUSES as ITEM_STATUSES
    from transcreval.engines.judge.types import STATUSES as STATUSES
    from transcreval.engines.judge.types import ImagePart as ImagePart
    from transcreval.engines.judge.types import Judge as Judge
    from transcreval.engines.judge.types import JudgeReply as JudgeReply
    from transcreval.engines.judge.types import JudgeRequest as JudgeRequest
    from transcreval.engines.judge.types import Message as Message
    from transcreval.engines.judge.types import TextPart as TextPart

__all__, __getattr__, __dir__ = lazy_exports(globals())
