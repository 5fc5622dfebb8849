"""The SQLite response cache, cache keys and the replay judge."""

from __future__ import annotations

import json
import multiprocessing as mp
import pickle
import sqlite3
import threading

import pytest

from tests.judge.conftest import SCORE_TEMPLATE, TEXT_TEMPLATE, image
from transcreval.engines.judge.keys import canonical_json, request_key
from transcreval.engines.judge.templates import PromptTemplate
from transcreval.errors import InputError, JudgeCacheError, JudgeCacheMiss
from transcreval.judge import FunctionJudge, JudgeCache, ReplayJudge


def record(key: str, model: str = "m", template: str = "t", version: str = "1") -> dict:
    return {"backend": "b", "model": model, "template": {"id": template, "version": version}, "params": {}}


# ---------------------------------------------------------------------- keys
def key_of(req, model="m", params=None, backend="b", namespace=None):
    return request_key(req, backend=backend, model=model, params=params or {"temperature": 0}, namespace=namespace)


def test_key_depends_on_everything_that_decides_the_answer():
    base = SCORE_TEMPLATE.render({"image": image(1)}, item="x")
    k = key_of(base)
    assert k == key_of(SCORE_TEMPLATE.render({"image": image(1)}, item="x"))  # deterministic
    assert len(k) == 64 and int(k, 16) >= 0
    other_version = PromptTemplate(SCORE_TEMPLATE.id, "2", SCORE_TEMPLATE.user, images=SCORE_TEMPLATE.images)
    variants = [
        key_of(SCORE_TEMPLATE.render({"image": image(2)}, item="x")),  # other pixels
        key_of(SCORE_TEMPLATE.render({"image": image(1)}, item="y")),  # other text
        key_of(other_version.render({"image": image(1)}, item="x")),  # other template version
        key_of(base, model="m2"),
        key_of(base, backend="b2"),
        key_of(base, params={"temperature": 0, "seed": 1}),
        key_of(base, params={"temperature": 0.7}),
        key_of(base, namespace="server-2"),
    ]
    assert len({k, *variants}) == len(variants) + 1


def test_key_ignores_float_spelling_and_dict_order():
    req = TEXT_TEMPLATE.render(item="1")
    assert key_of(req, params={"temperature": 0.0, "seed": 3}) == key_of(req, params={"seed": 3, "temperature": 0})
    assert canonical_json({"b": 1.0, "a": [2.5, "é"]}) == '{"a":[2.5,"é"],"b":1}'
    with pytest.raises(ValueError):
        canonical_json({"x": float("nan")})


def test_image_key_hashes_pixels_not_the_container(tmp_path):
    from PIL import Image

    arr = image(5)
    png, bmp = tmp_path / "a.png", tmp_path / "a.bmp"
    Image.fromarray(arr).save(png)
    Image.fromarray(arr).save(bmp)
    keys = {key_of(SCORE_TEMPLATE.render({"image": x}, item="1")) for x in (arr, png, bmp, Image.fromarray(arr))}
    assert len(keys) == 1


