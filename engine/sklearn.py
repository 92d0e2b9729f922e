"""ID3, C4.5, CART and optimal trees as scikit-learn estimators: :class:`ArborClassifier` and :class:`ArborRegressor`.

The one engine module that imports scikit-learn (an optional extra: ``pip install -e
'.[sklearn]'``); ``import engine`` does not import it. The estimators follow scikit-learn's
contract (``fit(X, y)``, ``get_params``, fitted attributes ending in ``_``; its own
``check_estimator`` passes) and do their learning with the engine's pieces: the input
becomes an :class:`engine.data.encoding.Encoded`, :func:`engine.fitting.fit_tree` grows and
prunes it, :mod:`engine.predict` routes instances.

``X`` is a 2-D array or a DataFrame. Columns of a DataFrame whose dtype is ``category``,
``object``, ``string`` or ``bool`` are nominal (categories in their declared order, else
sorted); so are numpy columns of text, and any column named (or numbered) in
``nominal_features``. Everything else is numeric. NaN (and None in a nominal column) is a
missing value, handled as the algorithm handles it (C4.5's fractional instances); a category
not seen in training is missing too.

>>> from sklearn.datasets import load_iris
>>> X, y = load_iris(return_X_y=True)
>>> model = ArborClassifier(algorithm="c45").fit(X, y)
>>> model.get_n_leaves(), model.get_depth(), model.score(X, y)
(5, 4, 0.98)
"""

from __future__ import annotations

import numbers

import numpy as np
import pandas as pd

try:
    from scipy import sparse
    from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin
    from sklearn.utils import Bunch, check_random_state
    from sklearn.utils.multiclass import check_classification_targets
    from sklearn.utils.validation import check_array, check_is_fitted, column_or_1d, validate_data
except ImportError as err:  # scikit-learn is an optional extra
    raise ImportError(
        "engine.sklearn needs scikit-learn: pip install -e '.[sklearn]' "
        "(or pip install scikit-learn)"
    ) from err

from engine.data.columns import category_name, describe, encode_column
from engine.data.encoding import Encoded, Schema
from engine.errors import ArborError
from engine.estimator import check_trainable
from engine.evaluate.importance import impurity_importance
from engine.fast.threads import n_threads
from engine.fitting import fit_tree
from engine.predict import leaf_weights, predict_class, predict_proba, predict_value
from engine.settings import Settings, resolve

#: What the estimators' own parameters accept, checked in ``fit`` (the learner options are
#: checked by :func:`engine.settings.resolve`).
#: ``algorithm="optimal"`` (engine/optimal.py) classifies only, to a max depth of at most 4.
ALGORITHMS = ("id3", "c45", "cart", "optimal")


