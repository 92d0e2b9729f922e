"""How surprising a split is if the attribute told nothing about the class: chi-squared and
G (likelihood-ratio) tests of a split's branch-by-class table, with p-values corrected for
the choice among the attribute's possible splits (CHAID's Bonferroni multiplier).

Information gain grows with the number of branches even for an attribute unrelated to the
class; a test's degrees of freedom grow with them too, so its p-value does not reward many
branches. The distribution tails are worked out here (no scipy in the engine): the
regularized incomplete gamma function for chi-squared, the regularized incomplete beta
function for Student's t.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

#: The correction rule, in words (the inspector's tooltip and ``explain``'s notes).
BONFERRONI_RULE = (
    "p adjusted (Bonferroni, as CHAID): the p-value times the number of splits the attribute "
    "could have made here, capped at 1: for a numeric attribute, its candidate thresholds "
    "(distinct values - 1); for categories grouped into r branches, the ways to group the c "
    "categories present into r non-empty groups (Stirling number S(c, r): 2^(c-1) - 1 for a "
    "binary subset split, 1 for one branch per category)"
)

_EPS, _TINY, _ITERATIONS = 1e-15, 1e-300, 500


def _lower_gamma_series(a: float, x: float) -> float:
    """P(a, x) by its power series (converges fast for x < a + 1)."""
    term = total = 1.0 / a
    n = a
    for _ in range(_ITERATIONS):
        n += 1.0
        term *= x / n
        total += term
        if abs(term) < abs(total) * _EPS:
            break
    return total * math.exp(-x + a * math.log(x) - math.lgamma(a))


def _upper_gamma_fraction(a: float, x: float) -> float:
    """Q(a, x) by its continued fraction, evaluated with the modified Lentz method."""
    b = x + 1.0 - a
    c, d = 1.0 / _TINY, 1.0 / b
    h = d
    for i in range(1, _ITERATIONS):
        an = -i * (i - a)
        b += 2.0
        d = an * d + b
        d = _TINY if abs(d) < _TINY else d
        c = b + an / c
        c = _TINY if abs(c) < _TINY else c
        d = 1.0 / d
        step = d * c
        h *= step
        if abs(step - 1.0) < _EPS:
            break
    return h * math.exp(-x + a * math.log(x) - math.lgamma(a))


def chi2_sf(statistic: float, df: int) -> float:
    """P(X >= statistic) for X chi-squared with ``df`` degrees of freedom.

    Examples
    --------
    >>> round(chi2_sf(3.841458820694124, 1), 6)
    0.05
    """
    if df <= 0:
        return float("nan")
    if not statistic > 0:
        return 1.0
    a, x = df / 2.0, statistic / 2.0
    if x < a + 1.0:
        return max(0.0, 1.0 - _lower_gamma_series(a, x))
    return _upper_gamma_fraction(a, x)


def _beta_fraction(a: float, b: float, x: float) -> float:
    """The continued fraction of the incomplete beta function (modified Lentz)."""
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c, d = 1.0, 1.0 - qab * x / qap
    d = 1.0 / (_TINY if abs(d) < _TINY else d)
    h = d
    for m in range(1, _ITERATIONS):
        m2 = 2 * m
        for an in (
            m * (b - m) * x / ((qam + m2) * (a + m2)),
            -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2)),
        ):
            d = 1.0 + an * d
            d = 1.0 / (_TINY if abs(d) < _TINY else d)
            c = 1.0 + an / c
            c = _TINY if abs(c) < _TINY else c
            step = d * c
            h *= step
        if abs(step - 1.0) < _EPS:
            break
    return h


def incomplete_beta(a: float, b: float, x: float) -> float:
    """The regularized incomplete beta function I_x(a, b)."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    front = math.exp(
        math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x)
    )
    # The fraction converges quickly on the side of the mean; the other side by symmetry.
    if x < (a + 1.0) / (a + b + 2.0):
        return front * _beta_fraction(a, b, x) / a
    return 1.0 - front * _beta_fraction(b, a, 1.0 - x) / b


def t_two_sided(statistic: float, df: float) -> float:
    """P(|T| >= |statistic|) for T Student's t with ``df`` degrees of freedom.

    Examples
    --------
    >>> round(t_two_sided(2.262157162740992, 9), 6)
    0.05
    """
    if math.isnan(statistic) or df <= 0:
        return float("nan")
    if math.isinf(statistic):
        return 0.0
    return incomplete_beta(df / 2.0, 0.5, df / (df + statistic * statistic))


def stirling2(n: int, k: int) -> int:
    """Ways to group ``n`` labelled things into ``k`` non-empty unlabelled groups.

    Examples
    --------
    >>> stirling2(3, 2), stirling2(4, 2), stirling2(5, 5)
    (3, 7, 1)
    """
    if k <= 0 or k > n:
        return int(n == k == 0)
    row = [1] + [0] * k  # S(0, j)
    for i in range(1, n + 1):
        for j in range(min(i, k), 0, -1):
            row[j] = j * row[j] + row[j - 1]
        row[0] = 0
    return row[k]


@dataclass(frozen=True)
class SplitTest:
    """The tests of one split's table: chi-squared and G with their degrees of freedom and
    p-values, and the Bonferroni ``multiplier`` behind the adjusted ones."""

    chi2: float
    g: float
    df: int
    p_chi2: float
    p_g: float
    multiplier: int
    p_chi2_adjusted: float
    p_g_adjusted: float


def split_test(counts: np.ndarray, multiplier: int = 1) -> SplitTest:
    """Chi-squared and G of a branch-by-class table of (weighted) counts against independence.

    Empty branches and classes absent from the node are left out (they add no freedom).

    Examples
    --------
    >>> t = split_test(np.array([[2.0, 3.0], [4.0, 0.0], [3.0, 2.0]]))  # weather: outlook, play
    >>> round(t.chi2, 4), t.df, round(t.p_chi2, 4)
    (3.5467, 2, 0.1698)
    """
    counts = np.asarray(counts, dtype=np.float64)
    counts = counts[counts.sum(axis=1) > 0][:, counts.sum(axis=0) > 0]
    total = counts.sum()
    df = (counts.shape[0] - 1) * (counts.shape[1] - 1) if counts.size else 0
    if df <= 0 or total <= 0:
        nan = float("nan")
        return SplitTest(0.0, 0.0, 0, nan, nan, multiplier, nan, nan)
    expected = np.outer(counts.sum(axis=1), counts.sum(axis=0)) / total
    chi2 = float(((counts - expected) ** 2 / expected).sum())
    seen = counts > 0
    g = float(2.0 * (counts[seen] * np.log(counts[seen] / expected[seen])).sum())
    p_chi2, p_g = chi2_sf(chi2, df), chi2_sf(g, df)
    return SplitTest(
        chi2,
        g,
        df,
        p_chi2,
        p_g,
        multiplier,
        min(1.0, p_chi2 * multiplier),
        min(1.0, p_g * multiplier),
    )


def bonferroni_multiplier(nominal: bool, n_values: int, n_branches: int) -> int:
    """The number of splits an attribute with ``n_values`` distinct values (categories present,
    or numbers) at a node could have made with ``n_branches`` branches: CHAID's multiplier."""
    if n_values < 2:
        return 1
    if nominal:
        return max(1, stirling2(n_values, min(n_branches, n_values)))
    return n_values - 1
