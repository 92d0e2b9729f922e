"""Upper confidence bounds on a leaf's error rate, as C4.5 prunes with them (seed 001).

Given N instances at a leaf of which E are misclassified, the bound is the
largest error probability p under which seeing E or fewer errors still has
probability CF. ``exact_bound`` solves that binomial equation numerically
(fractional E and N through the regularised incomplete beta function);
``c45_extra_errors`` is the normal approximation C4.5 and Weka's J48 use.
"""

from __future__ import annotations

import math
from statistics import NormalDist


def c45_extra_errors(n: float, e: float, cf: float) -> float:
    """Errors to add to ``e`` observed errors in ``n`` instances (C4.5's approximation).

    Examples
    --------
    >>> round(c45_extra_errors(6, 0, 0.25), 3)  # 6 x 0.206
    1.238
    """
    if e < 1:
        base = n * (1 - cf ** (1 / n))
        return base if e == 0 else base + e * (c45_extra_errors(n, 1, cf) - base)
    if e + 0.5 >= n:
        return max(n - e, 0.0)
    z = NormalDist().inv_cdf(1 - cf)
    f = (e + 0.5) / n
    r = (f + z * z / (2 * n) + z * math.sqrt(f / n - f * f / n + z * z / (4 * n * n))) / (
        1 + z * z / n
    )
    return r * n - e


def _betacf(a: float, b: float, x: float) -> float:
    """Continued fraction for the incomplete beta function (modified Lentz)."""
    tiny = 1e-300
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c, d = 1.0, 1.0 - qab * x / qap
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 500):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        h *= d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < 1e-15:
            break
    return h


def regularized_beta(a: float, b: float, x: float) -> float:
    """I_x(a, b)."""
    if x <= 0:
        return 0.0
    if x >= 1:
        return 1.0
    log_front = (
        math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x)
    )
    if x < (a + 1) / (a + b + 2):
        return math.exp(log_front) * _betacf(a, b, x) / a
    return 1.0 - math.exp(log_front) * _betacf(b, a, 1 - x) / b


def binomial_cdf(e: float, n: float, p: float) -> float:
    """P(X <= e) for X ~ Bin(n, p), continuous in e and n."""
    if p <= 0:
        return 1.0
    if p >= 1:
        return 1.0 if e >= n else 0.0
    return regularized_beta(n - e, e + 1, 1 - p)


def exact_bound(n: float, e: float, cf: float) -> float:
    """Upper bound p with P(E or fewer errors | n, p) = cf, solved by bisection.

    Examples
    --------
    >>> round(exact_bound(16, 1, 0.25), 2), round(exact_bound(6, 0, 0.25), 3)
    (0.16, 0.206)
    """
    if n <= 0:
        return 0.0
    if e >= n:
        return 1.0
    if e <= 0:
        return 1 - cf ** (1 / n)
    lo, hi = e / n, 1.0
    for _ in range(100):
        mid = (lo + hi) / 2
        if binomial_cdf(e, n, mid) > cf:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def estimated_errors(n: float, e: float, cf: float, method: str = "c45") -> float:
    """Pessimistic error count for a leaf: n times the upper bound on its error rate."""
    if n <= 0:
        return 0.0
    if method == "exact":
        return n * exact_bound(n, e, cf)
    return e + c45_extra_errors(n, e, cf)
