"""The attribute table and the 0-R / 1-R baselines, against the seeds' hand computations."""

import pytest

from engine.data.encoding import encode
from engine.estimator import DecisionTree
from engine.evaluate.baseline import baselines
from engine.learn.explain import attribute_table, node_rows
from engine.settings import resolve

WEATHER_ROOT = {  # name: (info gain, split info, gain ratio), seed 000 to 3 decimals
    "outlook": (0.247, 1.577, 0.156),
    "temperature": (0.029, 1.557, 0.019),
    "humidity": (0.152, 1.000, 0.152),
    "windy": (0.048, 0.985, 0.049),
}


@pytest.mark.parametrize("algorithm", ["id3", "c45"])
def test_weather_root_table(weather, algorithm):
    rows = attribute_table(encode(weather), resolve(algorithm=algorithm))
    got = {
        r.name: (round(r.info_gain, 3), round(r.split_info, 3), round(r.gain_ratio, 3))
        for r in rows
    }
    assert got == WEATHER_ROOT
    assert all(round(r.entropy_before, 3) == 0.940 for r in rows)
    assert [r.name for r in rows if r.chosen] == ["outlook"]


def test_restaurant_root_table(restaurant):
    rows = {r.name: r for r in attribute_table(encode(restaurant), resolve(algorithm="id3"))}
    assert round(rows["Pat"].info_gain, 3) == 0.541
    assert rows["Type"].info_gain == pytest.approx(0.0, abs=1e-12)
    assert rows["Pat"].chosen


def test_table_at_a_node_uses_the_rows_that_reach_it(weather):
    model = DecisionTree(algorithm="id3").fit(weather)
    data = encode(weather)
    sunny = model.tree_.root.children[0]
    rows, weights = node_rows(model.tree_, data, sunny.id, model.settings_)
    assert len(rows) == 5 and weights.sum() == 5
    table = {r.name: r for r in attribute_table(data, model.settings_, rows, weights)}
    assert round(table["humidity"].entropy_before, 3) == 0.971
    assert round(table["humidity"].info_gain, 3) == 0.971
    assert table["humidity"].chosen
    assert table["outlook"].info_gain == pytest.approx(0.0)


def test_gini_gain_in_the_table(weather):
    rows = {r.name: r for r in attribute_table(encode(weather), resolve(algorithm="cart"))}
    # CART's best binary outlook split: {overcast} vs {sunny, rainy}: 0.459 - 10/14 * 0.5
    assert rows["outlook"].gini_gain == pytest.approx(0.4592 - 10 / 14 * 0.5, abs=1e-4)


def test_weather_baselines(weather):
    b = baselines(encode(weather))
    assert (b.zero_r_class, b.zero_r_errors, b.n) == ("yes", 5, 14)
    # outlook and humidity both make 4 errors: the tie goes to outlook, which comes first.
    assert (b.one_r_attribute, b.one_r_errors) == ("outlook", 4)
    assert dict(b.one_r_rules) == {"sunny": "no", "overcast": "yes", "rainy": "yes"}
    assert dict(b.errors_by_attribute) == {
        "outlook": 4,
        "temperature": 5,
        "humidity": 4,
        "windy": 5,
    }


def test_restaurant_baselines(restaurant):
    b = baselines(encode(restaurant))
    assert (b.zero_r_errors, b.one_r_attribute, b.one_r_errors) == (6, "Pat", 2)
