"""Exports are faithful to the tree: rules, DOT, generated Python, JSON (PMML: test_pmml.py)."""

import shutil
import subprocess

import numpy as np
import pandas as pd
import pytest

from engine.data.encoding import encode
from engine.data.samples import load_sample
from engine.estimator import DecisionTree
from engine.export.dot import to_dot
from engine.export.model_json import load_model, save_model
from engine.export.python_code import to_python
from engine.export.rule_set import rules_text, simplify_rules, to_rules
from engine.predict import predict_proba

WEATHER_RULES = """\
IF outlook = sunny AND humidity = high THEN play = no  (3/3)
IF outlook = sunny AND humidity = normal THEN play = yes  (2/2)
IF outlook = overcast THEN play = yes  (4/4)
IF outlook = rainy AND windy = TRUE THEN play = no  (2/2)
IF outlook = rainy AND windy = FALSE THEN play = yes  (3/3)
"""

CASES = [
    ("weather", "id3"),
    ("weather", "c45"),
    ("weather", "cart"),
    ("weather-numeric", "c45"),
    ("weather-numeric", "cart"),
    ("restaurant", "id3"),
    ("restaurant", "cart"),
    ("toys", "c45"),
    ("contact-lenses", "id3"),
    ("contact-lenses", "c45"),
    ("iris", "c45"),
    ("iris", "cart"),
]


def test_weather_rules_golden(weather):
    model = DecisionTree(algorithm="id3").fit(weather)
    rules = to_rules(model.tree_, encode(weather))
    assert rules_text(model.tree_, rules) == WEATHER_RULES
    md = rules_text(model.tree_, rules, "markdown")
    assert (
        md.splitlines()[2]
        == "| 1 | IF outlook = sunny AND humidity = high THEN play = no | (3/3) |"
    )


def test_numeric_conditions_merge_into_intervals():
    table = load_sample("iris")
    model = DecisionTree(algorithm="cart").fit(table)
    text = rules_text(model.tree_, to_rules(model.tree_, encode(table)))
    assert "petallength > 2.45 AND petallength <= 4.95" in text
    for line in text.splitlines():
        assert line.count("petallength >") <= 1 and line.count("petallength <=") <= 1


def test_simplified_rules_are_fewer_conditions_and_end_with_a_default():
    rng = np.random.default_rng(4)
    n = 400
    frame = pd.DataFrame({c: rng.choice(list("pqrs"), n) for c in "abcd"})
    frame["y"] = np.where((frame.a == "p") ^ (rng.random(n) < 0.15), "yes", "no")
    from engine.data.table import make_table

    t = make_table(frame)
    model = DecisionTree(algorithm="id3").fit(t)
    data = encode(t)
    rules = to_rules(model.tree_, data)
    simple = simplify_rules(model.tree_, rules, data)
    assert sum(len(r.conditions) for r in simple) < sum(len(r.conditions) for r in rules)
    assert simple[-1].conditions == ()
    assert any(
        len(r.conditions) == 1 and t.attributes[r.conditions[0].attribute] == "a" for r in simple
    )


@pytest.mark.parametrize(("sample", "algorithm"), CASES)
def test_generated_python_predicts_like_the_model(sample, algorithm):
    table = load_sample(sample)
    model = DecisionTree(algorithm=algorithm).fit(table)
    namespace = {}
    exec(compile(to_python(model.tree_), "<generated>", "exec"), namespace)  # noqa: S102
    rng = np.random.default_rng(1)
    frame = table.frame.copy()
    for name in table.attributes:  # blank ~20% of the cells, and add an unseen category
        frame[name] = frame[name].astype(object)
        frame.loc[rng.random(len(frame)) < 0.2, name] = np.nan
    nominal = [n for n in table.attributes if table.kinds[n] == "nominal"]
    if nominal:
        frame.loc[frame.index[0], nominal[0]] = "never-seen"
    rows = [
        {k: (None if pd.isna(v) else v) for k, v in r.items()} for r in frame.to_dict("records")
    ]
    assert [namespace["predict"](r) for r in rows] == model.predict(frame).tolist()
    got = np.array([namespace["predict_proba"](r) for r in rows])
    assert np.allclose(got, model.predict_proba(frame), atol=1e-9)


def test_generated_python_for_regression():
    table = load_sample("weather-numeric").with_target("humidity")
    model = DecisionTree(algorithm="cart", task="regression", max_depth=3).fit(table)
    namespace = {}
    exec(to_python(model.tree_), namespace)  # noqa: S102
    rows = table.frame.to_dict("records")
    assert np.allclose([namespace["predict"](r) for r in rows], model.predict(table))