class _ArborTree(BaseEstimator):
    """What the classifier and the regressor share: parameters, input encoding, the tree."""

    def __init__(
        self,
        *,
        algorithm="cart",
        criterion=None,
        max_depth=None,
        min_samples_split=2,
        min_samples_leaf=None,
        min_impurity_decrease=0.0,
        max_leaf_nodes=None,
        priority="weighted",
        prune=None,
        confidence=0.25,
        ccp_alpha=0.0,
        nominal_features=None,
        random_state=None,
        laplace=False,
        m_estimate=None,
        missing="fractional",
        n_jobs=None,
    ):
        self.algorithm = algorithm
        self.criterion = criterion
        self.max_depth = max_depth
        self.min_samples_split = min_samples_split
        self.min_samples_leaf = min_samples_leaf
        self.min_impurity_decrease = min_impurity_decrease
        self.max_leaf_nodes = max_leaf_nodes
        self.priority = priority
        self.prune = prune
        self.confidence = confidence
        self.ccp_alpha = ccp_alpha
        self.nominal_features = nominal_features
        self.random_state = random_state
        self.laplace = laplace
        self.m_estimate = m_estimate
        self.missing = missing
        self.n_jobs = n_jobs

    _task = "classification"

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True
        tags.input_tags.string = True  # text columns are nominal attributes
        return tags

    # ------------------------------------------------------------------ settings
    def _settings(self, n_rows: float) -> Settings:
        """The engine's settings for these parameters on ``n_rows`` (weighted) rows."""
        if self.algorithm not in ALGORITHMS:
            raise ValueError(
                f"algorithm must be one of {', '.join(ALGORITHMS)}; got {self.algorithm!r}"
            )
        ccp_alpha = _real("ccp_alpha", self.ccp_alpha, low=0.0)
        prune = self.prune
        if (
            prune is None and self.algorithm == "cart"
        ):  # as scikit-learn: grown unless ccp_alpha > 0
            prune = "cost-complexity" if ccp_alpha > 0 else "none"
        random_state = self.random_state
        if random_state is None:  # the trees are deterministic; only the holdout draws
            seed = 1
        elif isinstance(random_state, numbers.Integral) and random_state >= 0:
            seed = int(random_state)
        else:
            seed = int(check_random_state(random_state).randint(0, 2**31 - 1))
        params = dict(
            algorithm=self.algorithm,
            criterion=self.criterion,
            task=self._task,
            max_depth=self.max_depth,
            min_samples_split=_count("min_samples_split", self.min_samples_split, n_rows, 2),
            min_samples_leaf=_count("min_samples_leaf", self.min_samples_leaf, n_rows, 1),
            min_gain=self.min_impurity_decrease,
            max_leaves=self.max_leaf_nodes,
            # scikit-learn grows best-first when the leaves are limited; so does Arbor here.
            growth="best" if self.max_leaf_nodes is not None else "depth",
            priority=self.priority,
            laplace=self.laplace,
            m_estimate=self.m_estimate,
            missing=self.missing,
            prune=prune,
            confidence=self.confidence,
            alpha=ccp_alpha if prune == "cost-complexity" else None,
            seed=seed,
            threads=_threads(self.n_jobs),
            costs=getattr(self, "_costs_text", None),
        )
        try:
            return resolve(**params)
        except ArborError as err:
            raise ValueError(str(err)) from None

    # ------------------------------------------------------------------ input
    def _nominal_positions(self, names: list[str], n_features: int) -> set[int]:
        given = self.nominal_features
        if given is None:
            return set()
        given = np.asarray(given)
        if given.dtype == bool:
            if given.shape != (n_features,):
                raise ValueError(
                    f"nominal_features as a mask needs {n_features} entries; got {given.shape}"
                )
            return set(np.flatnonzero(given).tolist())
        positions = set()
        for item in given.ravel().tolist():
            if isinstance(item, str):
                if item not in names:
                    raise ValueError(f"nominal_features names {item!r}, which is not a column of X")
                positions.add(names.index(item))
            elif isinstance(item, numbers.Integral) and -n_features <= item < n_features:
                positions.add(int(item) % n_features)
            else:
                raise ValueError(
                    f"nominal_features holds {item!r}: give column names, indices "
                    f"below {n_features}, or a boolean mask"
                )
        return positions

    def _raw_columns(self, X, reset: bool) -> list:
        """``X``'s columns as 1-D arrays or Series (validated, feature names recorded)."""
        if sparse.issparse(X):
            raise TypeError(
                "Arbor's trees need dense data: sparse input is not supported (use X.toarray())"
            )
        if isinstance(X, pd.DataFrame):
            validate_data(self, X, skip_check_array=True, reset=reset)
            if X.shape[0] == 0 or X.shape[1] == 0:
                check_array(np.empty(X.shape), ensure_all_finite=False)  # scikit-learn's message
            return [X.iloc[:, j] for j in range(X.shape[1])]
        X = validate_data(self, X, reset=reset, dtype=None, ensure_all_finite=False)
        if X.dtype.kind in "fc" and np.isinf(X).any():
            raise ValueError("Input X contains infinity or a value too large for dtype('float64').")
        return [X[:, j] for j in range(X.shape[1])]

    def _encode_X(self, X, reset: bool) -> np.ndarray:
        raw = self._raw_columns(X, reset)
        if reset:
            names = (
                [str(n) for n in self.feature_names_in_]
                if hasattr(self, "feature_names_in_")
                else [f"x{j}" for j in range(len(raw))]
            )
            nominal = self._nominal_positions(names, len(raw))
            self._columns = tuple(
                describe(name, col, j in nominal)
                for j, (name, col) in enumerate(zip(names, raw, strict=True))
            )
        out = np.empty((len(raw[0]) if raw else 0, len(raw)), dtype=np.float64, order="F")
        for j, (column, col) in enumerate(zip(self._columns, raw, strict=True)):
            out[:, j] = encode_column(column, col)
        return out

    def _check_X(self, X) -> np.ndarray:
        check_is_fitted(self, "tree_")
        return self._encode_X(X, reset=False)

    # ------------------------------------------------------------------ fitting
    def _fit(self, X, y_codes: np.ndarray | None, y_values: np.ndarray, classes, sample_weight):
        X_encoded = self._encode_X(X, reset=True)
        n = X_encoded.shape[0]
        if len(y_values) != n:
            raise ValueError(f"X has {n} samples but y has {len(y_values)}: they must match")
        weight = _sample_weight(sample_weight, n)
        keep = weight > 0  # a zero weight is a row left out (scikit-learn's convention)
        target = getattr(self, "_target_name", "y")
        schema = Schema(tuple(c.attribute() for c in self._columns), target, classes)
        y = (y_codes if y_codes is not None else y_values)[keep]
        data = Encoded(
            schema, np.asfortranarray(X_encoded[keep]), y, np.ascontiguousarray(weight[keep])
        )
        settings = self._settings(float(data.weight.sum()))
        try:
            check_trainable(data, settings)
            self.tree_ = fit_tree(data, settings)
        except ArborError as err:
            raise ValueError(str(err)) from None
        self.settings_ = settings
        self.n_outputs_ = 1
        return self

    # ------------------------------------------------------------------ the notebook
    def _repr_mimebundle_(self, **kwargs):
        """A fitted estimator shows in Jupyter as its tree (a big one to a depth, with a
        note; :func:`engine.plot` draws it with other options); an unfitted one as
        scikit-learn shows it. The HTML is the same SVG, so it wins over scikit-learn's
        diagram in front ends that prefer HTML."""
        if not hasattr(self, "tree_"):
            return super()._repr_mimebundle_(**kwargs)
        from engine.export.svg_tree import plot

        svg = plot(self).svg
        return {"text/plain": repr(self), "image/svg+xml": svg, "text/html": f"<div>{svg}</div>"}

    # ------------------------------------------------------------------ the fitted tree
    def get_depth(self) -> int:
        """Edges on the longest root-to-leaf path (a single leaf: 0)."""
        check_is_fitted(self, "tree_")
        return self.tree_.depth

    def get_n_leaves(self) -> int:
        check_is_fitted(self, "tree_")
        return self.tree_.n_leaves

    @property
    def feature_importances_(self) -> np.ndarray:
        """Each feature's share of the impurity decrease its splits bring, weighted by the
        nodes' weights (normalised to sum to 1; all zeros for a single leaf)."""
        check_is_fitted(self, "tree_")
        return impurity_importance(self.tree_).values

    def apply(self, X) -> np.ndarray:
        """The id of the leaf each sample lands in (ids are pre-order, as in ``tree_``).

        A sample missing a value a split needs goes down every branch with a share of its
        weight (C4.5's fractional instances); its leaf here is the one holding the largest
        share (the first such).
        """
        X = self._check_X(X)
        best = np.full(X.shape[0], -1, dtype=np.int64)
        share = np.full(X.shape[0], -np.inf)
        reached = leaf_weights(self.tree_, X)
        for leaf in sorted(reached):  # a row reaches a leaf at most once
            rows, weights = reached[leaf]
            better = weights > share[rows]
            best[rows[better]], share[rows[better]] = leaf, weights[better]
        return best

    def decision_path(self, X):
        """A sparse (samples x nodes) indicator of the nodes each sample passes through
        (with a missing value, every branch it is sent down)."""
        X = self._check_X(X)
        tree = self.tree_
        rows_out, nodes_out = [], []
        for leaf, (rows, weights) in leaf_weights(tree, X).items():
            rows = np.unique(rows[weights > 0])
            for node, _ in tree.path_to(leaf):
                rows_out.append(rows)
                nodes_out.append(np.full(len(rows), node.id))
        rows = np.concatenate(rows_out) if rows_out else np.zeros(0, np.int64)
        nodes = np.concatenate(nodes_out) if nodes_out else np.zeros(0, np.int64)
        indicator = sparse.csr_matrix(
            (np.ones(len(rows), dtype=np.int64), (rows, nodes)), shape=(X.shape[0], tree.n_nodes)
        )
        indicator.data[:] = 1  # a node reached along several paths is still one entry
        return indicator

    def cost_complexity_pruning_path(self, X, y, sample_weight=None) -> Bunch:
        """CART's minimal cost-complexity pruning path on (X, y): the effective alphas and the
        total leaf impurity of the subtree each one prunes to (scikit-learn's ``ccp_alphas``
        and ``impurities``)."""
        from engine.prune.cost_complexity import cost_complexity_path

        if self.algorithm != "cart":
            raise ValueError(
                f"cost-complexity pruning is CART's; the {self.algorithm} algorithm "
                "prunes otherwise (set algorithm='cart')"
            )
        full = self._fitted_copy(X, y, sample_weight, prune="none")
        path = cost_complexity_path(full.tree_)
        return Bunch(ccp_alphas=np.asarray(path.alphas), impurities=np.asarray(path.impurities))

    def _fitted_copy(self, X, y, sample_weight, prune: str):
        from sklearn.base import clone

        other = clone(self).set_params(prune=prune, ccp_alpha=0.0)
        return other.fit(X, y, sample_weight=sample_weight)

    def save_model(self, path) -> None:
        """Write the tree as an Arbor model (JSON): ``python main.py PATH`` opens it in the
        window, ``python main.py predict PATH DATA`` predicts with it."""
        from engine.export.model_json import save_model

        check_is_fitted(self, "tree_")
        save_model(self.tree_, self.settings_, path)


