"""Chi-squared and G of candidate splits (issue 33, item 5): the weather sample by hand, the
distribution tails against scipy, and CHAID's Bonferroni multipliers."""

from __future__ import annotations

import numpy as np
import pytest

from engine.data.encoding import encode
from engine.data.io import read_table
from engine.learn.explain import attribute_table
from engine.learn.significance import (
    bonferroni_multiplier,
    chi2_sf,
    split_test,
    stirling2,
    t_two_sided,
)
from engine.settings import resolve

WEATHER = "resources/datasets/weather.arff"

# outlook against play (yes, no): sunny 2/3, overcast 4/0, rainy 3/2.
OUTLOOK = np.array([[2.0, 3.0], [4.0, 0.0], [3.0, 2.0]])


def test_outlook_by_hand():
    # Expected counts: branch size x class share (9/14 yes, 5/14 no).
    e = np.outer([5, 4, 5], [9, 5]) / 14
    chi2 = ((OUTLOOK - e) ** 2 / e).sum()
    assert chi2 == pytest.approx(3.546667, abs=1e-6)
    g = 2 * sum(o * np.log(o / x) for o, x in zip(OUTLOOK.ravel(), e.ravel(), strict=True) if o)
    t = split_test(OUTLOOK)
    assert (t.chi2, t.g, t.df) == (pytest.approx(chi2), pytest.approx(g), 2)
    # Two degrees of freedom: the tail is exp(-x / 2).
    assert t.p_chi2 == pytest.approx(np.exp(-chi2 / 2))
    assert t.p_g == pytest.approx(np.exp(-g / 2))


def test_against_scipy():
    stats = pytest.importorskip("scipy.stats")
    for table in (OUTLOOK, np.array([[10.0, 2.0, 3.0], [1.0, 9.0, 4.0]]), np.eye(2) * 7 + 1):
        t = split_test(table)
        chi2, p, df, _ = stats.chi2_contingency(table, correction=False)
        g, p_g, _, _ = stats.chi2_contingency(table, correction=False, lambda_="log-likelihood")
        assert (t.chi2, t.p_chi2, t.df) == (pytest.approx(chi2), pytest.approx(p), df)
        assert (t.g, t.p_g) == (pytest.approx(g), pytest.approx(p_g))
    for x, k in [(0.5, 1), (10.0, 3), (100.0, 20), (0.01, 7), (30.0, 2)]:
        assert chi2_sf(x, k) == pytest.approx(stats.chi2.sf(x, k), rel=1e-9)
    for x, df in [(0.5, 1), (2.26, 9), (-5.0, 3), (1.2, 4.5), (40.0, 9)]:
        assert t_two_sided(x, df) == pytest.approx(2 * stats.t.sf(abs(x), df), rel=1e-9)


def test_recorded_tails():
    # Textbook critical values: 5% two-sided t with 9 df, 5% chi-squared with 1 and 3 df.
    assert t_two_sided(2.262157162740992, 9) == pytest.approx(0.05, abs=1e-9)
    assert chi2_sf(3.841458820694124, 1) == pytest.approx(0.05, abs=1e-9)
    assert chi2_sf(7.814727903251178, 3) == pytest.approx(0.05, abs=1e-9)


def test_bonferroni_multipliers():
    assert [stirling2(4, k) for k in range(1, 5)] == [1, 7, 6, 1]
    assert bonferroni_multiplier(True, 3, 3) == 1  # one branch per category
    assert bonferroni_multiplier(True, 5, 2) == 15  # a binary subset split: 2^4 - 1
    assert bonferroni_multiplier(False, 12, 2) == 11  # a threshold among 12 distinct values
    t = split_test(OUTLOOK, 3)
    assert t.p_chi2_adjusted == pytest.approx(3 * t.p_chi2)
    assert split_test(np.array([[5.0, 0.0], [0.0, 5.0]]), 10**6).p_chi2_adjusted == 1.0


def test_explain_rows_carry_the_tests():
    data = encode(read_table(WEATHER), "classification")
    rows = {r.name: r for r in attribute_table(data, resolve(algorithm="c45"))}
    assert rows["outlook"].test.chi2 == pytest.approx(3.546667, abs=1e-6)
    assert rows["outlook"].as_dict()["p_chi2_adjusted"] == pytest.approx(
        np.exp(-3.546667 / 2), rel=1e-5
    )
    cart = {r.name: r for r in attribute_table(data, resolve(algorithm="cart"))}
    # CART's outlook split is binary ({overcast} against the rest): 2^2 - 1 groupings of 3.
    assert cart["outlook"].test.multiplier == 3 and cart["outlook"].test.df == 1
