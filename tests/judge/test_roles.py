"""One rule for what a value means per input role, for every judge metric.

``JudgedPointScore`` read a ``str`` path to an existing image as a text description (the judge
got the path and no image) while a ``pathlib.Path`` of the same file worked; ``AlignmentScore``
put the ``repr()`` of bytes into the prompt; a lone surrogate raised ``UnicodeEncodeError`` from
the cache keys. Each metric declares the role of every ``update`` argument and reads it with
that role's function (:mod:`transcreval.engines.judge.roles`); these tests check every registered judge
metric against its declaration.
"""

from __future__ import annotations

import inspect
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from PIL import Image

from tests._helpers.comet_env import registry_params
from tests.judge.cases import CASES, answer
from tests.judge.oracle import sha
from transcreval.core.registry import get_metric, list_metrics
from transcreval.engines.judge.roles import ROLES
from transcreval.errors import InputError
from transcreval.judge import FunctionJudge

JUDGE_METRICS = sorted(m.name for m in list_metrics(domain="judge"))
N = 2
OPTIONAL_TEXT = {"options": [["drama", "comedy", "horror", "action"]] * N}


def bound_arguments(name: str) -> tuple[Any, dict[str, Any]]:
    """The metric class and its CASES update arguments for N items, by parameter name."""
    factory, args, _ = CASES[name]
    metric = factory(FunctionJudge(answer))
    *pos, kw = args(N) if isinstance(args(N)[-1], dict) else (*args(N), {})
    bound = inspect.signature(metric.update).bind(*pos, **kw)
    return type(metric), dict(bound.arguments)


def run(name: str, arguments: dict[str, Any]) -> tuple[float, list[tuple[str, tuple[str, ...], str]]]:
    """The value, and every request the judge saw (template, image hashes, text)."""
    seen: list[tuple[str, tuple[str, ...], str]] = []

    def fn(request):
        seen.append((request.template_id, tuple(p.sha256 for p in request.images), request.text))
        return answer(request)

    metric = CASES[name][0](FunctionJudge(fn))
    return metric(**arguments).value, sorted(seen)


def like(good: Any, leaf: Any) -> Any:
    """``good`` with every string replaced by ``leaf`` (a list of lists stays one)."""
    if isinstance(good, str):
        return leaf
    return [like(x, leaf) for x in good]


@pytest.mark.parametrize("name", registry_params(JUDGE_METRICS))
def test_every_update_argument_has_a_declared_role(name):
    cls = get_metric(name).load()
    params = [p for p in inspect.signature(cls.update).parameters if p != "self"]
    assert set(params) == set(cls.input_roles), f"{name}.input_roles must name every update argument"
    assert set(cls.input_roles.values()) <= set(ROLES)


@pytest.mark.parametrize("name", registry_params(JUDGE_METRICS))
def test_image_roles_read_a_str_path_exactly_as_a_path(name, tmp_path):
    cls, arguments = bound_arguments(name)
    value, requests = run(name, arguments)
    for param, role in cls.input_roles.items():
        if role not in ("image", "image_or_text"):
            continue
        given = arguments[param]
        images = [x for x in given if isinstance(x, np.ndarray)]
        if not images:  # TitleExtraction's target holds titles as text: give posters instead
            given = [np.full((24, 16, 3), 255, np.uint8)] * N
        files = []
        for i, x in enumerate(given):
            f = tmp_path / f"{param}{i}.png"
            Image.fromarray(x).save(f)
            files.append(f)
        as_path = run(name, {**arguments, param: files})
        as_str = run(name, {**arguments, param: [str(f) for f in files]})
        assert as_str == as_path, f"{name}: a str path and a Path of the same file differ for {param}"
        if images:  # the very pixels of the arrays: the same requests and value
            assert as_str == (value, requests)
        shown = {h for _, imgs, _ in as_str[1] for h in imgs}
        assert {sha(f) for f in files} <= shown, f"{name}: the judge was not shown the images of {param}"
        missing = str(tmp_path / "no-such-poster.png")
        with pytest.raises(InputError, match=rf"^{param}\[0\]: .*no-such-poster\.png"):  # names the argument
            run(name, {**arguments, param: [missing] * N})


