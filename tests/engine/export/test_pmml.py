"""PMML 4.4 export: valid against the schema, and scored as Arbor scores, missing values included.

``score`` below reads the document, not the tree: it follows the PMML text for
TreeModel (first true child; with an unknown predicate, ``weightedConfidence``
applied recursively, siblings weighted by their ``recordCount`` shares;
``returnLastPrediction`` when no child is true), so it checks what another
program would compute from the file.
"""

from __future__ import annotations

import math
from pathlib import Path
from xml.etree import ElementTree as ET

import numpy as np
import pandas as pd
import pytest

from engine.data.samples import load_sample
from engine.estimator import DecisionTree
from engine.export.pmml import NS, to_pmml

SCHEMA = Path(__file__).parents[2] / "fixtures" / "pmml" / "pmml-4-4.xsd"
P = f"{{{NS}}}"
PREDICATES = {"True", "False", "SimplePredicate", "SimpleSetPredicate", "CompoundPredicate"}

CASES = [
    ("weather", "id3"),
    ("weather", "c45"),
    ("weather-numeric", "c45"),
    ("weather-numeric", "cart"),
    ("restaurant", "cart"),
    ("restaurant", "c45"),
    ("contact-lenses", "c45"),
    ("toys", "c45"),
    ("iris", "c45"),
    ("iris", "cart"),
]


def _with_holes(frame: pd.DataFrame, seed: int, share: float = 0.25) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return frame.mask(rng.random(frame.shape) < share)


def _predicate(element: ET.Element, row: dict):
    """True, False or None (unknown) for one instance."""
    tag = element.tag.removeprefix(P)
    if tag in ("True", "False"):
        return tag == "True"
    if tag == "CompoundPredicate" and element.get("booleanOperator") == "surrogate":
        verdicts = (_predicate(part, row) for part in element)  # the first one known
        return next((v for v in verdicts if v is not None), None)
    if tag == "CompoundPredicate":  # "or" of equalities: true if one is, unknown if none is known
        assert element.get("booleanOperator") == "or"
        verdicts = [_predicate(part, row) for part in element]
        return True if any(verdicts) else None if None in verdicts else False
    value = row.get(element.get("field"))
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return None
    if tag == "SimplePredicate":
        op, ref = element.get("operator"), element.get("value")
        if op == "equal":
            return str(value) == ref
        compare = {
            "lessOrEqual": float.__le__,
            "greaterThan": float.__gt__,
            "lessThan": float.__lt__,
            "greaterOrEqual": float.__ge__,
        }[op]
        return compare(float(value), float(ref))
    assert tag == "SimpleSetPredicate" and element.get("booleanOperator") == "isIn"
    members = [m.replace('\\"', '"') for m in _quoted(element.find(f"{P}Array").text)]
    return str(value) in members


def _quoted(text: str) -> list[str]:
    out, i = [], 0
    while (start := text.find('"', i)) >= 0:
        end = start + 1
        while text[end] != '"' or text[end - 1] == "\\":
            end += 1
        out.append(text[start + 1 : end])
        i = end + 1
    return out


def _own(node: ET.Element, regression: bool) -> np.ndarray:
    if regression:
        return np.array([float(node.get("score"))])
    return np.array([float(d.get("confidence")) for d in node.findall(f"{P}ScoreDistribution")])


def score(node: ET.Element, row: dict, regression: bool) -> np.ndarray:
    children = node.findall(f"{P}Node")
    unknown = []
    for child in children:
        verdict = _predicate(_predicate_of(child), row)
        if verdict:
            return score(child, row, regression)
        if verdict is None:
            unknown.append(child)
    counts = np.array([float(c.get("recordCount")) for c in unknown])
    if not unknown or counts.sum() <= 0:
        return _own(node, regression)
    return sum(
        w * score(c, row, regression) for w, c in zip(counts / counts.sum(), unknown, strict=True)
    )


