"""Split curves (issue 32, item 3): every candidate cut scored, the maximum equal to explain's figure."""

import json
import math
from pathlib import Path

import numpy as np
import pytest

from cli.main import main
from engine.data.arff import read_arff
from engine.data.encoding import encode
from engine.data.samples import load_sample
from engine.estimator import DecisionTree
from engine.learn.criteria import entropy, gini
from engine.learn.explain import attribute_table, node_rows, used_on_path
from engine.learn.split_curves import split_curve
from engine.settings import resolve

WEKA = Path(__file__).resolve().parents[2] / "fixtures" / "weka" / "data"
MEASURES = ("info_gain", "gain_ratio", "gini_gain")


def _table(name):
    return (
        load_sample(name)
        if (name in ("weather", "weather-numeric", "iris"))
        else read_arff(WEKA / name)
    )


def test_weather_numeric_temperature_cuts_by_hand():
    """The root of weather-numeric: C4.5 cuts between the distinct temperatures, each threshold
    at a training value. At 71 (midpoint 71.5): yes/no 4/2 below, 5/3 above, so the gain is
    0.940 - 0.939 = 0.001 bits, as in Witten and Frank's worked example; the best cut is 83
    (13 rows 9/4 below, one "no" above)."""
    data = encode(load_sample("weather-numeric"))
    curve = split_curve(data, resolve(algorithm="c45"), "temperature")
    assert curve.thresholds.tolist() == [64, 65, 68, 69, 70, 71, 72, 75, 80, 81, 83]
    at = curve.thresholds.tolist().index(71)
    mean = 6 / 14 * entropy([4, 2]) + 8 / 14 * entropy([5, 3])
    assert round(mean, 3) == 0.939
    assert curve.values["info_gain"][at] == pytest.approx(entropy([9, 5]) - mean, abs=1e-15)
    assert round(curve.values["info_gain"][at], 3) == 0.001
    assert curve.cut(curve.best) == 83.0
    gain83 = entropy([9, 5]) - 13 / 14 * entropy([9, 4])
    assert curve.values["info_gain"][curve.best] == pytest.approx(gain83, abs=1e-15)
    split83 = entropy([13, 1])
    assert curve.values["gain_ratio"][curve.best] == pytest.approx(gain83 / split83, abs=1e-15)
    gini83 = gini([9, 5]) - 13 / 14 * gini([9, 4])
    assert curve.values["gini_gain"][curve.best] == pytest.approx(gini83, abs=1e-15)
    # C4.5's MDL correction: log2(11 candidate cuts) / 14 rows off every cut's gain.
    penalty = math.log2(11) / 14
    np.testing.assert_allclose(
        curve.values["mdl_gain"], curve.values["info_gain"] - penalty, rtol=0, atol=1e-15
    )


def test_weather_numeric_sunny_humidity_is_the_chosen_cut():
    """Under outlook = sunny, C4.5 splits on humidity <= 75: both branches pure, gain 0.971."""
    table = load_sample("weather-numeric")
    model = DecisionTree(algorithm="c45").fit(table)
    data = encode(table)
    tree = model.tree_
    sunny = tree.root.children[0]
    rows, weights = node_rows(tree, data, sunny.id, model.settings_)
    curve = split_curve(data, model.settings_, "humidity", rows, weights, sunny.split)
    assert curve.cut(curve.chosen) == 75.0 and curve.chosen == curve.best
    assert round(curve.values["info_gain"][curve.best], 3) == round(entropy([2, 3]), 3) == 0.971


CASES = [
    ("weather", "id3"),
    ("weather", "c45"),
    ("weather", "cart"),
    ("weather-numeric", "c45"),
    ("weather-numeric", "cart"),
    ("iris", "c45"),
    ("iris", "cart"),
    ("credit-g.arff", "c45"),
    ("credit-g.arff", "cart"),
    ("synth-missing.arff", "c45"),
    ("synth-missing.arff", "cart"),
    ("soybean.arff", "cart"),
]


@pytest.mark.parametrize(("name", "algorithm"), CASES)
def test_curve_maximum_is_explains_figure(name, algorithm):
    """At every internal node of the grown tree (the first few), for every attribute: the curve
    at its best cut holds explain's figures to the bit, and no cut of the criterion's curve
    beats it by more than C4.5's tie tolerance (none at all for CART)."""
    table = _table(name)
    model = DecisionTree(algorithm=algorithm).fit(table)
    settings = model.settings_
    data = encode(table)
    tree = model.tree_
    internal = [n for n in tree.nodes() if n.split is not None][:4] if tree.n_nodes > 1 else []
    checked = 0
    for node in [tree.root, *internal[1:]]:
        rows, weights = node_rows(tree, data, node.id, settings)
        chosen = node.split.attribute if node.split is not None else -1
        rows_out = attribute_table(
            data, settings, rows, weights, chosen, used_on_path(tree, node.id)
        )
        for r in rows_out:
            curve = split_curve(data, settings, r.name, rows, weights, node.split)
            if curve.best is None:
                assert r.info_gain == 0.0 and r.split_info == 0.0
                continue
            for key in MEASURES:
                assert curve.values[key][curve.best] == getattr(r, key), (r.name, key)
            crit = curve.values[curve.criterion]
            slack = 1e-6 if not settings.binary else 0.0
            assert crit.max() <= crit[curve.best] + slack
            if r.chosen:
                assert curve.chosen == curve.best
            if not curve.nominal:
                assert r.threshold == curve.thresholds[curve.best]
            checked += 1
    assert checked > 0


def test_cart_subsets_try_every_grouping():
    """Three classes (exhaustive search): every split of k categories into two groups,
    2^(k-1) - 1 of them, each once."""
    table = load_sample("contact-lenses")
    data = encode(table)
    names = [a.name for a in data.schema.attributes]
    for name in names:
        curve = split_curve(data, resolve(algorithm="cart"), name)
        k = len(data.schema.attributes[names.index(name)].categories)
        assert len(curve) == 2 ** (k - 1) - 1
        assert len({g for g in curve.groupings}) == len(curve)


def test_unknown_attribute_is_refused():
    from engine.errors import ArborError

    with pytest.raises(ArborError, match="no attribute"):
        split_curve(encode(load_sample("iris")), resolve(algorithm="c45"), "nope")


def test_cli_curve_json_keys_and_numbers(capsys):
    code = main(
        ["explain", "--sample", "weather-numeric", "--node", "1", "--curve", "humidity", "--json"]
    )
    out, err = capsys.readouterr()
    assert code == 0, err
    result = json.loads(out)
    assert set(result) >= {
        "thresholds",
        "info_gain",
        "gain_ratio",
        "gini_gain",
        "mdl_gain",
        "chosen",
        "best",
        "criterion",
    }
    assert result["thresholds"] == [75.0, 86.0] and result["chosen"] == result["best"] == 75.0
    code = main(["explain", "--sample", "weather-numeric", "--node", "1", "--json"])
    table = json.loads(capsys.readouterr()[0])
    humidity = next(a for a in table["attributes"] if a["name"] == "humidity")
    for key in MEASURES:
        assert result[key][result["best_index"]] == humidity[key]
    assert max(result["info_gain"]) == humidity["info_gain"]


def test_cli_curve_text_table(capsys):
    code = main(["explain", "--sample", "iris", "--algorithm", "cart", "--curve", "petalwidth"])
    out = capsys.readouterr()[0]
    assert code == 0
    assert "gini gain" in out and "best" in out
    line = next(x for x in out.splitlines() if x.rstrip().endswith("best"))
    assert line.split()[0] == "0.8"
