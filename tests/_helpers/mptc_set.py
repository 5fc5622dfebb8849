"""A small synthetic MPTc-Bench set with a scripted judge whose answers are decided in advance.

Six items (three Surface, three Deep), three systems (two planners x one editor, plus one
more editor with the first planner, which has no output for item s2). Every poster is a
distinct tiny image; ``INTENDED[(item, system)]`` says what the judge answers about it (title
read, quiz right or wrong, the two scores, whether MTc wins), so a test's expected table cells
are means of these values, computed in the test, never read back from our parsing.
"""

from __future__ import annotations

import json
import re
from typing import Any

import numpy as np

from transcreval.engines.judge.images import to_image_part
from transcreval.judge import FunctionJudge, JudgeRequest

PLANNERS = ("GPT-4.1", "Qwen3")
EDITORS = ("Gemini 3", "Flux Edit")
G41, GQ, F41 = "Gemini 3 + GPT-4.1", "Gemini 3 + Qwen3", "Flux Edit + GPT-4.1"
SYSTEMS = {G41: ("GPT-4.1", "Gemini 3"), GQ: ("Qwen3", "Gemini 3"), F41: ("GPT-4.1", "Flux Edit")}

ITEMS = [
    # id, split, source market, target market, genre, year, GT title
    ("s1", "surface", "USA", "Japan", "Drama", 1994, "ショーシャンクの空に"),
    ("s2", "surface", "Japan", "France", "Animation", 2001, "Le Voyage de Chihiro"),
    ("s3", "surface", "China (Mainland)", "United States", "Action", None, "Hero"),
    ("d1", "deep", "Germany", "CN", "Comedy", 2010, "再见列宁"),
    ("d2", "deep", "South Korea", "Italy", "Horror", 2019, "Parasite"),
    ("d3", "deep", "USA", "UK", "Drama", 2005, None),  # the GT title cannot be read (unparsable answer)
]
UNREADABLE = "The poster shows a large mountain at dusk."
REFUSAL = "I'm sorry, but I can't help with that."

# per poster: title read, genre/year quiz right?, aesthetic, adaptation (None: key missing), win (1, 0, "refuse")
INTENDED: dict[tuple[str, str], dict[str, Any]] = {}
_OUT = {
    G41: {
        "s1": ("ショーシャンクの空", 1, 1, 5, 4, 1),
        "s2": ("Le Voyage de Chihiro", 1, 0, 4, 4, 1),
        "s3": ("Hero!", 0, 1, 4, 3, 0),
        "d1": ("再见列宁", 1, 1, 4, 4, 1),
        "d2": ("Parasit", 1, 0, 5, 5, 0),
        "d3": ("Match Point", 1, 1, 3, 3, 0),
    },
    GQ: {
        "s1": ("ショーシャンク", 1, 1, 4, 3, 0),
        "s2": ("Chihiro", 0, 1, 4, None, 1),
        "s3": ("Hero", 1, 1, 3, 3, 0),
        "d1": ("列宁", 1, 0, 3, 2, 0),
        "d2": ("Parasite", 0, 1, 4, 3, "refuse"),
        "d3": ("Match", 1, 1, 2, 2, 0),
    },
    F41: {
        "s1": ("ショ", 1, 1, 2, 2, 0),
        "s3": ("Her", 1, 0, 3, 2, 0),
        "d1": ("再见", 0, 1, 3, 2, 0),
        "d2": ("", 1, 1, 2, 1, 0),
        "d3": ("Natch", 1, 0, 3, 2, 1),
    },
}
_GT = {
    "s1": (1, 1, 5, 4),
    "s2": (1, 1, 5, 5),
    "s3": (0, 1, 4, 4),
    "d1": (1, 0, 4, 3),
    "d2": (1, 1, 5, 4),
    "d3": (1, 1, 4, 4),
}
PLANS = {
    G41: '1. Title: "{src}" → "{t}"\n2. Tagline: "x" → "y"',
    GQ: "1. **Title**: {src} -> {t}\n2. Credits: names",
    F41: '1. Title: "{src}" → "{t}"',
}
PLANNED = {  # the title each plan proposes (None: the plan has no title line)
    G41: {
        "s1": "ショーシャンクの空に",
        "s2": "Le Voyage de Chihiro",
        "s3": "Héros",
        "d1": "再见列宁",
        "d2": "Parasite",
        "d3": "Match",
    },
    GQ: {"s1": "ショーシャンク", "s2": "Chihiro", "s3": "Hero", "d1": "列宁", "d2": "Parasita", "d3": None},
    F41: {"s1": "ショーシャンクの空に", "s3": "Héros", "d1": "再见列宁", "d2": "Parasite", "d3": "Match"},
}
for _sys, rows in _OUT.items():
    for _id, (title, g, y, a, d, w) in rows.items():
        INTENDED[(_id, _sys)] = {"title": title, "genre": g, "year": y, "aes": a, "adap": d, "win": w}
