"""Nothing a data file holds becomes code or markup: every export of a tree whose names hold
quotes, triple quotes, backslashes, newlines, braces, ``<>&`` and non-ASCII is read back by
the program it is meant for, the names come back exactly, and nothing runs."""

from __future__ import annotations

import importlib.util
import json
import re
import shutil
import subprocess
from xml.etree import ElementTree as ET

import numpy as np
import pandas as pd
import pytest

from engine.data.encoding import encode
from engine.data.table import make_table
from engine.estimator import DecisionTree
from engine.export.dot import to_dot
from engine.export.labels import shown
from engine.export.model_json import load_model, save_model
from engine.export.pmml import NS, to_pmml
from engine.export.python_code import to_python
from engine.export.rule_set import rules_text, simplify_rules, to_rules
from engine.export.text import to_text
from engine.predict import prediction_frame
from tests.engine.export.test_pmml import score

P = f"{{{NS}}}"
A = 'quote " triple """ back\\slash {brace}'
B = "new\nline <b>&amp;</b> naïve"
C = "café, {numeric}"
CATS_A = ['say "hi"', "ends in\\", "}{"]
CATS_B = ["two\nlines", "naïve ✓", "p | q", "x = y AND z"]
CLASSES = ['yes """', "no\\", "<maybe>&\n'''; import os; '''"]


def _payload(marker) -> str:
    """The issue's name: a module that wrote it into its docstring ran it when imported."""
    return f'x"""; __import__("pathlib").Path("{marker}").touch(); """'


def _table(marker):
    rows = []
    for a in CATS_A:
        for b in CATS_B:
            for c in range(1, 11):
                if a == CATS_A[0]:
                    y = CLASSES[0]
                elif b in CATS_B[:2]:
                    y = CLASSES[1]
                else:
                    y = CLASSES[2] if c > 5 else CLASSES[0]
                rows.append((a, b, float(c), y))
    frame = pd.DataFrame(rows, columns=[A, B, C, _payload(marker)])
    return make_table(frame)


@pytest.fixture(scope="module", params=["id3", "c45", "cart"])
def trained(request, tmp_path_factory):
    """Each algorithm's model, fitted once for the tests here (they only export and read it
    back); each checks that the marker its table's name would touch is still absent."""
    marker = tmp_path_factory.mktemp(request.param) / "PWNED"
    table = _table(marker)
    if request.param == "id3":
        table = table.with_kinds(**{C: "ignored"})
    params = {"min_samples_leaf": 1} if request.param == "c45" else {}
    model = DecisionTree(algorithm=request.param, **params).fit(table)
    return table, model, marker


def _used(tree):
    """Attribute names and category names the tree's splits mention."""
    names, values = set(), set()
    for node in tree.nodes():
        if node.split is not None:
            attribute = tree.schema.attributes[node.split.attribute]
            names.add(attribute.name)
            values.update(attribute.categories[c] for g in node.split.groups for c in g)
    return names, values


# ---------------------------------------------------------------- reading the shown form back
def _read_shown(text: str) -> str:
    return json.loads(text) if text.startswith('"') else text


def _hide_quoted(text: str) -> tuple[str, list[str]]:
    """Replace every quoted name by a placeholder, so the rest splits on the rule grammar."""
    found: list[str] = []
    out, i, decoder = [], 0, json.JSONDecoder()
    while i < len(text):
        if text[i] == '"':
            value, end = decoder.raw_decode(text, i)
            out.append(f"\x00{len(found)}\x00")
            found.append(value)
            i = end
        else:
            out.append(text[i])
            i += 1
    return "".join(out), found


def _names_in(text: str, found: list[str]) -> str:
    return re.sub("\x00(\\d+)\x00", lambda m: found[int(m[1])], text)


def _condition(text: str, found: list[str]) -> tuple[str, str, list[str]]:
    for op in (" = ", " in {", " <= ", " > "):
        if op in text:
            name, rest = text.split(op, 1)
            values = rest.rstrip("}").split(", ") if op == " in {" else [rest]
            return _names_in(name, found), op.strip(" {"), [_names_in(v, found) for v in values]
    raise AssertionError(f"no operator in {text!r}")


def _parse_rule(line: str) -> tuple[list, str, str]:
    hidden, found = _hide_quoted(line)
    body, _stats = hidden.rsplit("  (", 1) if "  (" in hidden else (hidden, "")
    head, conclusion = (
        body.split(" THEN ") if body.startswith("IF ") else ("", body.removeprefix("OTHERWISE "))
    )
    conditions = (
        [_condition(c, found) for c in head.removeprefix("IF ").split(" AND ")] if head else []
    )
    target, label = conclusion.split(" = ")
    return conditions, _names_in(target, found), _names_in(label, found)


