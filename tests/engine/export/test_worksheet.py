"""The worksheet (issue 35): one table per seed, and every number in its answer key is
explain's, read back from the JSON a teacher's tools would read."""

import json

import numpy as np
import pytest

from engine.data.encoding import encode
from engine.errors import ArborError
from engine.export.worksheet import random_table, worksheet
from engine.growth import grow
from engine.learn.criteria import entropy
from engine.learn.explain import attribute_table, node_rows, used_on_path
from engine.settings import resolve
from engine.tree import Tree

FIELDS = ("entropy_before", "mean_info", "info_gain", "split_info", "gain_ratio", "gini_gain")


def test_the_same_seed_makes_the_same_table_and_another_seed_another():
    a, b = random_table(seed=5, rows=11), random_table(seed=5, rows=11)
    assert a.frame.equals(b.frame)
    assert not a.frame.equals(random_table(seed=6, rows=11).frame)
    assert dict(a.kinds) == {
        "outlook": "nominal",
        "wind": "nominal",
        "temperature": "numeric",
        "play": "nominal",
    }
    assert min(a.frame["play"].value_counts()) >= 3  # both classes, so the root is impure
    # The table the JSON gives is the one the PDF prints, row for row.
    sheet = worksheet(seed=5, rows=11).as_dict()
    assert sheet["table"][0] == [
        str(v) if isinstance(v, str) else float(v) for v in a.frame.iloc[0]
    ]


@pytest.mark.parametrize("bad", [{"rows": 7}, {"rows": 15}, {"seed": -1}])
def test_bad_sizes_and_seeds_are_refused(bad):
    with pytest.raises(ArborError, match="worksheet"):
        random_table(**{"seed": 1, "rows": 10, **bad})


@pytest.mark.parametrize("algorithm", ["id3", "c45", "cart"])
def test_every_number_is_explains(algorithm):
    sheet = json.loads(json.dumps(worksheet(seed=4, rows=12, algorithm=algorithm).as_dict()))
    table = random_table(seed=4, rows=12)
    data = encode(table)
    settings = resolve(algorithm=algorithm, prune="none", max_depth=2)
    tree = Tree(grow(data, settings, compiled=False), data.schema)
    nodes = [sheet["root"], *sheet["next_level"]]
    assert [n["node"] for n in nodes] == [0, *(c.id for c in tree.root.children)]
    for node in nodes:
        rows, weights = node_rows(tree, data, node["node"], settings)
        chosen = tree.node(node["node"]).split
        expected = attribute_table(
            data,
            settings,
            rows,
            weights,
            chosen.attribute if chosen is not None else -1,
            used_on_path(tree, node["node"]),
        )
        for got, want in zip(node["attributes"], expected, strict=True):
            assert got["name"] == want.name and got["chosen"] == want.chosen
            assert [got[f] for f in FIELDS] == [getattr(want, f) for f in FIELDS]
            if got["branches"]:  # the branches' entropies make explain's mean info
                n = sum(b["n"] for b in got["branches"])
                mean = sum(b["n"] / n * b["entropy"] for b in got["branches"])
                assert mean == pytest.approx(want.mean_info, abs=1e-12)
        assert node["entropy"] == pytest.approx(float(entropy(node["counts"])), abs=1e-15)
    root = sheet["root"]
    assert root["chosen"] == data.schema.attributes[tree.root.split.attribute].name
    # The short answers are the key's numbers, rounded once.
    answers = {q["number"]: q["answer"] for q in sheet["questions"]}
    assert answers["1"] == f"{root['entropy']:.3f}"
    first = root["attributes"][0]
    assert f"gain {first['info_gain']:.3f}, gain ratio {first['gain_ratio']:.3f}" in answers["2"]
    assert answers[str(len(root["attributes"]) + 2)].startswith(root["chosen"])


def test_a_numeric_attribute_gives_its_cuts_and_its_penalised_gain():
    temperature = worksheet(seed=1, rows=10, algorithm="c45").root["attributes"][2]
    assert temperature["name"] == "temperature"
    assert temperature["threshold"] in temperature["cuts"]
    penalty = np.log2(len(temperature["cuts"])) / 10
    assert temperature["mdl_gain"] == pytest.approx(temperature["info_gain"] - penalty)