class ArborClassifier(ClassifierMixin, _ArborTree):
    """A classification tree grown by ID3, C4.5 or CART, or searched for (the optimal tree),
    as ``algorithm`` says.

    Parameters
    ----------
    algorithm : {"cart", "c45", "id3", "optimal"}, default "cart"
        CART: binary splits (thresholds at midpoints, two groups of categories). C4.5: as
        Weka's J48 (gain ratio, thresholds at training values, fractional instances for
        missing values, pessimistic pruning). ID3: multiway splits on nominal features only.
        Optimal: of all trees of ``max_depth`` on binary splits (numeric thresholds at 16
        quantiles when a feature has more distinct values), one that misclassifies the
        least training weight, searched exactly rather than grown greedily.
    criterion : {"gini", "entropy", "gain_ratio", "misclassification"}, default None
        None is the algorithm's own: gini (CART), gain_ratio (C4.5), entropy (ID3).
    max_depth : int, default None
        None: no limit; for the optimal tree, whose search grows fast with the depth, 3 (it
        refuses more than 4).
    min_samples_split : int or float, default 2
        A node with less weight is not split; a float is a fraction of the training weight.
    min_samples_leaf : int or float, default None
        The weight a branch needs (CART: each side; C4.5: at least two branches, J48's -M);
        None is the algorithm's: 1 (CART), 2 (C4.5), 0 (ID3). A float is a fraction.
    min_impurity_decrease : float, default 0.0
        The threshold tau: a node splits only if its split's gain exceeds it (the gain at
        the node itself, not weighted by the node's share of the rows as in scikit-learn).
    max_leaf_nodes : int, default None
        Grow best-first (the leaf whose split lowers total impurity most) up to this many leaves.
    priority : {"weighted", "gain"}, default "weighted"
        With ``max_leaf_nodes``, what the best-first queue ranks leaves by: n/N x gain
        (scikit-learn's order) or the gain alone (seed 004's ΔI).
    prune : {"none", "pessimistic", "cost-complexity", "reduced-error"}, default None
        None: pessimistic for C4.5, cost-complexity for CART when ``ccp_alpha`` > 0, else none.
    confidence : float, default 0.25
        C4.5's confidence factor for pessimistic pruning (J48's -C).
    ccp_alpha : float, default 0.0
        CART's complexity parameter for cost-complexity pruning.
    nominal_features : list of names or indices, or boolean mask, default None
        Columns to treat as nominal besides those whose dtype says so.
    random_state : int, RandomState or None, default None
        Seeds reduced-error pruning's holdout (None: Arbor's seed 1); the trees themselves
        are deterministic.
    laplace : bool, default False
        ``predict_proba`` gives (n_k + 1) / (n + K) at a leaf (J48's -A); ``predict`` takes
        the most probable class (a leaf's mode, as without it).
    m_estimate : float, default None
        ``predict_proba`` gives (n_k + M p_k) / (n + M), p_k the class's training share.
    costs : array-like of shape (n_classes, n_classes) or None, default None
        A cost matrix, rows the actual class and columns the predicted one, in the order of
        ``classes_`` (the labels sorted), each at least 0 and the diagonal 0: ``predict``
        gives the class of least expected cost from ``predict_proba`` (which it leaves as
        it is), and C4.5's and cost-complexity's ``errors`` pruning count costs (rpart's
        ``parms = list(loss = ...)``; scikit-learn has no such parameter).
    class_weight : dict, "balanced" or None, default None
        As scikit-learn's: each sample's weight times its class's (``balanced``: n_samples /
        (n_classes * np.bincount(y))), so growth, pruning and the leaves' shares count the
        weighted samples. The minimum counts (``min_samples_leaf``, ``min_samples_split``)
        are weights in Arbor, counts of samples in scikit-learn.
    missing : {"fractional", "majority", "surrogate"}, default "fractional"
        Where a sample missing a split's feature goes (growing and predicting): down every
        branch, weighted (C4.5's); down the heavier branch; or by rpart's surrogate splits,
        then the heavier branch (CART only).
    n_jobs : int or None, default None
        Threads that grow the tree: None or -1 every core, -2 all but one, 1 a single one.
        Every number grows the same tree.

    Attributes
    ----------
    classes_ : ndarray
        The class labels (as given, sorted), in the order of ``predict_proba``'s columns.
    tree_ : engine.tree.Tree
        Arbor's tree: nodes with weights, class distributions, splits and children.
    n_features_in_, feature_names_in_, n_classes_, n_outputs_, feature_importances_, settings_
    """

    def __init__(
        self,
        *,
        algorithm="cart",
        criterion=None,
        max_depth=None,
        min_samples_split=2,
        min_samples_leaf=None,
        min_impurity_decrease=0.0,
        max_leaf_nodes=None,
        priority="weighted",
        prune=None,
        confidence=0.25,
        ccp_alpha=0.0,
        nominal_features=None,
        random_state=None,
        laplace=False,
        m_estimate=None,
        missing="fractional",
        class_weight=None,
        costs=None,
        n_jobs=None,
    ):
        super().__init__(
            algorithm=algorithm,
            criterion=criterion,
            max_depth=max_depth,
            min_samples_split=min_samples_split,
            min_samples_leaf=min_samples_leaf,
            min_impurity_decrease=min_impurity_decrease,
            max_leaf_nodes=max_leaf_nodes,
            priority=priority,
            prune=prune,
            confidence=confidence,
            ccp_alpha=ccp_alpha,
            nominal_features=nominal_features,
            random_state=random_state,
            laplace=laplace,
            m_estimate=m_estimate,
            missing=missing,
            n_jobs=n_jobs,
        )
        self.class_weight = class_weight
        self.costs = costs

    def fit(self, X, y, sample_weight=None):
        self._target_name = _target_name(y)
        y = _check_y(y, numeric=False)
        check_classification_targets(y)
        if self.class_weight is not None:  # scikit-learn's own expansion, then its weights
            from sklearn.utils.class_weight import compute_sample_weight

            factors = compute_sample_weight(self.class_weight, y)
            sample_weight = factors * _sample_weight(sample_weight, len(factors))
        classes, codes = np.unique(y, return_inverse=True)
        self.classes_ = classes
        self.n_classes_ = len(classes)
        names = tuple(category_name(c) for c in classes)
        self._costs_text = None if self.costs is None else _costs_text(self.costs, names)
        return self._fit(X, codes.astype(np.intp), y, names, sample_weight)

    def predict_proba(self, X) -> np.ndarray:
        """Class probabilities: the leaves' class shares, corrected by ``laplace`` or
        ``m_estimate`` (a sample missing a value averages the branches it is sent down,
        weighted by their training shares)."""
        X = self._check_X(X)
        return predict_proba(self.tree_, X)

    def predict(self, X) -> np.ndarray:
        X = self._check_X(X)
        return self.classes_[predict_class(self.tree_, X, self.settings_.algorithm)]

    def predict_log_proba(self, X) -> np.ndarray:
        with np.errstate(divide="ignore"):
            return np.log(self.predict_proba(X))