def _check_conditions(conditions, table, numeric_ok=True):
    for name, op, values in conditions:
        assert name in table.frame.columns
        if op in ("=", "in"):
            assert set(values) <= set(table.frame[name].cat.categories)
        else:
            assert numeric_ok and name == C
            float(values[0])


# ---------------------------------------------------------------- the exports
def test_python_module_imports_and_predicts_without_running_names(trained, tmp_path):
    table, model, marker = trained
    path = tmp_path / "generated_tree.py"
    path.write_text(to_python(model.tree_), encoding="utf-8")
    spec = importlib.util.spec_from_file_location("generated_tree", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert not marker.exists()
    target = table.target
    assert target == module.TARGET and f'"{target}"' in module.__doc__
    assert table.attributes == module.ATTRIBUTES
    assert list(model.classes_) == module.CLASSES
    names, values = _used(model.tree_)
    keys = {k for node in module.NODES.values() for k in node[3]}
    assert keys == values and {n[0] for n in module.NODES.values()} - {None} == names
    rows = table.frame[table.attributes].to_dict("records")
    assert [module.predict(r) for r in rows] == model.predict(table).tolist()
    assert not marker.exists()


@pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz is not installed")
def test_graphviz_reads_the_names_back(trained, tmp_path):
    table, model, marker = trained
    path = tmp_path / "t.dot"
    path.write_text(to_dot(model.tree_), encoding="utf-8")
    out = subprocess.run(
        ["dot", "-Tjson", str(path)], check=True, capture_output=True, text=True
    ).stdout
    graph = json.loads(out)
    assert not marker.exists()

    def unescape(label):  # Graphviz's escString: \\ is a backslash, \n a line break
        return re.sub(r"\\(.)", lambda m: "\n" if m[1] == "n" else m[1], label)

    heads = [unescape(o["label"]).split("\n")[0] for o in graph["objects"]]
    assert len(heads) == model.tree_.n_nodes
    names, values = _used(model.tree_)
    shown_heads = {_read_shown(h) for h in heads}
    assert names <= shown_heads and shown_heads - names <= set(model.classes_)
    assert (
        graph["name"] == "tree: " + json.dumps(table.target, ensure_ascii=False)
        or _read_shown(unescape(graph["name"]).removeprefix("tree: ")) == table.target
    )
    seen = set()
    for edge in graph.get("edges", []):
        hidden, found = _hide_quoted(unescape(edge["label"]))
        _, op, parts = _condition("x " + hidden, found)
        if op in ("=", "in"):
            seen.update(parts)
    assert seen == values


def test_pmml_parses_and_scores_with_every_name(trained):
    table, model, marker = trained
    root = ET.fromstring(to_pmml(model.tree_))
    fields = root.findall(f"{P}DataDictionary/{P}DataField")
    assert [f.get("name") for f in fields] == [*table.attributes, table.target]
    for f in fields[:-1]:
        if table.kinds[f.get("name")] == "nominal":
            assert [v.get("value") for v in f.findall(f"{P}Value")] == list(
                table.frame[f.get("name")].cat.categories
            )
    assert [v.get("value") for v in fields[-1].findall(f"{P}Value")] == list(model.classes_)
    top = root.find(f"{P}TreeModel/{P}Node")
    rows = table.frame[table.attributes].to_dict("records")
    got = np.array([score(top, r, False) for r in rows])
    np.testing.assert_allclose(got, model.predict_proba(table), atol=1e-12)
    assert not marker.exists()


@pytest.mark.parametrize("fmt", ["text", "markdown"])
def test_rules_read_back_unambiguously(trained, fmt):
    table, model, _ = trained
    data = encode(table)
    rules = to_rules(model.tree_, data)
    simple = simplify_rules(model.tree_, rules, data)
    for chosen in (rules, simple):
        text = rules_text(model.tree_, chosen, fmt)
        lines = text.splitlines()
        if fmt == "markdown":
            assert lines[:2] == ["| # | rule | correct / covered |", "| --- | --- | --- |"]
            cells = [re.split(r"(?<!\\)\|", line) for line in lines[2:]]
            assert all(len(c) == 5 for c in cells)  # no bar inside a name ended a cell
            assert not any(re.search(r"(?<!\\)<[A-Za-z/]", c[2]) for c in cells)  # no HTML opened
            lines = [re.sub(r"\\(.)", r"\1", c[2].strip()) for c in cells]
        assert len(lines) == len(chosen)
        for line, rule in zip(lines, chosen, strict=True):
            conditions, target, label = _parse_rule(line)
            assert target == table.target and label == rule.prediction
            assert len(conditions) == len(rule.conditions)
            _check_conditions(conditions, table)


def test_weka_style_text_reads_back(trained):
    table, model, _ = trained
    text = to_text(model.tree_)
    lines = text.splitlines()
    leaves = 0
    for line in lines:
        hidden, found = _hide_quoted(line.replace("|   ", "").lstrip())
        if ": " in hidden:
            hidden, leaf = hidden.split(": ")
            label = _names_in(leaf.rsplit(" (", 1)[0], found)
            assert label in model.classes_
            leaves += 1
        if hidden:
            _check_conditions([_condition(hidden, found)], table)
    assert leaves == model.tree_.n_leaves or model.tree_.root.is_leaf


def test_model_json_round_trips_every_name(trained, tmp_path):
    table, model, marker = trained
    path = tmp_path / "m.json"
    save_model(model.tree_, model.settings_, path)
    tree, _ = load_model(path)
    assert tree.schema == model.tree_.schema
    assert not marker.exists()


def test_interactive_page_carries_every_name_as_data(trained):
    from engine.export.html_page import to_html
    from tests.engine.export.test_html_page import embedded

    table, model, marker = trained
    page = to_html(model.tree_, model.settings_.algorithm)
    assert page.count("<script") == 2 and page.lower().count("</script") == 2
    m = embedded(page)
    assert m["target"] == model.tree_.schema.target and m["classes"] == list(CLASSES)
    assert [a["name"] for a in m["attributes"]] == [a.name for a in model.tree_.schema.attributes]
    names, values = _used(model.tree_)
    assert names <= {a["name"] for a in m["attributes"]}
    assert values <= {c for a in m["attributes"] for c in a["categories"]}
    assert not marker.exists()


def test_svg_figure_reads_back_every_name(trained):
    from engine.export.svg_tree import plot

    table, model, marker = trained
    svg = plot(model, max_depth=None, labels="n,counts,bar").svg
    texts = {t.text for t in ET.fromstring(svg).iter("{http://www.w3.org/2000/svg}text")}
    assert set(CLASSES) <= texts  # the legend names every class as it is
    names, _ = _used(model.tree_)
    assert {shown(n) for n in names} <= texts  # split headlines, as the canvas writes them
    assert not marker.exists()


@pytest.mark.parametrize("dialect", ["sqlite", "duckdb"])
def test_sql_runs_with_every_name_and_scores_as_predict(trained, dialect):
    from engine.export.sql import to_sql
    from tests.engine.export.test_sql import RUNNERS, rows_for_sql

    table, model, marker = trained
    columns = [*table.attributes, table.target]
    frame = rows_for_sql(table, columns, 0.2)
    query = to_sql(model.tree_, dialect, algorithm=model.settings_.algorithm)
    names, rows = RUNNERS[dialect](query, frame, table.kinds)
    labels = list(model.classes_)
    assert names == [*columns, *(f"P({c})" for c in labels), f"predicted {table.target}"]
    expected = prediction_frame(model.tree_, frame, True, model.settings_.algorithm)
    got = np.array([row[len(columns) : -1] for row in rows], dtype=float)
    np.testing.assert_array_equal(got, expected[[f"P({c})" for c in labels]].to_numpy(float))
    assert [row[-1] for row in rows] == expected[f"predicted {table.target}"].tolist()
    assert not marker.exists()


def test_onnx_holds_every_name(trained):
    onnxruntime = pytest.importorskip("onnxruntime")
    from engine.export.onnx_model import onnx_bytes, to_onnx

    table, model, marker = trained
    onnx_model = to_onnx(model.tree_)
    props = {p.key: p.value for p in onnx_model.metadata_props}
    inputs = json.loads(props["arbor.inputs"])
    assert [i["name"] for i in inputs] == table.attributes
    for i in inputs:
        if i["kind"] == "nominal":
            assert i["categories"] == list(table.frame[i["name"]].cat.categories)
    assert props["arbor.target"] == table.target
    session = onnxruntime.InferenceSession(
        onnx_bytes(model.tree_), providers=["CPUExecutionProvider"]
    )
    label, proba = session.run(None, {"input": np.ascontiguousarray(encode(table).X)})
    assert label.tolist() == model.predict(table).tolist()
    np.testing.assert_allclose(proba, model.predict_proba(table), rtol=1e-6, atol=1e-7)
    assert not marker.exists()


def test_pmml_refuses_what_xml_cannot_hold():
    from engine.errors import ArborError

    frame = pd.DataFrame({"a": ["bell\x07", "b"] * 4, "y": ["p", "q"] * 4})
    tree = DecisionTree(algorithm="id3").fit(frame).tree_
    with pytest.raises(ArborError, match="U\\+0007"):
        to_pmml(tree)