def _predicate_of(node: ET.Element) -> ET.Element:
    found = [e for e in node if e.tag.removeprefix(P) in PREDICATES]
    assert len(found) == 1, "every Node has exactly one predicate"
    return found[0]


def _rows(frame: pd.DataFrame) -> list[dict]:
    return [
        {k: (None if pd.isna(v) else v) for k, v in r.items()} for r in frame.to_dict("records")
    ]


@pytest.fixture(scope="module")
def schema():
    xmlschema = pytest.importorskip("xmlschema")
    return xmlschema.XMLSchema(str(SCHEMA))


def _trained(sample: str, algorithm: str, holes: bool):
    table = load_sample(sample)
    frame = table.frame
    if holes:
        frame = frame.copy()
        frame[table.attributes] = _with_holes(frame[table.attributes], seed=1, share=0.15)
    return table, DecisionTree(algorithm=algorithm).fit(frame, target=table.target)


@pytest.mark.parametrize("holes", [False, True], ids=["complete", "trained-with-missing"])
@pytest.mark.parametrize(("sample", "algorithm"), CASES)
def test_pmml_is_valid_and_scores_like_arbor(sample, algorithm, holes, schema):
    table, model = _trained(sample, algorithm, holes)
    text = to_pmml(model.tree_)
    errors = [str(e).splitlines()[0] for e in schema.iter_errors(text)]
    assert errors == []
    root = ET.fromstring(text)
    tree_model = root.find(f"{P}TreeModel")
    assert tree_model.get("missingValueStrategy") == "weightedConfidence"
    nodes = tree_model.findall(f".//{P}Node")
    assert len(nodes) == model.tree_.n_nodes
    for node in nodes:
        assert float(node.get("recordCount")) >= 0
        conf = [float(d.get("confidence")) for d in node.findall(f"{P}ScoreDistribution")]
        assert math.isclose(sum(conf), 1.0, rel_tol=1e-9) and min(conf) >= 0
        assert node.get("score") == model.classes_[int(np.argmax(conf))]
    frame = pd.concat([table.frame[table.attributes]] * 4, ignore_index=True)
    probe = pd.concat([frame, _with_holes(frame, seed=7, share=0.3)], ignore_index=True)
    expected = model.predict_proba(probe)
    top = tree_model.find(f"{P}Node")
    got = np.array([score(top, row, False) for row in _rows(probe)])
    np.testing.assert_allclose(got, expected, rtol=0, atol=1e-12)


def test_regression_pmml_scores_like_arbor(schema):
    table = load_sample("weather-numeric")
    frame = table.frame.copy()
    model = DecisionTree(algorithm="cart", task="regression", min_samples_leaf=2).fit(
        frame, target="temperature"
    )
    text = to_pmml(model.tree_)
    assert [str(e) for e in schema.iter_errors(text)] == []
    top = ET.fromstring(text).find(f"{P}TreeModel/{P}Node")
    attributes = [c for c in frame.columns if c != "temperature"]
    probe = pd.concat(
        [frame[attributes], _with_holes(frame[attributes], seed=3, share=0.4)], ignore_index=True
    )
    got = np.array([score(top, row, True)[0] for row in _rows(probe)])
    np.testing.assert_allclose(got, model.predict(probe), rtol=0, atol=1e-12)