class ArborRegressor(RegressorMixin, _ArborTree):
    """A CART regression tree (squared error, mean leaves), with Arbor's missing-value handling.

    Parameters are :class:`ArborClassifier`'s; ``algorithm`` must be "cart" and
    ``criterion`` "squared_error" (or None).
    """

    _task = "regression"

    def fit(self, X, y, sample_weight=None):
        self._target_name = _target_name(y)
        y = _check_y(y, numeric=True)
        return self._fit(X, None, y.astype(np.float64), None, sample_weight)

    def predict(self, X) -> np.ndarray:
        X = self._check_X(X)
        return predict_value(self.tree_, X)


# ---------------------------------------------------------------------- helpers


def _target_name(y) -> str:
    name = getattr(y, "name", None)
    return str(name) if name is not None else "y"


def _check_y(y, numeric: bool) -> np.ndarray:
    if y is None:
        raise ValueError("this estimator requires y to be passed, but the target y is None")
    y = check_array(
        y,
        ensure_2d=False,
        dtype="numeric" if numeric else None,
        ensure_all_finite=True,
        input_name="y",
    )
    return column_or_1d(y, warn=True)


def _real(name: str, value, low: float) -> float:
    if not isinstance(value, numbers.Real) or isinstance(value, bool) or not value >= low:
        raise ValueError(f"{name} must be a number of at least {low}; got {value!r}")
    return float(value)