@pytest.mark.parametrize("name", registry_params(JUDGE_METRICS))
def test_text_roles_take_strings_only(name, tmp_path):
    cls, arguments = bound_arguments(name)
    poster = tmp_path / "poster.png"
    Image.fromarray(np.zeros((8, 8, 3), np.uint8)).save(poster)
    texts = {p: r for p, r in cls.input_roles.items() if r == "text"}
    for param in texts:
        good = arguments.get(param)
        if good is None:  # an optional text not used by the default template: give one per item
            good = OPTIONAL_TEXT.get(param, ["some text"] * N)
        bad_leaves = {
            str(poster): r"path of an image file",
            "poster.jpg": r"image extension",
            b"Japan": r"must be a string, got bytes.*decode",
            7: r"must be a string, got int",
            "Jap\ud800an": r"lone surrogate",
        }
        for leaf, why in bad_leaves.items():
            with pytest.raises(InputError, match=why) as e:
                run(name, {**arguments, param: like(good, leaf)})
            assert param in str(e.value), f"{name}: the error does not name {param}: {e.value}"
        if isinstance(good, str):  # one value for every item: a bare bytes value is refused too
            with pytest.raises(InputError, match="bytes"):
                run(name, {**arguments, param: b"Japan"})


def test_a_description_stays_a_description_and_a_missing_image_name_is_an_error(tmp_path):
    """JudgedPointScore: text descriptions are judged as text (no image); a str path is an image."""
    from transcreval import JudgedPointScore

    seen = []

    def fn(request):
        seen.append((request.template_id, len(request.images)))
        return '{"covered": true}'

    m = JudgedPointScore(judge=FunctionJudge(fn))
    assert m(["A red poster with the title in white."], [["a title"]]).value == 1.0
    assert seen == [("posteriq.point-text", 0)]
    f = tmp_path / "p.png"
    Image.fromarray(np.zeros((8, 8, 3), np.uint8)).save(f)
    seen.clear()
    m([str(f)], [["a title"]])
    assert seen == [("posteriq.point-image", 1)]
    with pytest.raises(InputError, match="no such file exists"):
        m([str(Path(tmp_path) / "typo.png")], [["a title"]])


def test_a_lone_surrogate_anywhere_in_a_request_is_an_input_error_not_a_unicode_crash():
    """A template built in code (or any text that skipped the field checks) with a lone surrogate
    used to raise UnicodeEncodeError from engines/judge/keys.py; item ids with one are hashed fine."""
    from transcreval import JudgeScore, WinRate
    from transcreval.judge import PromptTemplate

    img = np.zeros((8, 8, 3), np.uint8)
    tpl = PromptTemplate(
        id="t", version="1", user='{image:output}{image:source}Rate it \ud800 for {target_market}. {{"score": 3}}'
    )
    tpl = PromptTemplate(id="t", version="1", user=tpl.user, images=("output", "source"))
    with pytest.raises(InputError, match="lone surrogate"):
        JudgeScore(judge=FunctionJudge(answer), template=tpl)([img], [img], target_market="Japan")
    ctx = {"target_market": "Japan", "source_market": "USA", "genre": "drama"}
    res = WinRate(judge=FunctionJudge(answer))([img], [img], **ctx, item_ids=["id-\udc80"])
    assert res.n == 1


def test_errors_name_the_argument_and_item_the_user_passed():
    """A bad reference title was reported as posters[2] (the index in an internal concatenation)."""
    from transcreval import TitleExtraction

    img = np.zeros((8, 8, 3), np.uint8)
    m = TitleExtraction(judge=FunctionJudge(answer))
    with pytest.raises(InputError, match=r"^target\[0\]: 'ref\.png' ends like an image file name"):
        m([img, img], ["ref.png", "Parasite"])
    with pytest.raises(InputError, match=r"^target\[1\]: .*not an image"):  # bytes are an encoded image here
        m([img, img], ["Parasite", b"Parasite"])
    with pytest.raises(InputError, match=r"preds\[1\]"):
        m([img, 3.5], ["Parasite", "Parasite"])
