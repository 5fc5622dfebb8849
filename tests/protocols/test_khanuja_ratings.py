"""The human-rating reader on small files written here: the released layout, de-shuffled; every
problem an InputError naming the file and line; the model-specific copies refused."""

from __future__ import annotations

import math

import pytest

from transcreval.errors import InputError
from transcreval.protocols.khanuja import read_human_ratings
from transcreval.protocols.khanuja.ratings import image_key_from_path

HUMAN_HEAD = "visual_change2,visual_change3,visual_change4,sem_eq2,sem_eq3,sem_eq4,culture1,culture2,culture3,culture4"
LABELS_HEAD = "src_image_path,model_1,model_2,model_3"
# two images; the second row puts the systems in another order
LABELS = [
    "https://host/part1/japan/food_miso-soup.jpg,a,b,c",
    "/data/part1/united-states/mammal_american-black-bear.jpeg,c,a,b",
]
HUMAN = ["1,2,3,4,5,4,1,3,3,3", "5,1,2,2,1,1,2,5,4,3"]


def write(folder, human=HUMAN, labels=LABELS, human_head=HUMAN_HEAD, labels_head=LABELS_HEAD):
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "human_eval.csv").write_text("\n".join([human_head, *human]) + "\n", encoding="utf-8")
    (folder / "labels.csv").write_text("\n".join([labels_head, *labels]) + "\n", encoding="utf-8")
    return folder


def test_each_slot_goes_to_the_system_labels_csv_names(tmp_path):
    write(tmp_path / "india")
    got = read_human_ratings(tmp_path)["india"]
    vis, sem, cult = got["vis-sim"], got["sem-eq"], got["cult-rel"]
    assert vis.systems == ("a", "b", "c") and vis.path == str(tmp_path / "india" / "human_eval.csv")
    assert dict(vis.ratings["japan_food_miso-soup"]) == {"a": 1, "b": 2, "c": 3}
    assert dict(vis.ratings["united-states_mammal_american-black-bear"]) == {"c": 5, "a": 1, "b": 2}
    assert dict(sem.ratings["united-states_mammal_american-black-bear"]) == {"c": 2, "a": 1, "b": 1}
    # culture1 (the source image's own rating) is not a system's
    assert dict(cult.ratings["japan_food_miso-soup"]) == {"a": 3, "b": 3, "c": 3}
    assert dict(cult.ratings["united-states_mammal_american-black-bear"]) == {"c": 5, "a": 4, "b": 3}


def test_blank_cells_are_missing_unless_refused(tmp_path):
    write(tmp_path / "india", human=["1,,3,4,5,4,1,3,3,3", HUMAN[1]])
    assert math.isnan(read_human_ratings(tmp_path)["india"]["vis-sim"].rating("japan_food_miso-soup", "b"))
    with pytest.raises(
        InputError,
        match=r"human_eval\.csv, line 2 \(image 'japan_food_miso-soup'\), column 'visual_change3' \(b\): a blank",
    ):
        read_human_ratings(tmp_path, allow_blank=False)


