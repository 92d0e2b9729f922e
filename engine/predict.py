"""Routing instances through a tree, with C4.5's fractional instances for missing values.

An instance whose value is missing at a split (or whose category no branch
holds) goes down every branch with its weight multiplied by the branch's share
of the training weight; the leaves' predictions are summed with those weights.
An empty leaf predicts what its parent would.
"""

from __future__ import annotations

import numpy as np

from engine.compiling import lifecycle as compilation
from engine.flat import FlatTree, flat_of
from engine.learn.tolerances import WEKA_EPS
from engine.sums import weighted_columns
from engine.tree import Node, Tree


def _compiled_for(X: np.ndarray) -> bool:
    """Whether the compiled routing takes ``X``: a table of doubles, once the kernels are. The
    layouts the warm-up compiles it for (encoded columns, read-only or not, and rows one may
    write to; numba calls an array both C and F, one column, C): a table in any other takes
    numpy's way rather than a compile, or a copy of it."""
    c, f, w = X.flags.c_contiguous, X.flags.f_contiguous, X.flags.writeable
    return (
        compilation.is_ready()
        and X.ndim == 2
        and X.dtype == np.float64
        and ((c and w) or (f and not c))
    )


def _arg(a, dtype):
    """A tree's array as the kernels take it (small: copied where it is not so)."""
    return np.require(a, dtype, ["C_CONTIGUOUS", "WRITEABLE"])


def _routing(flat: FlatTree) -> tuple:
    """The tree's arrays that route a row (:func:`engine.fast.descent.branch_of`), as the
    kernels take them."""
    return (
        _arg(flat.children, np.intp),
        _arg(flat.attribute, np.intp),
        _arg(flat.by_threshold, bool),
        _arg(flat.threshold, np.float64),
        _arg(flat.groups, np.intp),
        _arg(flat.lookup, np.intp),
    )


def _whole_branch(flat: FlatTree) -> np.ndarray:
    """Each split's child that a row it cannot place goes down at weight 1, the others' at
    0 (a tree grown with ``--missing majority``): the walk's one leaf for it, found on the
    way down; -1 where it goes down several, or a surrogate split may place it."""
    whole = np.full(flat.n_nodes, -1, dtype=np.intp)
    if any(flat.surrogates) or not flat.n_nodes:
        return whole
    taken = flat.fractions > 0
    one = (taken.sum(axis=1) == 1) & (flat.fractions.max(axis=1) == 1.0) & ~flat.is_leaf
    rows = np.flatnonzero(one)
    whole[rows] = flat.children[rows, np.argmax(taken[rows], axis=1)]
    return whole


def descend(
    flat: FlatTree, X: np.ndarray
) -> tuple[list[tuple[np.ndarray, np.ndarray]], np.ndarray]:
    """:meth:`FlatTree.descend`'s levels and rows that went down several branches; compiled
    (:func:`engine.fast.descent.descend_levels`, whose oracle that numpy is) where
    :func:`_compiled_for` ``X``."""
    if not _compiled_for(X):
        return flat.descend(X)
    from engine.fast.descent import descend_levels

    rows, at, starts, several = descend_levels(X, *_routing(flat), _arg(flat.is_leaf, bool))
    bounds = starts.tolist()
    levels = [(rows[a:b], at[a:b]) for a, b in zip(bounds, bounds[1:], strict=False)]
    return levels, several


def _add_weighted(out, rows, at, weights, outputs) -> None:
    """``np.add.at(out, rows, weights[:, None] * outputs[at])``: compiled for a walk's leaves
    (:func:`engine.fast.descent.add_weighted`, the same sums in the same order) where the
    kernels are ready, else numpy's; ``out`` and ``outputs`` are matrices."""
    if not (isinstance(at, np.ndarray) and compilation.is_ready()):
        np.add.at(out, rows, weights[:, None] * outputs[at])
        return
    from engine.fast.descent import add_weighted

    add_weighted(out, _arg(rows, np.intp), _arg(at, np.intp), weights, _arg(outputs, np.float64))


