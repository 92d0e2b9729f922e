"""Exam mode's marking (issue 35): a pick is right when it is Arbor's attribute and, for a
numeric one, a cut that sends the node's rows the way Arbor's does."""

import numpy as np

from engine.data.encoding import encode
from engine.data.samples import load_sample
from engine.learn.exam import ask, hints, judge
from engine.settings import resolve


def _root_question(sample, algorithm, attribute=None, threshold=None):
    data = encode(load_sample(sample))
    rows = np.arange(data.n_rows)
    names = [a.name for a in data.schema.attributes]
    j = names.index(attribute)
    return ask(data, resolve(algorithm=algorithm), rows, data.weight, frozenset(), 0, j, threshold)


def test_weather_outlook_is_right_and_windy_wrong_with_both_scores_said():
    q = _root_question("weather", "id3", "outlook")
    assert judge(q, 0, None).right
    wrong = judge(q, 3, None)
    assert not wrong.right and not wrong.right_attribute
    # The seeds' numbers: windy gains 0.048, outlook 0.247.
    assert "windy scores 0.048 on information gain" in wrong.words and "(0.247)" in wrong.words


def test_a_typed_cut_is_judged_by_the_rows_it_sends_left():
    # weather-numeric's humidity: values 65 70 75 80 85 86 90 91 95 96 at the root.
    q = _root_question("weather-numeric", "c45", "humidity", 80.0)
    assert judge(q, 2, 80.0).right
    assert judge(q, 2, 84.9).right  # between 80 and 85: the same rows go left
    off = judge(q, 2, 85.0)
    assert not off.right and off.right_attribute and off.right_cut is False
    assert not judge(q, 2, None).right


def test_hints_first_say_what_to_compare_then_rank_two_attributes():
    first, second = hints(_root_question("weather", "id3", "outlook"))
    assert first.startswith("Compare the entropies of the children: this node has 14 rows")
    assert second == "On information gain, outlook ranks above temperature."


def test_a_numeric_attribute_is_ranked_after_c45s_mdl_charge():
    from engine.learn.split_curves import split_curve

    q = _root_question("weather-numeric", "c45", "outlook")
    data = encode(load_sample("weather-numeric"))
    curve = split_curve(data, resolve(algorithm="c45"), "temperature")
    charged = curve.values["mdl_gain_ratio"][curve.best]
    assert q.score(1) == charged < q.table[1].gain_ratio  # explain's ratio is before the charge
    assert f"temperature scores {charged:.3f} on gain ratio" in judge(q, 1, 83.0).words