@pytest.mark.parametrize("missing", ["surrogate", "majority"])
def test_pmml_routes_whole_rows_by_surrogates_then_the_majority(missing, schema):
    """--missing surrogate / majority: each branch's predicate is PMML's ``surrogate``
    CompoundPredicate (the split, its surrogates, then True on the majority branch)."""
    frame = pd.read_csv(Path(__file__).parents[2] / "fixtures" / "rpart" / "nominal.csv")
    attributes = [c for c in frame.columns if c != "buys"]
    model = DecisionTree(algorithm="cart", prune="none", missing=missing).fit(frame, target="buys")
    text = to_pmml(model.tree_)
    assert [str(e).splitlines()[0] for e in schema.iter_errors(text)] == []
    assert ('booleanOperator="surrogate"' in text) and (
        ('operator="lessThan"' in text) == (missing == "surrogate")
    )
    probe = pd.concat(
        [frame[attributes], _with_holes(frame[attributes], seed=5, share=0.4)], ignore_index=True
    )
    top = ET.fromstring(text).find(f"{P}TreeModel/{P}Node")
    got = np.array([score(top, row, False) for row in _rows(probe)])
    np.testing.assert_allclose(got, model.predict_proba(probe), rtol=0, atol=1e-12)


def test_schema_catches_what_it_should(schema):
    text = to_pmml(DecisionTree(algorithm="cart").fit(load_sample("iris")).tree_)
    assert schema.is_valid(text)
    broken = [
        text.replace('functionName="classification"', 'functionName="classify"'),
        text.replace("<MiningSchema>", "<MiningSchema><Stray />", 1),
        text.replace("<ScoreDistribution value=", "<ScoreDistribution label=", 1),
        text.replace("</MiningSchema>", "</MiningSchema><Header />", 1),
    ]
    assert not any(schema.is_valid(b) for b in broken)


def test_pmml_structure():
    table = load_sample("iris")
    model = DecisionTree(algorithm="cart").fit(table)
    root = ET.fromstring(to_pmml(model.tree_))
    ns = {"p": NS}
    assert root.get("version") == "4.4"
    tm = root.find("p:TreeModel", ns)
    assert (
        tm.get("functionName") == "classification"
        and tm.get("splitCharacteristic") == "binarySplit"
    )
    assert [f.get("name") for f in root.findall("p:DataDictionary/p:DataField", ns)][-1] == "class"
    first = tm.find("p:Node/p:Node", ns)
    assert first.find("p:SimplePredicate", ns).get("operator") == "lessOrEqual"


def test_pmml_subset_predicate():
    model = DecisionTree(algorithm="cart").fit(load_sample("restaurant"))
    xml = to_pmml(model.tree_)
    assert "SimpleSetPredicate" in xml and 'booleanOperator="isIn"' in xml


def test_pmml_keeps_fractional_weights_in_full():
    table, model = _trained("weather-numeric", "c45", holes=True)
    root = ET.fromstring(to_pmml(model.tree_))
    counts = [float(n.get("recordCount")) for n in root.iter(f"{P}Node")]
    weights = [n.weight for n in model.tree_.nodes()]
    assert sorted(counts) == sorted(float(w) for w in weights)


@pytest.mark.parametrize(
    ("sample", "algorithm"),
    [
        ("iris", "cart"),
        ("iris", "c45"),
        ("weather", "id3"),
        ("weather-numeric", "c45"),
        ("restaurant", "cart"),
        ("contact-lenses", "c45"),
    ],
)
def test_pmml_scored_by_an_independent_evaluator(sample, algorithm, tmp_path):
    """pypmml (PMML4S) on complete rows. With missing values it is not comparable: it does
    not apply ``weightedConfidence`` recursively, and JPMML refuses the strategy outright."""
    pypmml = pytest.importorskip("pypmml")
    table = load_sample(sample)
    model = DecisionTree(algorithm=algorithm).fit(table)
    path = tmp_path / "m.pmml"
    path.write_text(to_pmml(model.tree_))
    try:
        scorer = pypmml.Model.fromFile(str(path))
    except Exception as err:  # noqa: BLE001 - a JVM that cannot start is an environment problem
        pytest.skip(f"the PMML evaluator could not start: {err}")
    ours = model.predict(table)
    for row, expected in zip(table.frame[table.attributes].to_dict("records"), ours, strict=True):
        row = {k: (v if isinstance(v, str) else float(v)) for k, v in row.items()}
        assert scorer.predict(row)[f"predicted_{table.target}"] == expected
