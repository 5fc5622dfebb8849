"""Prompt templates: rendering, image placement, safe fields, files, the built-in catalog."""

from __future__ import annotations

import json
import re

import pytest

from tests.judge.conftest import image
from transcreval.engines.judge.fake_server import synthetic_answer
from transcreval.engines.judge.openai_judge import OpenAICompatibleJudge
from transcreval.engines.judge.parse import extract_json
from transcreval.engines.judge.templates import resolve_template
from transcreval.errors import InputError
from transcreval.judge import TEMPLATES, ImagePart, PromptTemplate, TextPart

T = PromptTemplate(
    id="t",
    version="1",
    images=("src", "out"),
    system="You judge posters for {market}.",
    user='Source:\n{image:src}\nOutput:\n{image:out}\nMarket {market}. Reply {{"score": <integer 1-5>}}',
)


def test_render_places_images_between_text_parts():
    req = T.render({"src": image(1), "out": image(2)}, market="Japan")
    assert [m.role for m in req.messages] == ["system", "user"]
    assert req.messages[0].parts == (TextPart("You judge posters for Japan."),)
    kinds = [type(p).__name__ for p in req.messages[1].parts]
    assert kinds == ["TextPart", "ImagePart", "TextPart", "ImagePart", "TextPart"]
    assert req.messages[1].parts[-1].text == 'Market Japan. Reply {"score": <integer 1-5>}'
    assert (req.template_id, req.template_version) == ("t", "1")
    assert req.images[0] == ImagePart.from_pil(__import__("PIL.Image").Image.fromarray(image(1)))


def test_images_without_a_marker_are_appended_in_slot_order():
    t = PromptTemplate("t2", "1", "Compare these.", images=("a", "b"))
    req = t.render({"b": image(2), "a": image(1)})
    parts = req.messages[0].parts
    assert isinstance(parts[0], TextPart) and [p.sha256 for p in parts[1:]] == [
        ImagePart.from_pil(__import__("PIL.Image").Image.fromarray(image(i))).sha256 for i in (1, 2)
    ]


def test_render_errors_name_what_is_missing():
    with pytest.raises(InputError, match=r"needs the field\(s\) \['market'\]"):
        T.render({"src": image(1), "out": image(2)})
    with pytest.raises(InputError, match="places image 'out' but none was given"):
        T.render({"src": image(1)}, market="x")
    with pytest.raises(InputError, match="no image slot"):
        T.render({"src": image(1), "out": image(2), "extra": image(3)}, market="x")


@pytest.mark.parametrize("text", ["{x.__class__}", "{x[0]}", "{x!r}", "{x:>10}", "{0}", "{", "}"])
def test_only_plain_fields_are_allowed(text):
    with pytest.raises(InputError):
        PromptTemplate("bad", "1", text)


def test_field_values_are_not_formatted_twice():
    t = PromptTemplate("t", "1", "Title: {title}")
    assert t.render(title="{market} {{x}}").messages[0].parts[0].text == "Title: {market} {{x}}"


def test_with_text_and_from_file(tmp_path):
    custom = T.with_text("Just {market}: {image:out} and {image:src}")
    assert custom.images == T.images and custom.id == "t+custom" and custom.version.startswith("sha-")
    assert custom.version != T.with_text("Just {market}! {image:out} and {image:src}").version
    f = tmp_path / "p.txt"
    f.write_text("---\nid: mine\nversion: 7\n---\n[system]\nBe strict.\n[user]\nRate {image:out} for {market}.\n")
    t = PromptTemplate.from_file(f, base=T)
    assert (t.id, t.version, t.system, t.source) == ("mine", "7", "Be strict.", str(f))
    req = t.render({"src": image(1), "out": image(2)}, market="Peru")
    assert req.messages[1].parts[0].text == "Rate" and req.messages[1].parts[2].text == "for Peru."
    plain = tmp_path / "q.txt"
    plain.write_text("Rate the poster for {market}.")
    q = PromptTemplate.from_file(plain, base=T)
    assert q.id == "t+file" and q.system is None and len(q.version) == 16
    assert resolve_template(str(plain), T).user == "Rate the poster for {market}."
    assert resolve_template(None, T) is T
    assert resolve_template("mptc.title", TEMPLATES["posteriq.style"]) is TEMPLATES["mptc.title"]
    with pytest.raises(InputError, match="neither a file nor a built-in"):
        resolve_template("no-such-template", T)
    bad = tmp_path / "bad.txt"
    bad.write_text("---\nid: x\nno closing\n")
    with pytest.raises(InputError, match="never closed"):
        PromptTemplate.from_file(bad, base=T)


@pytest.mark.parametrize("newline", ["\n", "\r\n"])
def test_a_byte_order_mark_or_windows_line_ends_keep_the_front_matter(tmp_path, newline):
    """A file saved with a UTF-8 byte-order mark (Notepad, some IDEs) lost its
    front matter: id/version lines were sent as prompt text and the user's id and version ignored."""
    text = "---\nid: mine\nversion: 7\n---\n[system]\nBe strict.\n[user]\nRate {image:out} for {market}.\n"
    f = tmp_path / "bom.txt"
    f.write_bytes(b"\xef\xbb\xbf" + text.replace("\n", newline).encode("utf-8"))
    t = PromptTemplate.from_file(f, base=T)
    assert (t.id, t.version, t.system) == ("mine", "7", "Be strict.")
    assert "id:" not in t.user and "\ufeff" not in t.user and "\r" not in t.user
    plain = tmp_path / "plain.txt"
    plain.write_text(text, encoding="utf-8")
    assert PromptTemplate.from_file(plain, base=T) == PromptTemplate.from_file(f, base=T).__class__(
        **{**PromptTemplate.from_file(f, base=T).__dict__, "source": str(plain)}
    )
    latin = tmp_path / "latin.txt"
    latin.write_bytes("Évaluez {market}".encode("latin-1"))
    with pytest.raises(InputError, match="not UTF-8"):
        PromptTemplate.from_file(latin, base=T)


