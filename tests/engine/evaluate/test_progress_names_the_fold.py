"""During cross-validation every progress message names the outer fold, also CART's inner
folds choosing alpha ("fold 3 of 10: choosing alpha, inner fold 7 of 10"), which used to
read "alpha fold 10 of 10" then "alpha fold 3 of 10" (issue 30, item 5)."""

import re

import numpy as np
import pandas as pd

from engine.data.encoding import encode
from engine.data.table import make_table
from engine.estimator import DecisionTree
from engine.evaluate.evaluation import cross_validate
from engine.monitor import Monitor


def _table(n=150):
    rng = np.random.default_rng(3)
    frame = pd.DataFrame(rng.normal(size=(n, 2)), columns=["a", "b"])
    frame["y"] = np.where(frame.a + rng.normal(0, 0.5, n) > 0, "yes", "no")
    return make_table(frame)


def test_cart_cv_alpha_messages_name_the_outer_fold():
    table = _table()
    settings = DecisionTree(algorithm="cart", prune="cost-complexity", cv_alpha=4).settings()
    seen = []
    cross_validate(
        encode(table, "classification"),
        settings,
        folds=3,
        seed=1,
        monitor=Monitor(lambda fraction, message: seen.append((fraction, message))),
    )
    messages = [m for _, m in seen]
    inner = [m for m in messages if "choosing alpha" in m]
    assert inner, messages
    assert not any(m.startswith("alpha fold") for m in messages)
    for m in inner:
        assert re.match(r"fold [123] of 3: choosing alpha, inner fold [1-4] of 4\b", m), m
    # Each outer fold runs its own four inner folds, in order, and says which outer fold.
    for outer in (1, 2, 3):
        steps = [m.split(": ")[1] for m in inner if m.startswith(f"fold {outer} of 3:")]
        assert list(dict.fromkeys(steps)) == [
            f"choosing alpha, inner fold {i} of 4" for i in range(1, 5)
        ], steps
    # Every message between the first fold and the end names its outer fold.
    body = messages[messages.index("fold 1 of 3") : messages.index("cross-validated")]
    assert all(re.match(r"fold [123] of 3\b", m) for m in body), body
    fractions = [f for f, _ in seen]
    assert fractions == sorted(fractions)


def test_a_training_without_outer_folds_names_the_inner_fold_only():
    seen = []
    DecisionTree(algorithm="cart", prune="cost-complexity", cv_alpha=3).fit(
        _table(), monitor=Monitor(lambda fraction, message: seen.append(message))
    )
    inner = [m for m in seen if "choosing alpha" in m]
    assert inner and all(re.match(r"choosing alpha, inner fold [1-3] of 3\b", m) for m in inner)
