"""ID3, C4.5 and CART side by side: the first divergence of each pair on the bundled samples,
with the scores there checked by hand (seed 000's weather numbers among them)."""

import numpy as np
import pandas as pd
import pytest

from engine.data.encoding import encode
from engine.data.samples import load_sample
from engine.data.table import make_table
from engine.evaluate.side_by_side import (
    PRUNED,
    as_dict,
    as_text,
    compare,
    depth_note,
    settings_for,
    unavailable,
)
from engine.evaluate.tree_match import ATTRIBUTE, SHAPE, corresponding, structural_changes


@pytest.fixture(scope="module")
def weather():
    return compare(encode(load_sample("weather")), {})


@pytest.fixture(scope="module")
def lenses():
    return compare(encode(load_sample("contact-lenses")), {})


def _scores(divergence, algorithm):
    return {r.attribute: round(r.score, 4) for r in divergence.rankings[algorithm]}


def test_weather_id3_and_c45_agree_and_cart_parts_at_the_root(weather):
    assert weather.divergence("id3", "c45").parting is None
    d = weather.divergence("id3", "cart")
    assert (d.parting.first, d.parting.second, d.parting.kind, d.rule) == (0, 0, SHAPE, ())
    assert d.splits == {
        "id3": "outlook: sunny | overcast | rainy",
        "cart": "outlook: {sunny, rainy} | overcast",
    }
    # Information gain at the root (seed 000): 0.247, 0.152, 0.048, 0.029.
    assert _scores(d, "id3") == {
        "outlook": 0.2467,
        "humidity": 0.1518,
        "windy": 0.0481,
        "temperature": 0.0292,
    }
    # Gini 0.4592 at the root; {sunny, rainy} holds 5 yes and 5 no (0.5), overcast is pure:
    # 0.4592 - 10/14 * 0.5 = 0.1020.
    assert _scores(d, "cart")["outlook"] == 0.102
    assert [r.attribute for r in d.rankings["cart"]][:2] == ["outlook", "humidity"]


def test_weather_c45_ranks_by_gain_ratio_with_the_average_gain_rule(weather):
    d = weather.divergence("c45", "cart")
    ranked = d.rankings["c45"]
    assert [(r.attribute, round(r.score, 4), r.above_average) for r in ranked] == [
        ("outlook", 0.1564, True),  # 0.247 / 1.577
        ("humidity", 0.1518, True),  # 0.152 / 1
        ("windy", 0.0488, False),
        ("temperature", 0.0188, False),
    ]
    assert ranked[0].chosen


def test_contact_lenses_part_below_astigmatism(lenses):
    d = lenses.divergence("id3", "cart")
    assert d.rule == ("tear-prod-rate = normal", "astigmatism = no")
    assert d.parting.kind == SHAPE
    # 5 soft and 1 none: entropy 0.650; age leaves only presbyopic mixed (1 and 1): 0.650 - 2/6.
    assert _scores(d, "id3")["age"] == 0.3167
    # Gini 10/36; {young, pre-presbyopic} pure, presbyopic 0.5 on 2 of 6: 10/36 - 1/6.
    assert _scores(d, "cart")["age"] == 0.1111
    assert not {r.attribute: r.admissible for r in d.rankings["id3"]}["astigmatism"]


def test_iris_has_no_id3_and_c45_and_cart_part_at_the_root_on_a_tie():
    result = compare(encode(load_sample("iris")), {})
    assert "numeric" in result.by_name("id3").reason
    d = result.divergence("c45", "cart")
    assert d.parting.kind == ATTRIBUTE
    assert d.splits == {"c45": "petalwidth <= 0.6", "cart": "petallength <= 2.45"}
    # Both cut setosa off: Gini 2/3 - 100/150 * 1/2 = 1/3 each, the first attribute wins.
    assert _scores(d, "cart")["petallength"] == _scores(d, "cart")["petalwidth"] == 0.3333
    # C4.5: (log2 3 - 2/3 - log2(21 cuts)/150) / H(1/3, 2/3) for petalwidth.
    assert _scores(d, "c45")["petalwidth"] == 0.9686
    assert result.by_name("c45").removed  # pessimistic pruning cut something


