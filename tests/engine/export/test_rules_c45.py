"""The simplified rule set follows C4.5rules (Quinlan 1993, ch. 5): rules generalised by the
pessimistic error, grouped by class, classes ordered by false positives, the default class
from the uncovered rows, and counts of what each rule fires on."""

from pathlib import Path

import numpy as np
import pytest

from engine.data.encoding import encode
from engine.data.io import read_table
from engine.data.samples import load_sample, sample_names
from engine.errors import ArborError
from engine.estimator import DecisionTree
from engine.export.files import export
from engine.export.rule_set import (
    accuracy_note,
    rule_predictions,
    rules_accuracy,
    rules_text,
    simplify_rules,
    to_rules,
)
from engine.predict import predict_proba

WEKA = Path("/usr/share/doc/weka/examples")

WEATHER_SIMPLIFIED = """\
IF outlook = sunny AND humidity = high THEN play = no  (3/3)
IF outlook = rainy AND windy = TRUE THEN play = no  (2/2)
IF humidity = normal THEN play = yes  (6/6)
IF outlook = overcast THEN play = yes  (2/2)
OTHERWISE play = yes  (1/1)
"""


def _simplified(table, algorithm="c45"):
    model = DecisionTree(algorithm=algorithm).fit(table)
    data = encode(table)
    return model.tree_, data, simplify_rules(model.tree_, to_rules(model.tree_, data), data)


def test_weather_id3_rules_classify_every_row_as_the_tree_does(weather):
    tree, data, simple = _simplified(weather, "id3")
    # "humidity = normal -> yes" covers rainy/cool/normal/TRUE (a "no"): the "no" rules, with no
    # false positives, come first, so that row is caught by "outlook = rainy AND windy = TRUE".
    assert rules_text(tree, simple) == WEATHER_SIMPLIFIED
    by_tree = np.argmax(predict_proba(tree, data.X), axis=1)
    assert np.array_equal(rule_predictions(tree, simple, data.X), by_tree)
    assert rules_accuracy(tree, simple, data) == 1.0
    assert accuracy_note(tree, simple, data) == (
        "Training accuracy: these rules 14/14 (100.0%), the tree 14/14 (100.0%)"
    )


def test_generalising_takes_the_lowest_pessimistic_rate_while_it_does_not_rise(weather):
    # sunny AND normal -> yes covers 2 rows (bound 0.5); normal alone covers 7 with 1 wrong
    # (C4.5's bound 0.339), outlook = sunny alone 5 with 3 wrong: humidity stays.
    tree, data, simple = _simplified(weather, "id3")
    assert [r for r in simple if r.prediction == "yes"][0].conditions[0].attribute == 2


def _check_rule_set(tree, data, simple):
    """Counts are first-firing rows; classes come in order of their false positives."""
    assert simple[-1].conditions == ()
    predictions = rule_predictions(tree, simple, data.X)
    fired = np.full(data.n_rows, -1)
    for i, rule in enumerate(simple):
        fires = fired < 0
        for c in rule.conditions:
            fires &= c.holds(data.X)
        fired[fires] = i
        k = tree.classes.index(rule.prediction)
        assert rule.covered == pytest.approx(data.weight[fires].sum())
        assert rule.correct == pytest.approx(data.weight[fires & (data.y == k)].sum())
    assert sum(r.covered for r in simple) == pytest.approx(data.weight.sum())
    classes = [tree.classes.index(r.prediction) for r in simple[:-1]]
    assert classes == sorted(classes, key=classes.index)  # grouped: a class's rules together
    false_positives = []
    for k in dict.fromkeys(classes):
        covers = np.zeros(data.n_rows, dtype=bool)
        for r in simple[:-1]:
            if tree.classes.index(r.prediction) == k:
                covers |= np.logical_and.reduce([c.holds(data.X) for c in r.conditions])
        false_positives.append(data.weight[covers & (data.y != k)].sum())
    assert false_positives == sorted(false_positives)
    return predictions


@pytest.mark.parametrize("name", sample_names())
@pytest.mark.parametrize("algorithm", ["id3", "c45", "cart"])
def test_bundled_samples_report_the_rules_accuracy_beside_the_trees(name, algorithm, tmp_path):
    table = load_sample(name)
    try:
        model = DecisionTree(algorithm=algorithm).fit(table)
    except ArborError:
        pytest.skip("ID3 takes nominal attributes only")
    data = encode(table)
    simple = simplify_rules(model.tree_, to_rules(model.tree_, data), data)
    predictions = _check_rule_set(model.tree_, data, simple)
    out = tmp_path / "rules.txt"
    export("rules", model, table, out)
    w = data.weight
    tree_right = w[model.predict(table) == np.array(model.tree_.classes)[data.y]].sum()
    rules_right = w[predictions == data.y].sum()
    last = out.read_text().splitlines()[-1]
    assert last.startswith(f"Training accuracy: these rules {rules_right:g}/{w.sum():g} ")
    assert f"the tree {tree_right:g}/{w.sum():g} ({100 * tree_right / w.sum():.1f}%)" in last


@pytest.mark.skipif(not WEKA.exists(), reason="Weka's example sets are not installed")
@pytest.mark.parametrize(
    "path", sorted(WEKA.glob("*.arff")) if WEKA.exists() else [], ids=lambda p: p.stem
)
def test_weka_example_sets(path):
    table = read_table(path)
    if table.kinds[table.target] != "nominal":
        pytest.skip("a numeric class: regression rules are the tree's leaves")
    tree, data, simple = _simplified(table)
    _check_rule_set(tree, data, simple)
    note = accuracy_note(tree, simple, data)
    assert note.startswith("Training accuracy: these rules ") and ", the tree " in note