@pytest.mark.parametrize(
    "change, message",
    [
        ({"human": HUMAN[:1]}, r"human_eval\.csv has 1 rows but .*labels\.csv has 2: the two files are row-aligned"),
        ({"labels": [*LABELS, LABELS[0]]}, "has 2 rows but .* has 3"),
        (
            {"human": ["1,2,9,4,5,4,1,3,3,3", HUMAN[1]]},
            r"line 2 \(image 'japan_food_miso-soup'\), column 'visual_change4' \(c\): '9' is not a rating from 1 to 5",
        ),
        ({"human": ["1,2,3,4,5,4,1,3,x,3", HUMAN[1]]}, r"column 'culture3' \(b\): 'x' is not a rating"),
        ({"human": ["1,2,3,4,5,4,1,3,3", HUMAN[1]]}, r"human_eval\.csv, line 2: 9 cells, but the header has 10"),
        (
            {"human_head": HUMAN_HEAD.replace("sem_eq3", "semeq3")},
            r"human_eval\.csv, line 1: no column sem_eq3; labels\.csv names 3 systems",
        ),
        ({"human_head": HUMAN_HEAD + ",culture2"}, "column 'culture2' appears twice"),
        (
            {"labels_head": "image,model_1,model_2,model_3"},
            r"labels\.csv, line 1: the header needs src_image_path and model_1",
        ),
        (
            {"labels": [LABELS[0], LABELS[1].replace(",c,a,b", ",c,a,a")]},
            r"labels\.csv, line 3 \(image 'united-states_mammal_american-black-bear'\): "
            "system 'a' is in two rating slots",
        ),
        ({"labels": [LABELS[0], LABELS[1].replace(",c,a,b", ",c,,b")]}, r"line 3 .*: model_2 is blank"),
        (
            {"labels": [LABELS[0], LABELS[0]]},
            r"labels\.csv, line 3: image 'japan_food_miso-soup' again \(first on line 2\)",
        ),
        ({"labels": ["miso.jpg,a,b,c", LABELS[1]]}, r"labels\.csv, line 2: src_image_path 'miso.jpg' is not"),
        (
            {"labels": ["/part1/japan/miso.jpg,a,b,c", LABELS[1]]},
            r"labels\.csv, line 2: image key 'japan_miso' is not source_category_object",
        ),
    ],
)
def test_bad_files_are_named_by_file_and_line(tmp_path, change, message):
    write(tmp_path / "india", **change)
    with pytest.raises(InputError, match=message):
        read_human_ratings(tmp_path)


def test_missing_files_and_wrong_folders_say_what_to_pass(tmp_path):
    write(tmp_path / "part-1" / "india")
    with pytest.raises(InputError, match=r"no country folder in .*its folders: part-1"):
        read_human_ratings(tmp_path)
    with pytest.raises(InputError, match="is one country's folder; pass the folder holding them"):
        read_human_ratings(tmp_path / "part-1" / "india")
    with pytest.raises(InputError, match="is not a folder"):
        read_human_ratings(tmp_path / "nowhere")
    with pytest.raises(InputError, match=r"'japan'.*does not exist"):
        read_human_ratings(tmp_path / "part-1", ["japan"])
    (tmp_path / "part-1" / "india" / "labels.csv").unlink()
    with pytest.raises(InputError, match=r"has human_eval\.csv but no labels\.csv, which says which system"):
        read_human_ratings(tmp_path / "part-1")
    (tmp_path / "part-1" / "empty").mkdir()
    with pytest.raises(InputError, match=r"empty has no human_eval\.csv"):
        read_human_ratings(tmp_path / "part-1", ["empty"])


def test_the_model_specific_copies_are_refused(tmp_path):
    d = tmp_path / "model-specific" / "part-1" / "india"
    d.mkdir(parents=True)
    for name in ("culture", "sem_eq", "visual_change"):
        (d / f"{name}.csv").write_text("Key,cap-edit,cap-retrieve,e2e-instruct\njapan_food_sushi,1,5,2\n")
    for root, countries in ((d.parent, None), (d.parent, ["india"]), (d, None)):
        with pytest.raises(InputError) as err:
            read_human_ratings(root, countries)
        msg = str(err.value)
        assert "culture.csv, sem_eq.csv, visual_change.csv" in msg and "positional copies" in msg
        assert "not de-shuffled by labels.csv" in msg and "human_eval.csv with labels.csv" in msg


@pytest.mark.parametrize(
    "path, key",
    [
        (
            "https://storage.googleapis.com/x/part1/united-states/mammal_american-black-bear.jpg",
            "united-states_mammal_american-black-bear",
        ),
        ("C:\\data\\part1\\japan\\food_miso-soup.png", "japan_food_miso-soup"),
        ("part1/japan/mammal_inoshishi-(wild-boar).jpeg", "japan_mammal_inoshishi-(wild-boar)"),
        ("part1/brazil/food_pão_de_queijo", "brazil_food_pão_de_queijo"),
    ],
)
def test_image_keys_come_from_the_source_path(path, key):
    assert image_key_from_path(path) == key