def _leaves(tree: Tree, X: np.ndarray):
    """``(flat, leaf, rows, weights)`` for the leaves the rows of ``X`` reach, on the tree's
    arrays (:mod:`engine.flat`): the rows that reach one leaf at weight 1 all at once (those
    a ``--missing majority`` split cannot place among them, down its one branch), then those
    that go down several (C4.5's fractional instances) walked, each row's leaves in the
    walk's order (compiled, :func:`engine.fast.descent.walk_several`, where the tree has no
    surrogates)."""
    flat = flat_of(tree)
    leaf = flat.is_leaf
    compiled = _compiled_for(X)
    if compiled:  # each row's leaf, a row at a time (the levels' oracle: the same)
        from engine.fast.descent import leaves_of_rows

        reached = leaves_of_rows(X, *_routing(flat), _arg(leaf, bool), _whole_branch(flat))
        rows = np.flatnonzero(reached >= 0)
        yield flat, reached[rows], rows, None
        several = reached < 0
    else:
        levels, several = flat.descend(X)
        for rows, at in levels:
            ends = leaf[at] & ~several[rows]
            yield flat, at[ends], rows[ends], None
    several = np.flatnonzero(several)
    if len(several) and compiled and not any(flat.surrogates):
        from engine.fast.descent import walk_several

        rows, at, weights = walk_several(
            X,
            *_routing(flat),
            several,
            _arg(flat.n_children, np.intp),
            _arg(flat.fractions, np.float64),
        )
        yield flat, at, rows, weights
        return
    for i, rows, weights in flat.walk(X, several):
        if leaf[i]:
            yield flat, i, rows, weights


def node_output(tree: Tree, node: Node, fallback=None):
    """What a node predicts, its point estimate (seed 004): its class probabilities
    (:func:`class_probabilities`), whose most probable class is the one predicted, or its
    mean (median, for absolute error); an empty node its parent's. The rule is
    :attr:`engine.flat.FlatTree.outputs`'s, the one place it is written; ``fallback`` (the
    parent's output, which exporters walking the nodes carry) is what that rule gives an
    empty node already."""
    return flat_of(tree).output_of(node)


def class_probabilities(tree: Tree, node: Node, fallback=None) -> np.ndarray:
    """The class probabilities ``node`` gives: its class shares N_i / N, or with the tree's
    pseudocounts a_i (``--laplace``, ``--m-estimate``) (N_i + a_i) / (N + sum a); an empty
    node without pseudocounts its parent's. :attr:`engine.flat.FlatTree.outputs` is the one
    place the rule is written; predictions, ROC curves and every export read it.

    >>> from engine.data.samples import load_sample
    >>> from engine.estimator import DecisionTree
    >>> tree = DecisionTree(laplace=True).fit(load_sample("weather")).tree_
    >>> leaf = next(n for n in tree.nodes() if n.is_leaf)
    >>> leaf.distribution.tolist(), class_probabilities(tree, leaf).round(3).tolist()
    ([0.0, 3.0], [0.2, 0.8])
    """
    return flat_of(tree).output_of(node)


def predict_proba(tree: Tree, X: np.ndarray) -> np.ndarray:
    """Class probabilities, one row per instance (classification trees): the leaves'
    :func:`class_probabilities` (computed for every node at once on the tree's arrays,
    :attr:`engine.flat.FlatTree.outputs`)."""
    out = np.zeros((X.shape[0], len(tree.classes)))
    for flat, at, rows, weights in _leaves(tree, X):
        if weights is None:  # one leaf per row: its shares (added to 0, as a weight of 1 is)
            out[rows] += flat.outputs[at]
        else:  # a row's leaves add up in the walk's order
            _add_weighted(out, rows, at, weights, flat.outputs)
    return out


def predict_class(tree: Tree, X: np.ndarray, algorithm: str | None = None) -> np.ndarray:
    """The class code each instance is predicted, from :func:`predict_proba` (the leaf's
    mode; with pseudocounts, the most probable class of the corrected probabilities, as
    Weka's evaluation takes J48 -A's: Laplace's keeps the mode of any leaf with rows).

    CART takes the first most probable class, as scikit-learn does. ID3 and C4.5 (and a tree
    of unknown origin) take J48's: going through the classes in order, a class replaces the
    one kept so far only if its probability is more than 1e-6 higher (``Utils.gr``). The two
    differ only on near-ties, which instances with missing values meet: on a balanced
    training set one missing the root's attribute gets every class's share, equal up to
    rounding, and J48 predicts the first class where an exact argmax may take another.

    >>> class_codes(np.array([[1 / 3, 1 / 3 + 1e-16, 1 / 3 - 1e-16]]), "c45").tolist()
    [0]
    >>> class_codes(np.array([[1 / 3, 1 / 3 + 1e-16, 1 / 3 - 1e-16]]), "cart").tolist()
    [1]
    """
    return class_codes(predict_proba(tree, X), algorithm, tree.costs)