DUMMY = {
    "target_market": "Japan",
    "source_market": "USA",
    "genre": "drama",
    "question": "Which genre?",
    "options": "A. drama\nB. comedy",
    "hint": "look",
    "letters": "A, B",
    "category": "food",
    "country": "India",
    "objects": "cup, tea",
    "list1": "a, b",
    "list2": "c",
    "translation": "Grand opening",
    "point": "a red umbrella",
    "description": "a poster",
    "styles": "Minimalist, Memphis",
    "vocabulary": "bold, serif",
}


@pytest.mark.parametrize("tid", sorted(TEMPLATES))
def test_every_built_in_template_renders_and_names_its_answer_keys(tid):
    t = TEMPLATES[tid]
    req = t.render({name: image(i) for i, name in enumerate(t.images)}, **{f: DUMMY[f] for f in t.fields})
    text = req.text
    assert all(f'"{k}"' in text for k in t.output), "every answer key appears in the prompt"
    assert "{" in text and "{{" not in text
    body = {"messages": OpenAICompatibleJudge._messages(req)}
    answer = extract_json(synthetic_answer(body))
    assert answer.ok
    simple = [k for k, v in t.output.items() if "object" not in v]
    assert set(simple) <= set(answer.value), "the fake server can answer every template"


def example_answer(template) -> dict:
    """The answer the prompt shows as its example (its last ``{...}``), slots filled with values
    of their kind, read as JSON: what a model that copies the example's shape gives."""
    text = template.render({n: image(i) for i, n in enumerate(template.images)}, **DUMMY).text
    example = text[text.rfind("\n{") + 1 :]
    filled = re.sub(r'"<[^>]*>"', '"x"', example)
    filled = re.sub(r"<integer (-?\d+)\s*-\s*\d+>", r"\1", filled)
    filled = filled.replace("<true or false>", "true")
    return json.loads(filled)


@pytest.mark.parametrize("tid", sorted(TEMPLATES))
def test_every_example_answer_has_the_shape_the_parser_reads(tid):
    """A list key is shown as a JSON list and an object key as an object: a model copying the
    example literally gives an answer of the right type (before: "objects": "<list ...>")."""
    t = TEMPLATES[tid]
    answer = example_answer(t)
    assert set(t.output) <= set(answer)
    for key, kind in t.output.items():
        if kind.startswith("list"):
            assert isinstance(answer[key], list) and answer[key], (key, answer[key])
        elif kind.startswith("object"):
            assert isinstance(answer[key], dict) and all(isinstance(v, list) for v in answer[key].values())


# Phrases of the papers' own prompts (normalised to lower-case words) that an earlier version of
# the built-in templates reused. The templates carry the papers' rubrics in our own words.
PAPER_PHRASES = [
    "the most prominent one if no title",
    "prefer the one with fewer artifacts and clearer text",
    "typography layout and design conventions familiar",
    "not which is better in the abstract",
    "image belongs to the same category",
    "to someone from country for each",
    "relevant to someone in country and",
    "in spelling wording or punctuation do not",
    "does not look natural at all",
    "numbers dates units prices names proper nouns",
    "should be translated consistently",
    "do not invent mismatches judge only what can be read",
]


@pytest.mark.parametrize("tid", sorted(TEMPLATES))
def test_built_in_templates_do_not_reuse_the_papers_prompt_phrases(tid):
    t = TEMPLATES[tid]
    words = " ".join(re.findall(r"[a-z0-9]+", ((t.system or "") + " " + t.user.replace("{", " ")).lower()))
    assert [p for p in PAPER_PHRASES if p in words] == []


# ---------------------------------------------------------------------- review 11: errors before any call
def test_a_template_using_a_field_or_image_the_metric_lacks_fails_when_the_metric_is_built(tmp_path):
    from transcreval import JudgeScore, VLMTranscreationScore
    from transcreval.judge import FunctionJudge

    calls = []
    judge = FunctionJudge(lambda r: (calls.append(r), '{"score": 3}')[1])
    field = tmp_path / "field.txt"
    field.write_text('Rate the poster for {market}.\nReply {{"score": n}}')
    with pytest.raises(InputError, match=r"JudgeScore: .*uses the field\(s\) \['market'\].*fills \['target_market'"):
        JudgeScore(judge=judge, template=str(field))
    picture = tmp_path / "image.txt"
    picture.write_text('{image:poster}\nRate it. {{"score": n}}')
    with pytest.raises(InputError, match=r"places the image\(s\) \['poster'\].*provides \['source', 'output'\]"):
        JudgeScore(judge=judge, template=str(picture))
    with pytest.raises(InputError, match="uses the field"):
        VLMTranscreationScore(judge=judge, aspect="intent", template=PromptTemplate(id="x", version="1", user="{lang}"))
    # a field of the metric that its default template does not use is fine
    ok = tmp_path / "ok.txt"
    ok.write_text('{image:output} Is this from {country}, a {category}? {{"score": n}}')
    VLMTranscreationScore(judge=judge, aspect="intent", template=str(ok))
    assert calls == []


def test_render_names_the_fields_it_was_given():
    t = PromptTemplate(id="t", version="1", user="{a} {b}")
    with pytest.raises(InputError, match=r"needs the field\(s\) \['b'\]; got values for \['a', 'c'\]"):
        t.render(a="x", b=None, c="y")
    with pytest.raises(InputError, match=r"needs the field\(s\) \['a'\]"):
        t.render(a=float("nan"), b="x")