for _id, (g, y, a, d) in _GT.items():
    gt_title = next(x[6] for x in ITEMS if x[0] == _id)
    INTENDED[(_id, "GT")] = {"title": gt_title, "genre": g, "year": y, "aes": a, "adap": d}


def image(seed: int, size: tuple[int, int] = (12, 16)) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return rng.integers(0, 256, size=(size[1], size[0], 3), dtype=np.uint8)


def build() -> tuple[list[dict[str, Any]], list[dict[str, Any]], dict[str, tuple[str, str]]]:
    """Item and output records (images as arrays) and the poster hash -> (item, system) map."""
    items, outputs, who = [], [], {}
    for k, (iid, split, sm, tm, genre, year, _) in enumerate(ITEMS):
        src, gt = image(100 + k), image(200 + k)
        who[to_image_part(gt).sha256] = (iid, "GT")
        who[to_image_part(src).sha256] = (iid, "SRC")
        items.append(
            {
                "item_id": iid,
                "source": src,
                "gt": gt,
                "source_market": sm,
                "target_market": tm,
                "genre": genre,
                "year": year,
                "split": split,
                "meta": {"k": k},
            }
        )
    for s_i, (name, (planner, editor)) in enumerate(SYSTEMS.items()):
        for k, (iid, *_rest) in enumerate(ITEMS):
            if iid not in _OUT[name]:
                outputs.append({"item_id": iid, "planner": planner, "editor": editor, "output": None})
                continue
            out = image(1000 + 10 * s_i + k)
            who[to_image_part(out).sha256] = (iid, name)
            t = PLANNED[name][iid]
            plan = PLANS[name].format(src="Original", t=t) if t is not None else "1. Tagline: only a tagline"
            outputs.append({"item_id": iid, "planner": planner, "editor": editor, "output": out, "plan": plan})
    return items, outputs, who


class ScriptedJudge:
    """Answers every MPTc prompt from INTENDED; records which templates were asked."""

    def __init__(self, who: dict[str, tuple[str, str]]) -> None:
        self.who = who
        self.asked: list[str] = []

    def _key(self, part: Any) -> tuple[str, str]:
        return self.who[part.sha256]

    def __call__(self, request: JudgeRequest) -> str:
        tid = request.template_id
        self.asked.append(tid)
        imgs = request.images
        if tid == "mptc.title":
            title = INTENDED[self._key(imgs[0])]["title"]
            return UNREADABLE if title is None else json.dumps({"title": title}, ensure_ascii=False)
        if tid == "mptc.quiz":
            iid, system = self._key(imgs[0])
            row = next(x for x in ITEMS if x[0] == iid)
            kind = "genre" if "genre" in request.text else "year"
            correct = row[4] if kind == "genre" else f"{row[5] // 10 * 10}s"
            options = dict(re.findall(r"^([A-Z])\. (.+)$", request.text, re.M))
            right = INTENDED[(iid, system)][kind]
            letter = next(k for k, v in options.items() if (v == correct) == bool(right))
            return json.dumps({"answer": letter})
        if tid in ("mptc.aesthetic+adaptation", "mptc.aesthetic", "mptc.adaptation"):
            want = INTENDED[self._key(imgs[1])]
            if tid == "mptc.aesthetic":
                return json.dumps({"comment": "ok", "score": want["aes"]})
            if tid == "mptc.adaptation":
                return json.dumps({"comment": "ok", "score": want["adap"]}) if want["adap"] else UNREADABLE
            ans = {"aesthetic_comment": "ok", "aesthetic_score": want["aes"], "adaptation_comment": "ok"}
            if want["adap"] is not None:
                ans["adaptation_score"] = want["adap"]
            return "```json\n" + json.dumps(ans) + "\n```"
        if tid == "mptc.pairwise":
            a, b = (self._key(p) for p in imgs)
            mtc = a if a[1] != "GT" else b
            win = INTENDED[mtc]["win"]
            if win == "refuse":
                return REFUSAL
            mtc_letter = "A" if a[1] != "GT" else "B"
            return json.dumps({"reason": "r", "preferred": mtc_letter if win else "AB".replace(mtc_letter, "")})
        raise KeyError(tid)

    def judge(self, cache: Any = None) -> FunctionJudge:
        return FunctionJudge(self, model="scripted", cache=cache, params={"temperature": 0})
