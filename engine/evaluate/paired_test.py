"""Is one run really better than another? The corrected resampled paired t-test.

Two runs cross-validated on the same folds give paired fold scores. Their differences are
not independent (the folds' training sets overlap), so the plain paired t-test finds
differences too often; Nadeau and Bengio's correction, which Weka's Experimenter uses,
multiplies the variance of the mean difference by (1/k + n_test/n_train) instead of 1/k,
for k folds with n_test rows held out of n_train + n_test.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from engine.learn.significance import t_two_sided

#: The level below which a p-value is read as evidence of a difference.
LEVEL = 0.05


@dataclass(frozen=True)
class PairedTest:
    """The test's figures, or ``refused`` (the reason, in words) when the runs cannot be paired."""

    refused: str | None = None
    mean_difference: float = float("nan")  # b minus a, per fold, in the score's units
    t: float = float("nan")
    df: int = 0
    p: float = float("nan")
    k: int = 0
    test_share: float = float("nan")  # n_test / n_train
    measure: str = "accuracy"
    higher_is_better: bool = True

    def sentence(self, a: str = "A", b: str = "B") -> str:
        """What the result means, in plain words."""
        if self.refused is not None:
            return f"No paired test: {self.refused}."
        if self.mean_difference == 0:
            return (
                f"{a} and {b} score the same on every fold on average; there is no "
                "difference to test."
            )
        b_better = (self.mean_difference > 0) == self.higher_is_better
        better, worse = (b, a) if b_better else (a, b)
        size = (
            f"{abs(100 * self.mean_difference):.2f} points of accuracy"
            if self.measure == "accuracy"
            else f"{abs(self.mean_difference):.4g} in RMSE"
        )
        head = (
            f"{better} beats {worse} by {size} on average over the {self.k} folds "
            f"(corrected t = {self.t:.3f}, {self.df} df, p = {self.p:.3g}). "
        )
        if self.p < LEVEL:
            return head + (
                f"A difference this large would arise by chance less than {LEVEL:.0%} of the "
                f"time if the two were equally good: evidence that {better} is better on data "
                "like this."
            )
        return head + (
            f"A difference this large would arise by chance {self.p:.0%} of the time if the "
            f"two were equally good: no evidence (at the {LEVEL:.0%} level) that either is "
            "better; the folds' scores vary too much."
        )


def corrected_t(
    scores_a, scores_b, test_share: float, higher_is_better: bool = True, measure="accuracy"
) -> PairedTest:
    """The corrected resampled t-test of paired scores (b minus a), with ``test_share`` =
    n_test / n_train.

    Examples
    --------
    >>> t = corrected_t([0.8, 0.7, 0.9], [0.9, 0.8, 0.9], 0.5)
    >>> round(t.t, 4), t.df
    (1.2649, 2)
    """
    d = np.asarray(scores_b, dtype=np.float64) - np.asarray(scores_a, dtype=np.float64)
    k = len(d)
    mean = float(d.mean())
    variance = float(d.var(ddof=1))
    scale = variance * (1.0 / k + test_share)
    if scale > 0:
        t = mean / math.sqrt(scale)
    else:  # every fold differs by the same amount: no spread to weigh it against
        t = 0.0 if mean == 0 else math.copysign(math.inf, mean)
    return PairedTest(
        None, mean, t, k - 1, t_two_sided(t, k - 1), k, test_share, measure, higher_is_better
    )


def same_folds_test(ev_a, ev_b, key_a: str, key_b: str, n_rows: int) -> PairedTest:
    """The paired test of two evaluations (with their data fingerprints), or why not: both
    must be cross-validation on the same data with the same folds, dealt from the same seed."""
    why = _why_not(ev_a, ev_b, key_a, key_b)
    if why is not None:
        return PairedTest(refused=why)
    k = len(ev_a.fold_scores)
    regression = ev_a.classes is None
    # Each fold holds out about n / k rows and trains on the rest.
    share = (n_rows / k) / (n_rows - n_rows / k) if n_rows > k else 1.0 / (k - 1)
    return corrected_t(
        ev_a.fold_scores,
        ev_b.fold_scores,
        share,
        higher_is_better=not regression,
        measure="RMSE" if regression else "accuracy",
    )


def _why_not(ev_a, ev_b, key_a: str, key_b: str) -> str | None:
    if ev_a is None or ev_b is None:
        return "choose an evaluation of each run"
    for ev in (ev_a, ev_b):
        if "cross-validation" not in ev.method or len(ev.fold_scores) < 2:
            return f"{ev.method} has no folds; the test pairs cross-validation folds"
    if key_a != key_b:
        return "the runs were trained on different data (their tables' fingerprints differ)"
    if (ev_a.classes is None) != (ev_b.classes is None):
        return "one run is a classification, the other a regression"
    if len(ev_a.fold_scores) != len(ev_b.fold_scores):
        return (
            f"the runs used different numbers of folds ({len(ev_a.fold_scores)} and "
            f"{len(ev_b.fold_scores)})"
        )
    if getattr(ev_a, "weka_folds", False) != getattr(ev_b, "weka_folds", False):
        return "one run's folds were dealt as Weka deals them, the other's as Arbor does"
    seed_a, seed_b = getattr(ev_a, "fold_seed", None), getattr(ev_b, "fold_seed", None)
    if seed_a is None or seed_b is None:
        return "a run does not record the seed that dealt its folds (made before it was kept)"
    if seed_a != seed_b:
        return f"the folds were dealt from different seeds ({seed_a} and {seed_b})"
    return None