def class_codes(proba: np.ndarray, algorithm: str | None = None, costs=()) -> np.ndarray:
    """Rows of class probabilities to class codes by the rule of :func:`predict_class`; with
    a cost matrix ``costs`` (:attr:`engine.tree.Tree.costs`, rows actual, columns predicted)
    the class of least expected cost sum_k p_k C[k, j] instead, the first on a tie (rpart's
    and C5.0's rule; every exporter writes this same choice).

    >>> class_codes(np.array([[0.8, 0.2], [0.9, 0.1]]), "c45", ((0, 1), (5, 0))).tolist()
    [1, 0]
    """
    if len(costs):
        return np.argmin(weighted_columns(proba, costs), axis=1)
    if algorithm == "cart":
        return np.argmax(proba, axis=1)
    best = np.zeros(len(proba), dtype=np.intp)
    kept = np.full(len(proba), -1.0)
    for k in range(proba.shape[1]):  # a loop over classes; every row at once
        better = proba[:, k] - kept > WEKA_EPS
        best[better] = k
        kept[better] = proba[better, k]
    return best


def predict_value(tree: Tree, X: np.ndarray) -> np.ndarray:
    """Predicted means (regression trees)."""
    out = np.zeros(X.shape[0])
    for flat, at, rows, weights in _leaves(tree, X):
        if weights is None:
            out[rows] += flat.outputs[at]
        else:
            _add_weighted(out[:, None], rows, at, weights, flat.outputs[:, None])
    return out


def leaf_weights(tree: Tree, X: np.ndarray) -> dict[int, tuple[np.ndarray, np.ndarray]]:
    """For every leaf reached: the rows that reach it and with which weight."""
    flat = flat_of(tree)
    nodes = flat.node_objects()
    reached: dict[int, list] = {}
    for i, rows, weights in flat.walk(X, np.arange(X.shape[0])):
        if flat.is_leaf[i]:
            reached.setdefault(nodes[i].id, []).append((rows, weights))
    return {
        k: (np.concatenate([r for r, _ in v]), np.concatenate([w for _, w in v]))
        for k, v in reached.items()
    }


def prediction_frame(tree: Tree, frame, probabilities: bool = False, algorithm: str | None = None):
    """``frame`` with the tree's prediction for every row added as ``predicted <target>``, and
    with ``probabilities`` one ``P(<class>)`` column per class (classification trees).
    ``algorithm`` (the tree's) picks the class rule of :func:`predict_class`.

    Columns are matched to the tree's attributes by name; other columns are carried along.

    Examples
    --------
    >>> from engine.data.samples import load_sample
    >>> from engine.estimator import DecisionTree
    >>> table = load_sample("weather")
    >>> out = prediction_frame(DecisionTree(algorithm="id3").fit(table).tree_, table.frame.head(2), True)
    >>> out[["predicted play", "P(no)", "P(yes)"]].values.tolist()
    [['no', 1.0, 0.0], ['no', 1.0, 0.0]]
    """
    from engine.data.encoding import encode_columns

    X = encode_columns(frame, tree.schema.attributes)
    out = frame.copy()
    name = f"predicted {tree.schema.target}"
    if tree.is_regression:
        out[name] = predict_value(tree, X)
        return out
    proba = predict_proba(tree, X)
    out[name] = np.array(tree.classes, dtype=object)[class_codes(proba, algorithm, tree.costs)]
    if probabilities:
        for k, label in enumerate(tree.classes):
            out[f"P({label})"] = proba[:, k]
    return out


#: Formats predictions are saved in, by file extension.
PREDICTION_FORMATS = (".csv", ".tsv", ".xlsx", ".parquet")


