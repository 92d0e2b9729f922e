"""Where C4.5 puts a numeric threshold: at a training value, as J48 does.

The cut is chosen between two neighbouring values a < b at the node; J48 then moves
it from the midpoint (a + b) / 2 down to the largest value of the attribute in the
*whole* training set that is at most the midpoint, up to Weka's tolerance
(``Utils.smOrEq``: v - midpoint < 1e-6). With 5.6 and 5.8 at a node and 5.7 elsewhere
in the column, the midpoint is 5.699999999999999 and the threshold 5.7, not 5.6.
Rows at the node go the same way either way (no node value lies between a and b);
an unseen value between them does not.

The numpy scorer (:func:`engine.learn.splitting.score_threshold_c45`) and the compiled
builder (:func:`engine.fast.builder.to_nodes`) both place thresholds here.
"""

from __future__ import annotations

import numpy as np

from engine.learn.tolerances import WEKA_EPS


def c45_threshold(values: np.ndarray, midpoint: float) -> float:
    """The largest of the sorted distinct training ``values`` with ``v - midpoint < 1e-6``.

    J48 scans the rows in their order and keeps a value only if it exceeds the one kept by
    more than 1e-6, so among training values closer together than that it may keep an
    earlier, smaller one; C4.5 treats such values as one (they are never cut between).

    Examples
    --------
    >>> c45_threshold(np.array([5.6, 5.7, 5.8]), (5.6 + 5.8) / 2)
    5.7
    >>> c45_threshold(np.array([1.0, 2.0, 4.0]), 3.0)
    2.0
    """
    # searchsorted finds the neighbourhood; the comparison itself is Weka's subtraction.
    i = int(np.searchsorted(values, midpoint + WEKA_EPS, side="right"))
    while i > 0 and values[i - 1] - midpoint >= WEKA_EPS:
        i -= 1
    while i < len(values) and values[i] - midpoint < WEKA_EPS:
        i += 1
    return float(values[i - 1]) if i > 0 else float(midpoint)
