"""Prompt templates: rendering, image placement, safe fields, files, the built-in catalog."""

from __future__ import annotations

import pytest

from tests.judge.conftest import image
from transcreval.errors import InputError
from transcreval.judge import TEMPLATES, ImagePart, PromptTemplate, TextPart
from transcreval.judge.fake_server import synthetic_answer
from transcreval.judge.openai_judge import OpenAICompatibleJudge
from transcreval.judge.parse import extract_json
from transcreval.judge.templates import resolve_template

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
    assert resolve_template(None, T) is T and resolve_template("mptc.title", T) is TEMPLATES["mptc.title"]
    with pytest.raises(InputError, match="neither a file nor a built-in"):
        resolve_template("no-such-template", T)
    bad = tmp_path / "bad.txt"
    bad.write_text("---\nid: x\nno closing\n")
    with pytest.raises(InputError, match="never closed"):
        PromptTemplate.from_file(bad, base=T)


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