# ---------------------------------------------------------------------- the file
def test_put_get_and_first_answer_wins(cache_path):
    c = JudgeCache(cache_path)
    assert c.put("k1", record("k1"), "answer one", {"model": "m-2024"})
    assert not c.put("k1", record("k1"), "another", {})
    hit = c.get("k1")
    assert hit is not None and hit.text == "answer one" and hit.meta["model"] == "m-2024"
    assert c.get("nope") is None and len(c) == 1 and "k1" in c
    assert sqlite3.connect(cache_path).execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_many_threads_write_one_file(cache_path):
    c = JudgeCache(cache_path)

    def work(t):
        for i in range(50):
            c.put(f"{t}-{i}", record(""), f"text {t} {i}", {})

    threads = [threading.Thread(target=work, args=(t,)) for t in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(c) == 400 and c.get("7-49").text == "text 7 49"


def _writer(path: str, rank: int) -> None:
    c = JudgeCache(path)
    for i in range(100):
        c.put(f"r{rank}-{i}", record(""), "x", {})
        c.put(f"shared-{i}", record(""), "shared", {})


def test_processes_share_one_file(cache_path):
    ctx = mp.get_context("spawn")
    procs = [ctx.Process(target=_writer, args=(str(cache_path), r)) for r in range(3)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(120)
        assert p.exitcode == 0
    assert len(JudgeCache(cache_path)) == 300 + 100


def test_read_only_cache_never_writes_and_needs_the_file(cache_path, tmp_path):
    with pytest.raises(JudgeCacheError, match="no judge cache"):
        JudgeCache(tmp_path / "missing.sqlite", "read-only")
    JudgeCache(cache_path).put("k", record("k"), "t", {})
    ro = JudgeCache(cache_path, mode="read_only")
    assert not ro.put("k2", record("k2"), "t", {})
    assert ro.get("k").text == "t" and len(ro) == 1


def test_a_read_only_cache_object_given_to_a_judge_stays_read_only(cache_path):
    """A read-only JudgeCache under the default cache_mode="read-write" was reopened read-write
    and written to; the stricter mode now wins, both ways, and the busy timeout travels."""
    JudgeCache(cache_path).put("k", record("k"), "t", {})
    ro = JudgeCache(cache_path, "read-only")
    judge = FunctionJudge(lambda req: '{"score": 2}', cache=ro)
    assert judge.cache is ro and judge.cache_mode == "read-only"
    judge.complete([TEXT_TEMPLATE.render(item="new")])
    assert judge.calls_made == 1 and len(JudgeCache(cache_path)) == 1  # answered, never stored
    rw = JudgeCache(cache_path, busy_timeout=7.5)
    narrowed = FunctionJudge(lambda req: '{"score": 2}', cache=rw, cache_mode="read-only")
    assert narrowed.cache is not rw and narrowed.cache.mode == narrowed.cache_mode == "read-only"
    assert narrowed.cache.busy_timeout == 7.5
    assert FunctionJudge(lambda req: "x", cache=rw).cache is rw
    assert FunctionJudge(lambda req: "x", cache=rw, cache_mode="off").cache is None


def test_read_only_cache_falls_back_to_immutable_when_ro_cannot_open(cache_path, monkeypatch):
    """A WAL file in a read-only directory cannot be opened with mode=ro (no -shm can be made);
    the cache then reads it as immutable. Simulated here, since root can write anywhere."""
    c = JudgeCache(cache_path)
    c.put("k", record("k"), "t", {})
    c.close()
    real = sqlite3.connect
    seen = []

    def connect(target, *a, **kw):
        seen.append(str(target))
        if "mode=ro" in str(target):
            raise sqlite3.OperationalError("unable to open database file")
        return real(target, *a, **kw)

    monkeypatch.setattr(sqlite3, "connect", connect)
    assert JudgeCache(cache_path, "read-only").get("k").text == "t"
    assert any("immutable=1" in s for s in seen)


def test_not_a_cache_is_a_clear_error(tmp_path):
    junk = tmp_path / "junk.sqlite"
    junk.write_bytes(b"this is not sqlite at all" * 100)
    with pytest.raises(JudgeCacheError, match="not a usable judge cache"):
        JudgeCache(junk)
    other = tmp_path / "other.sqlite"
    sqlite3.connect(other).execute("CREATE TABLE meta (name TEXT, value TEXT)").connection.commit()
    with pytest.raises(JudgeCacheError, match=r"not a transcreval judge cache .*tables: meta"):
        JudgeCache(other, "read-only")
    newer = tmp_path / "newer.sqlite"
    JudgeCache(newer).close()
    conn = sqlite3.connect(newer)
    conn.execute("UPDATE meta SET value = '99' WHERE name = 'schema'")
    conn.commit()
    conn.close()
    for mode in ("read-only", "read-write"):
        with pytest.raises(JudgeCacheError, match="schema '99'"):
            JudgeCache(newer, mode)


def file_state(path):
    """Everything a write could change: the bytes of the file and of its journals."""
    return {p.name: p.read_bytes() for p in path.parent.iterdir() if p.name.startswith(path.name)}


@pytest.mark.parametrize("how", ["cache", "judge", "replay"])
def test_a_database_that_is_not_a_cache_is_refused_and_left_untouched(tmp_path, how):
    other = tmp_path / "app.sqlite"
    conn = sqlite3.connect(other)
    conn.execute("CREATE TABLE users (name TEXT)")
    conn.execute("INSERT INTO users VALUES ('ada')")
    conn.commit()
    conn.close()
    before = file_state(other)
    with pytest.raises(JudgeCacheError, match=r"not a transcreval judge cache .*tables: users.*left untouched"):
        if how == "cache":
            JudgeCache(other)
        elif how == "judge":
            FunctionJudge(scorer, cache=other)
        else:
            ReplayJudge(other)
    assert file_state(other) == before  # no meta/replies tables, no switch to WAL
    assert sqlite3.connect(other).execute("PRAGMA journal_mode").fetchone()[0] == "delete"


def test_an_empty_file_becomes_a_cache_and_create_false_needs_one(tmp_path):
    empty = tmp_path / "empty.sqlite"
    empty.touch()
    JudgeCache(empty).put("k", record("k"), "t", {})
    assert JudgeCache(empty, "read-only").get("k").text == "t"
    with pytest.raises(JudgeCacheError, match=r"no judge cache at .*does not exist"):
        JudgeCache(tmp_path / "missing.sqlite", create=False)
    assert not (tmp_path / "missing.sqlite").exists()


def test_a_corrupt_cache_is_a_judge_cache_error_naming_the_file(cache_path):
    c = JudgeCache(cache_path)
    for i in range(300):
        c.put(f"k{i}", record(f"k{i}"), "x" * 2000, {})
    c.close()
    sqlite3.connect(cache_path).execute("PRAGMA wal_checkpoint(TRUNCATE)").connection.close()
    data = bytearray(cache_path.read_bytes())
    data[8192:40960] = bytes(range(256)) * 128  # garble pages in the middle
    cache_path.write_bytes(bytes(data))
    for call in (
        lambda c: c.stats(),
        lambda c: list(c.rows()),
        lambda c: c.prune(older_than_days=0),
        lambda c: [c.get(f"k{i}") for i in range(300)],
        lambda c: c.setups(),
    ):
        with pytest.raises(JudgeCacheError, match=str(cache_path.name)):
            call(JudgeCache(cache_path))


def test_a_lock_held_by_another_process_is_a_clear_error_after_busy_timeout(cache_path):
    JudgeCache(cache_path).put("k", record("k"), "t", {})
    holder = sqlite3.connect(cache_path, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    try:
        c = JudgeCache(cache_path, busy_timeout=0.2)
        with pytest.raises(JudgeCacheError, match=r"locked by another process \(waited 0.2 s\)"):
            c.prune(older_than_days=0)
        with pytest.raises(JudgeCacheError, match="locked"):
            c.put("k2", record("k2"), "t", {})
        assert c.get("k").text == "t"  # reading is never blocked (WAL)
    finally:
        holder.execute("ROLLBACK")
        holder.close()


def test_cache_pickles_as_its_path(cache_path):
    c = JudgeCache(cache_path)
    c.put("k", record("k"), "t", {})
    twin = pickle.loads(pickle.dumps(c))
    assert twin.path == c.path and twin.get("k").text == "t"


def test_stats_rows_and_prune(cache_path):
    c = JudgeCache(cache_path)
    c.put("a", record("a", model="m1", template="t1"), "x", {"usage": {"prompt_tokens": 10, "completion_tokens": 2}})
    c.put("b", record("b", model="m1", template="t2"), "y", {"usage": {"prompt_tokens": 5, "completion_tokens": 1}})
    c.put("c", record("c", model="m2", template="t1", version="2"), "z", {})
    s = c.stats()
    assert s["answers"] == 3 and s["bytes"] > 0
    assert s["models"]["b:m1"] == {"answers": 2, "prompt_tokens": 15, "completion_tokens": 3}
    assert s["templates"] == {"t1@1": 1, "t1@2": 1, "t2@1": 1}
    rows = list(c.rows())
    assert [r["key"] for r in rows] == ["a", "b", "c"] and rows[0]["text"] == "x"
    assert c.prune(template="t1@2", dry_run=True) == 1 and len(c) == 3
    assert c.prune(template="t1") == 2 and len(c) == 1
    assert c.prune(model="m1", older_than_days=1) == 0
    assert c.prune(older_than_days=0) == 1 and len(c) == 0
    with pytest.raises(InputError, match="at least one filter"):
        c.prune()


# ---------------------------------------------------------------------- replay
def scorer(request):
    return json.dumps({"score": len(request.text) % 5 + 1})


def test_replay_answers_exactly_what_was_recorded(cache_path):
    reqs = [SCORE_TEMPLATE.render({"image": image(i)}, item=str(i)) for i in range(5)]
    live = FunctionJudge(scorer, model="rule-v1", cache=cache_path, params={"temperature": 0})
    recorded = live.complete(reqs)
    replay = ReplayJudge(cache_path)  # one setup in the file: it is inferred
    assert replay.model == "rule-v1" and replay.backend == "function" and replay.params == {"temperature": 0}
    again = replay.complete(reqs)
    assert [r.text for r in again] == [r.text for r in recorded] and all(r.cached for r in again)
    assert [r.text for r in live.replay().complete(reqs)] == [r.text for r in recorded]


def test_replay_miss_is_an_error_that_says_what_to_do(cache_path):
    FunctionJudge(scorer, cache=cache_path).complete([TEXT_TEMPLATE.render(item="1")])
    replay = ReplayJudge(cache_path)
    with pytest.raises(JudgeCacheMiss) as e:
        replay.complete([TEXT_TEMPLATE.render(item="1"), TEXT_TEMPLATE.render(item="2")])
    msg = str(e.value)
    assert "1 of 2 distinct judge requests are not in the cache" in msg and "test.text@1" in msg
    assert "never calls an endpoint" in msg


def test_replay_with_several_setups_needs_to_be_told(cache_path):
    FunctionJudge(scorer, model="a", cache=cache_path).complete([TEXT_TEMPLATE.render(item="1")])
    FunctionJudge(scorer, model="b", cache=cache_path).complete([TEXT_TEMPLATE.render(item="1")])
    with pytest.raises(JudgeCacheError, match="2 match"):
        ReplayJudge(cache_path)
    assert ReplayJudge(cache_path, model="b").complete([TEXT_TEMPLATE.render(item="1")])[0].cached


def test_replay_needs_a_cache(tmp_path):
    with pytest.raises(InputError):
        ReplayJudge(None)
    with pytest.raises(JudgeCacheError):
        ReplayJudge(tmp_path / "nothing.sqlite")


def test_function_judge_errors_become_api_errors_and_are_not_cached(cache_path):
    def broken(request):
        raise RuntimeError("model crashed")

    j = FunctionJudge(broken, cache=cache_path)
    r = j.complete([TEXT_TEMPLATE.render(item="1")])[0]
    assert r.status == "api_error" and "model crashed" in r.detail and len(JudgeCache(cache_path)) == 0


# ---------------------------------------------------------------------- review 11: endpoints, replay setups
def openai_like(cache, base_url, **kw):
    from transcreval.judge import OpenAICompatibleJudge

    return OpenAICompatibleJudge("gpt-x", base_url=base_url, api_key="sk-test", cache=cache, **kw)


def test_the_endpoint_is_part_of_the_key_unless_shared(cache_path):
    from transcreval.engines.judge.keys import endpoint_id

    req = TEXT_TEMPLATE.render(item="1")
    openai = openai_like(cache_path, None)
    other = openai_like(cache_path, "https://other-provider.example/v1")
    assert openai.key(req) != other.key(req)  # the same model name elsewhere never replays OpenAI's answer
    assert openai.key(req) == openai_like(cache_path, "https://API.openai.com/v1/").key(req)
    shared = [openai_like(cache_path, u, endpoint_in_key=False).key(req) for u in (None, "http://10.0.0.2:8000/v1")]
    assert shared[0] == shared[1]
    assert endpoint_id("https://user:pw@Host.example:8443/v1/?api-key=SECRET#x") == "host.example:8443/v1"
    assert endpoint_id(None) == "api.openai.com/v1"


def test_replay_from_the_file_alone_rebuilds_endpoint_and_image_size(cache_path):
    from transcreval.engines.judge.fake_server import FakeOpenAIServer

    reqs = [SCORE_TEMPLATE.render({"image": image(i, size=(64, 48))}, item=str(i)) for i in range(3)]
    with FakeOpenAIServer(lambda body: '{"score": 4}') as server:
        live = openai_like(cache_path, server.base_url, image_max_side=16, max_retries=0)
        recorded = live.complete(reqs)
    replay = ReplayJudge(cache_path)  # no argument: the setup stored with the answers says it all
    assert replay.image_max_side == 16 and replay.cache_endpoint == live.cache_endpoint
    assert [r.text for r in replay.complete(reqs)] == [r.text for r in recorded]
    with pytest.raises(JudgeCacheError, match=r"none matches; recorded: .*image_max_side=16"):
        ReplayJudge(cache_path, image_max_side=32)  # another size matches no recorded setup
    with pytest.raises(JudgeCacheMiss, match=r"image_max_side.*this replay: .*endpoint='127.0.0.1:\d+/v1', "):
        replay.complete([SCORE_TEMPLATE.render({"image": image(9)}, item="9")])


def test_a_template_overriding_max_tokens_does_not_look_like_another_setup(cache_path):
    big = PromptTemplate("test.big", "1", "Long {item}", max_tokens=500)
    live = FunctionJudge(scorer, cache=cache_path, params={"max_tokens": 100})
    reqs = [TEXT_TEMPLATE.render(item="1"), big.render(item="1")]
    recorded = live.complete(reqs)
    assert JudgeCache(cache_path).setups() == [live.setup()]
    replay = ReplayJudge(cache_path)
    assert replay.params == {"max_tokens": 100}
    assert [r.text for r in replay.complete(reqs)] == [r.text for r in recorded]


def test_a_run_recorded_with_none_options_replays_beside_one_that_set_them(cache_path):
    """With runs of namespace=None and namespace='x' (or image_max_side None and
    16, or endpoint_in_key False and True) in one cache, judge.replay() of the None run found two
    setups and recommended the very call that had failed."""
    from transcreval.engines.judge.fake_server import FakeOpenAIServer

    text = [TEXT_TEMPLATE.render(item="1")]
    plain = FunctionJudge(scorer, cache=cache_path)
    named = FunctionJudge(lambda r: '{"score": 1}', cache=cache_path, cache_namespace="x")
    got = {"plain": plain.complete(text)[0].text, "named": named.complete(text)[0].text}
    assert got["plain"] != got["named"]
    assert plain.replay().complete(text)[0].text == got["plain"]
    assert named.replay().complete(text)[0].text == got["named"]
    assert ReplayJudge(cache_path, cache_namespace=None).complete(text)[0].text == got["plain"]
    differ = r"2 match, differing in namespace=('x'|None); namespace=('x'|None).*Pass cache_namespace="
    with pytest.raises(JudgeCacheError, match=differ):
        ReplayJudge(cache_path)

    big = [SCORE_TEMPLATE.render({"image": image(1, size=(64, 48))}, item="1")]
    other = cache_path.with_name("other.sqlite")
    with FakeOpenAIServer(lambda body: '{"score": 4}') as server:
        judges = [
            openai_like(other, server.base_url, max_retries=0),
            openai_like(other, server.base_url, max_retries=0, image_max_side=16),
            openai_like(other, server.base_url, max_retries=0, endpoint_in_key=False),
        ]
        for j in judges:
            j.complete(big)
    for j in judges:  # each replays exactly its own setup
        r = j.replay()
        assert (r.image_max_side, r.cache_endpoint) == (j.image_max_side, j.cache_endpoint)
        assert r.complete(big)[0].cached
    assert ReplayJudge(other, image_max_side=None, endpoint=None).cache_endpoint is None