def test_pruning_removed_is_listed_and_json_has_every_pair(lenses):
    cart = lenses.by_name("cart")
    assert [(c.kind, c.nodes_before, c.nodes_after) for c in cart.removed] == [
        ("removed", 5, 1),
        ("removed", 5, 1),
    ]
    out = as_dict(lenses)
    greedy = [p for p in out["pairs"] if "optimal" not in (p["first"], p["second"])]
    assert [(p["first"], p["second"], p["stage"]) for p in greedy] == [
        ("id3", "c45", "grown"),
        ("id3", "cart", "grown"),
        ("c45", "cart", "grown"),
        ("id3", "c45", "pruned"),
        ("id3", "cart", "pruned"),
        ("c45", "cart", "pruned"),
    ]
    assert len(out["pairs"]) == 12  # and each greedy one beside the optimal tree
    first = greedy[1]["divergence"]
    assert first["node"] == {"id3": 3, "cart": 3}  # root, reduced leaf, normal, no
    assert first["rankings"]["id3"]["measure"] == "information gain"
    assert out["algorithms"][2]["pruning_removed"][0]["rule"] == [
        "tear-prod-rate = normal",
        "astigmatism = no",
    ]
    assert "first part at tear-prod-rate = normal AND astigmatism = no" in as_text(lenses)
    assert "pruned" in as_text(lenses, PRUNED)


def test_options_apply_where_they_may():
    s = settings_for("c45", {"algorithm": "cart", "max_depth": 2, "criterion": "entropy"})
    assert (s.criterion, s.max_depth, s.prune) == ("gain_ratio", 2, "pessimistic")
    own = settings_for("cart", {"algorithm": "cart", "criterion": "entropy"})
    assert own.criterion == "entropy"


def test_corresponding_path_and_structural_changes(weather):
    id3, cart = weather.by_name("id3").grown, weather.by_name("cart").grown
    assert corresponding(id3, 3, id3) == ([0, 1, 3], True)
    assert corresponding(id3, 3, cart) == ([0], False)
    assert [c.kind for c in structural_changes(id3, cart)] == ["changed"]


def test_the_optimal_tree_joins_at_a_capped_depth_and_says_so(lenses):
    optimal, cart = lenses.by_name("optimal"), lenses.by_name("cart")
    assert optimal.settings.max_depth == 3 and optimal.grown.depth <= 3
    assert optimal.note == "depth 3, the optimal tree's default (no max depth chosen)"
    # No tree of depth 3 misclassifies less: CART held to that depth does no better.
    shallow = compare(lenses.data, {"max_depth": 3}, algorithms=("cart", "optimal"))

    def errors(tree):
        return sum(
            float(n.distribution.sum() - n.distribution.max()) for n in tree.nodes() if n.is_leaf
        )

    assert errors(optimal.grown) <= errors(shallow.by_name("cart").grown)
    assert "Optimal (misclassification decrease, no pruning)" in as_text(lenses)
    deep = settings_for("optimal", {"algorithm": "c45", "max_depth": 7, "criterion": "gain_ratio"})
    assert (deep.max_depth, deep.criterion) == (4, "misclassification")
    assert depth_note(deep, {"max_depth": 7}) == "depth 4: your max depth 7 capped at 4"
    assert as_dict(lenses)["algorithms"][3]["max_depth"] == 3
    assert cart.settings.max_depth is None  # the greedy trees keep no cap


def test_the_optimal_tree_is_not_grown_for_regression_or_a_big_search():
    frame = pd.DataFrame({"x": np.arange(40.0), "y": np.arange(40.0) ** 2})
    result = compare(encode(make_table(frame), "regression"), {"task": "regression"})
    assert result.by_name("optimal").reason == "Optimal only classifies"
    iris = encode(load_sample("iris"))
    big = settings_for("optimal", {"max_depth": 4, "max_bins": 255, "splitter": "exact"})
    assert "would search 150 rows" in unavailable(iris, big)