def _count(name: str, value, total: float, smallest: int) -> float | None:
    """A sample count as scikit-learn takes it: an int, or a float fraction of ``total``."""
    if value is None:
        return None
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        if value < smallest:
            raise ValueError(f"{name} must be at least {smallest}; got {value}")
        return float(value)
    if isinstance(value, numbers.Real) and 0.0 < value <= 1.0:
        return float(np.ceil(value * total))
    raise ValueError(
        f"{name} must be an int of at least {smallest} or a float in (0, 1]; got {value!r}"
    )


def _threads(n_jobs) -> int:
    """scikit-learn's ``n_jobs`` as Arbor's threads: None or -1 every core (0), -2 all but
    one, and so on; the tree is the same whatever the number."""
    if n_jobs is None:
        return 0
    if not isinstance(n_jobs, numbers.Integral) or n_jobs == 0:
        raise ValueError(f"n_jobs must be a non-zero integer or None; got {n_jobs!r}")
    if n_jobs > 0:
        return int(n_jobs)
    return max(n_threads(0) + 1 + int(n_jobs), 1)


def _sample_weight(sample_weight, n: int) -> np.ndarray:
    if sample_weight is None:
        return np.ones(n)
    weight = np.array(sample_weight, dtype=np.float64)  # a copy: never the caller's array
    if weight.ndim == 0:
        weight = np.full(n, float(weight))
    if weight.shape != (n,):
        raise ValueError(f"sample_weight.shape == {weight.shape}, expected ({n},)")
    if not np.all(np.isfinite(weight)) or (weight < 0).any():
        raise ValueError("sample_weight must hold finite numbers of at least 0")
    if not (weight > 0).any():
        raise ValueError("Sample weights must contain at least one non-zero number")
    return weight


def _costs_text(costs, names: tuple[str, ...]) -> str:
    """A cost matrix given as an array in the order of the sorted labels, as ``--costs`` text."""
    from engine.learn.costs import matrix_text

    try:
        matrix = np.asarray(costs, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError("costs must be a matrix of numbers, n_classes by n_classes") from None
    if matrix.shape != (len(names), len(names)):
        raise ValueError(
            f"costs must be {len(names)} by {len(names)} (rows actual, columns predicted, in "
            f"the order of classes_); got shape {matrix.shape}"
        )
    return matrix_text(names, matrix)