def test_dot_structure_and_escaping(tmp_path):
    frame = pd.DataFrame({'say "hi"': ["a\\b", "c", "a\\b", "c"], "y": ["p", "q", "p", "q"]})
    model = DecisionTree(algorithm="id3").fit(frame)
    dot = to_dot(model.tree_)
    assert dot.startswith('digraph "tree: y" {') and dot.rstrip().endswith("}")
    # The names are quoted for the rules (shown), then escaped for DOT's own string syntax.
    assert r'label="\"say \\\"hi\\\"\"\n' in dot and r'label="= \"a\\\\b\""' in dot
    assert dot.count("->") == model.tree_.n_nodes - 1
    if shutil.which("dot"):
        path = tmp_path / "t.dot"
        path.write_text(dot)
        subprocess.run(["dot", "-Tsvg", str(path), "-o", str(tmp_path / "t.svg")], check=True)


@pytest.fixture(scope="module")
def graphviz_read(tmp_path_factory) -> dict:
    """Every case's tree as DOT, read by one Graphviz process (one per tree cost 0.3 s of
    CPU more): ``{case: (the tree, the kind of each line of dot's plain output)}``. Its
    plain output is one graph after another, each ending in a line "stop"."""
    folder = tmp_path_factory.mktemp("dot")
    trees, paths = {}, []
    for k, (sample, algorithm) in enumerate(CASES):
        trees[sample, algorithm] = DecisionTree(algorithm=algorithm).fit(load_sample(sample)).tree_
        paths.append(folder / f"t{k}.dot")
        paths[-1].write_text(to_dot(trees[sample, algorithm]))
    plain = subprocess.run(
        ["dot", "-Tplain", *map(str, paths)], check=True, capture_output=True, text=True
    ).stdout
    graphs = [[]]
    for line in plain.splitlines():
        graphs[-1].append(line.split()[0])
        if line == "stop":
            graphs.append([])
    assert graphs.pop() == [] and len(graphs) == len(CASES)
    return {case: (trees[case], kinds) for case, kinds in zip(CASES, graphs, strict=True)}


@pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz is not installed")
@pytest.mark.parametrize(("sample", "algorithm"), CASES)
def test_graphviz_reads_every_sample_tree(sample, algorithm, graphviz_read):
    tree, kinds = graphviz_read[sample, algorithm]
    assert kinds.count("node") == tree.n_nodes and kinds.count("edge") == tree.n_nodes - 1


@pytest.mark.parametrize(("sample", "algorithm"), CASES)
def test_json_round_trip_predicts_the_same(sample, algorithm, tmp_path):
    table = load_sample(sample)
    model = DecisionTree(algorithm=algorithm).fit(table)
    path = tmp_path / "m.json"
    save_model(model.tree_, model.settings_, path)
    tree, settings = load_model(path)
    assert settings == model.settings_ and tree.n_nodes == model.tree_.n_nodes
    X = encode(table).X
    assert np.array_equal(predict_proba(tree, X), predict_proba(model.tree_, X))


def _generated(tree) -> dict:
    namespace = {}
    exec(compile(to_python(tree), "<generated>", "exec"), namespace)  # noqa: S102
    return namespace


def test_generated_python_takes_rows_as_pandas_and_csv_read_them(tmp_path):
    """pandas reads weather-numeric's windy as booleans and numbers as numbers, the csv module
    everything as text: the module gets all 14 rows right either way (it got 12 with pandas)."""
    import csv

    from engine.data.io import write_table

    table = load_sample("weather-numeric")
    model = DecisionTree(algorithm="c45").fit(table)
    predict = _generated(model.tree_)["predict"]
    path = tmp_path / "weather.csv"
    write_table(table, path)
    expected = model.predict(table).tolist()
    frame = pd.read_csv(path)
    assert frame["windy"].dtype == bool
    assert [predict(r) for r in frame.to_dict("records")] == expected
    assert [predict(r) for _, r in frame.iterrows()] == expected  # numpy scalars
    with open(path, newline="") as handle:
        assert [predict(r) for r in csv.DictReader(handle)] == expected
    assert sum(p == t for p, t in zip(expected, table.frame["play"], strict=True)) == 14


def test_generated_python_takes_whole_numbers_for_numbered_categories():
    frame = pd.DataFrame({"grade": ["1", "2", "3", "1", "2", "3"], "y": list("pqrpqr")})
    model = DecisionTree(algorithm="id3").fit(frame, kinds={"grade": "nominal"})
    module = _generated(model.tree_)
    assert "whole numbers" in module["__doc__"]
    for value, label in ((1, "p"), (2.0, "q"), (np.int64(3), "r"), ("2", "q"), (" 3 ", "r")):
        assert module["predict"]({"grade": value}) == label
    assert module["predict_proba"]({"grade": pd.NA}) == pytest.approx([1 / 3] * 3)
    assert module["predict_proba"]({"grade": "N/A"}) == pytest.approx([1 / 3] * 3)