def _whole(value) -> bool:
    """Whether ``value`` is a float holding a whole number that an integer shows exactly."""
    return (
        isinstance(value, (float, np.floating))
        and np.isfinite(value)
        and float(value).is_integer()
        and abs(value) < 2**53
    )


def _whole_numbers_as_integers(frame):
    """``frame`` with every whole float (``144.0``) made an int (``144``), so a text file
    writes ``144``; other values, and missing ones, unchanged. The frame given is not changed.

    >>> import pandas as pd
    >>> out = _whole_numbers_as_integers(pd.DataFrame({"y": [144.0, 2.5, None], "c": [1.0, "a", 2]}))
    >>> out["y"].tolist()[:2], out["c"].tolist()
    ([144, 2.5], [1, 'a', 2])
    """
    import pandas as pd

    def as_ints(column):  # not Series.map, which would infer float64 again from [1, nan]
        return pd.Series(
            [int(v) if _whole(v) else v for v in column], index=column.index, dtype=object
        )

    out = frame.copy()
    for name, column in frame.items():
        dtype = column.dtype
        if pd.api.types.is_float_dtype(dtype):  # vectorised: prediction files can be long
            values = column.to_numpy(dtype=float, na_value=np.nan)
            with np.errstate(invalid="ignore"):
                whole = (
                    np.isfinite(values) & (values == np.floor(values)) & (np.abs(values) < 2**53)
                )
            if whole.any():
                cells = values.astype(object)
                cells[whole] = values[whole].astype(np.int64).tolist()
                out[name] = pd.Series(cells, index=column.index, dtype=object)
        elif isinstance(dtype, pd.CategoricalDtype):  # classes that are numbers
            if any(_whole(v) for v in dtype.categories):
                out[name] = as_ints(column.astype(object))
        elif pd.api.types.is_object_dtype(dtype) and any(_whole(v) for v in column):
            out[name] = as_ints(column)
    return out


def save_predictions(frame, path, formula_guard: bool = True) -> None:
    """Write a frame of predictions (from :func:`prediction_frame`) in the format of ``path``'s
    extension, columns in their order, atomically (a failed write leaves any old file).

    Predictions are meant for a spreadsheet, so no value is saved as something it would run:
    an XLSX stores text cells as text, and a CSV or TSV puts ``'`` before text that begins
    with ``= + - @``, a tab or a carriage return unless ``formula_guard`` is False
    (:mod:`engine.data.cells`). Numbers keep their value; in a CSV, TSV or XLSX a whole
    number is written as an integer (``144``, not ``144.0``), other numbers as they are.
    """
    from pathlib import Path

    from engine.atomic import write_atomic
    from engine.data.cells import guarded_frame, text_cells_as_text
    from engine.errors import ArborError

    def text():  # what a CSV or TSV holds: 144, not 144.0 (after the guard, whose
        # Series.map would make [144, nan] floats again)
        return _whole_numbers_as_integers(guarded_frame(frame) if formula_guard else frame)

    def excel(p):
        import io

        import pandas as pd

        # The workbook is built in memory and its bytes written by us: a zip file that fails
        # half-written on disk (a full disk) stays open in openpyxl, and its clean-up at exit
        # fails again and prints an "Exception ignored" traceback after Arbor's own line.
        buffer = io.BytesIO()
        with pd.ExcelWriter(buffer, engine="openpyxl") as book:
            _whole_numbers_as_integers(frame).to_excel(book, index=False)
            for sheet in book.sheets.values():
                text_cells_as_text(sheet)
        p.write_bytes(buffer.getbuffer())

    writers = {
        ".csv": lambda p: text().to_csv(p, index=False),
        ".tsv": lambda p: text().to_csv(p, sep="\t", index=False),
        ".xlsx": excel,
        ".parquet": lambda p: frame.to_parquet(p, index=False),
    }
    suffix = Path(path).suffix.lower()
    if suffix not in writers:
        raise ArborError(
            f"cannot save predictions as {suffix or '(no extension)'}; use one of "
            f"{', '.join(PREDICTION_FORMATS)}"
        )
    try:
        write_atomic(path, writers[suffix])
    except (ValueError, TypeError, ImportError) as err:
        raise ArborError(f"could not write {Path(path).name}: {err}") from None
