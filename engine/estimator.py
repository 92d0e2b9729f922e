"""``DecisionTree``: the scikit-learn-shaped estimator over the engine.

The constructor only stores its keyword arguments; ``fit`` validates them
through :func:`engine.settings.resolve`, encodes the data, grows and prunes.
"""

from __future__ import annotations

from dataclasses import fields

import numpy as np
import pandas as pd

from engine.data.encoding import Encoded, as_table, encode, encode_columns
from engine.data.table import Table
from engine.errors import ArborError
from engine.fitting import fit_tree
from engine.learn.medians import check_absolute_error
from engine.monitor import NULL_MONITOR, Monitor
from engine.optimal import search_note
from engine.predict import predict_class, predict_proba, predict_value
from engine.settings import Settings, resolve

PARAMS = tuple(f.name for f in fields(Settings))


class DecisionTree:
    """ID3, C4.5 or CART, chosen by ``algorithm``.

    Parameters mirror the command line (``max_depth``, ``min_samples_leaf``,
    ``min_gain``, ``growth``, ``prune``, ...); None means the algorithm's
    default.

    Examples
    --------
    >>> from engine.data.samples import load_sample
    >>> model = DecisionTree(algorithm="id3").fit(load_sample("weather"))
    >>> model.tree_.n_leaves, model.tree_.root.stats["gain"].__round__(3)
    (5, 0.247)
    """

    def __init__(self, algorithm: str = "c45", **params):
        unknown = set(params) - set(PARAMS)
        if unknown:
            raise TypeError(f"unknown parameter(s): {', '.join(sorted(unknown))}")
        self.algorithm = algorithm
        for name in PARAMS[1:]:
            setattr(self, name, params.get(name))

    def get_params(self, deep: bool = True) -> dict:
        return {name: getattr(self, name) for name in PARAMS}

    def set_params(self, **params) -> DecisionTree:
        for name, value in params.items():
            if name not in PARAMS:
                raise ValueError(f"unknown parameter {name!r}")
            setattr(self, name, value)
        return self

    def settings(self) -> Settings:
        return resolve(**self.get_params())

    def fit(
        self,
        data: Table | pd.DataFrame | Encoded,
        target: str | None = None,
        kinds=None,
        monitor: Monitor = NULL_MONITOR,
        record: bool = False,
        keep_grown: bool = False,
    ) -> DecisionTree:
        """Learn a tree from a Table or a DataFrame (the target defaults to the last column),
        or from a table already encoded for the same task (``encode(table, task)``), which a
        caller that also scores the training rows encodes once (``predict`` takes it too).

        ``record``: keep the pruning pass's decisions on the tree (``tree_.pruning``).
        ``keep_grown``: keep the tree as grown before pruning as ``grown_tree_`` (None for
        reduced-error pruning, which grows on part of the rows): CART's pruning path in the
        window, without growing it again.
        """
        settings = self.settings()
        if isinstance(data, Encoded):
            if target is not None or kinds:
                raise ArborError("an encoded table has its target and kinds already")
            if data.schema.is_regression != (settings.task == "regression"):
                raise ArborError(f"the table was encoded for another task than {settings.task}")
            encoded = data
        else:
            encoded = encode(as_table(data, target, kinds), settings.task)
        check_trainable(encoded, settings)
        grown: list = []
        self.tree_ = fit_tree(encoded, settings, monitor, record, grown)
        if keep_grown:
            self.grown_tree_ = grown[0] if grown else None
        self.settings_ = settings
        self.schema_ = encoded.schema
        self.classes_ = np.array(encoded.schema.classes) if encoded.schema.classes else None
        self.notes_ = encoded.notes + one_class_note(encoded) + search_note(self.tree_)
        return self

    @property
    def feature_importances_(self) -> np.ndarray:
        """Each attribute's share of the tree's weighted impurity decrease, in the schema's
        order (scikit-learn's ``feature_importances_``; :mod:`engine.evaluate.importance`)."""
        if not hasattr(self, "tree_"):
            raise ArborError("the model is not trained yet: call fit first")
        # Imported here: a plain fit (train --sample weather) loads no evaluation code.
        from engine.evaluate.importance import impurity_importance

        return impurity_importance(self.tree_).values

    def _matrix(self, data: Table | pd.DataFrame | Encoded) -> np.ndarray:
        if not hasattr(self, "tree_"):
            raise ArborError("the model is not trained yet: call fit first")
        if isinstance(data, Encoded):  # its rows with a target, coded as the model's schema
            if data.schema != self.schema_:
                raise ArborError("the encoded table's columns are not the model's")
            return data.X
        frame = data.frame if isinstance(data, Table) else data
        return encode_columns(frame, self.schema_.attributes)

    def predict_proba(self, data) -> np.ndarray:
        if self.schema_.is_regression:
            raise ArborError("a regression tree predicts values, not class probabilities")
        return predict_proba(self.tree_, self._matrix(data))

    def predict(self, data) -> np.ndarray:
        X = self._matrix(data)
        if self.schema_.is_regression:
            return predict_value(self.tree_, X)
        return self.classes_[predict_class(self.tree_, X, self.settings_.algorithm)]

    def _repr_svg_(self) -> str | None:
        """Jupyter shows a trained model as its tree (a big one to a depth, with a note);
        :func:`engine.plot` draws it with other options."""
        if not hasattr(self, "tree_"):
            return None
        from engine.export.svg_tree import plot

        return plot(self).svg


def check_trainable(data: Encoded, settings: Settings) -> None:
    """Refuse inputs the chosen algorithm cannot learn from, naming what to change."""
    if data.n_rows == 0:
        raise ArborError("there are no rows to learn from")
    if not data.schema.attributes:
        raise ArborError(
            "there are no attributes to learn from: every column other than the target is ignored"
        )
    if settings.criterion == "absolute_error":
        check_absolute_error(data)
    if settings.algorithm == "id3":
        numeric = [a.name for a in data.schema.attributes if not a.is_nominal]
        if numeric:
            raise ArborError(
                f"ID3 handles nominal attributes only, and {numeric[0]!r} is numeric: use C4.5 "
                "or CART, make the column nominal, or mark it ignored"
            )


def one_class_note(data: Encoded) -> tuple[str, ...]:
    if data.schema.is_regression:
        return ()
    y = data.y
    # One comparison, not np.unique's sort (10 ms a million rows, before every fit).
    if len(y) and not (y != y[0]).any():
        label = data.schema.classes[y[0]]
        return (f"every row has {data.schema.target} = {label}, so the tree is a single leaf",)
    return ()
