"""Predicting and evaluating over partitions: a tree applied to every partition on the workers.

:func:`predict_partitions` writes each partition's rows with the tree's prediction as a
Parquet file of its own (``part.00000.parquet``, ... in the partitions' order) into a
folder; :func:`score_partitions` sums a confusion matrix (or the regression errors) over
the partitions. The tree travels to the workers once; rows never come to the driver.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from engine.data.encoding import Schema
from engine.data.table import NOMINAL, NUMERIC
from engine.errors import ArborError
from engine.monitor import NULL_MONITOR, Monitor
from engine.reading import shown_path
from engine.scale.source import (
    ARROW_NUMBERS,
    CATEGORIES,
    TEXT_NUMBERS,
    Dataset,
    Layout,
    Piece,
    SourceColumn,
    read_piece,
)
from engine.scale.tasks import Selection
from engine.sums import dot
from engine.tree import Tree


def dataset_for(layout: Layout, schema: Schema) -> Dataset:
    """The partitions read against a trained tree's schema (its categories, its classes):
    no pass needed. The target is read when the files have it (to score), else not."""
    missing = [a.name for a in schema.attributes if a.name not in layout.columns]
    if missing:
        raise ArborError(f"the data has no column {missing[0]!r}, which the model needs")

    def column(name: str, kind: str, categories) -> SourceColumn:
        if kind == NOMINAL:
            return SourceColumn(name, NOMINAL, CATEGORIES, tuple(categories))
        typed = layout.types.get(name) == "number"
        return SourceColumn(name, NUMERIC, ARROW_NUMBERS if typed else TEXT_NUMBERS)

    attributes = tuple(column(a.name, a.kind, a.categories) for a in schema.attributes)
    if schema.target in layout.columns:
        target = column(
            schema.target,
            NUMERIC if schema.is_regression else NOMINAL,
            () if schema.is_regression else schema.classes,
        )
    else:
        target = SourceColumn(schema.target, "absent", "none")
    return Dataset(layout, attributes, target, tuple(p.rows or 0 for p in layout.pieces), 0)


def _encode_attributes(frame, dataset: Dataset, piece: Piece) -> np.ndarray:
    from engine.scale.source import _codes, _numbers

    X = np.empty((len(frame), len(dataset.attributes)), dtype=np.float64, order="F")
    for j, c in enumerate(dataset.attributes):
        values = frame[c.name]
        X[:, j] = _numbers(values, c, piece) if c.kind == NUMERIC else _codes(values, c)
    return X


def predict_piece(
    source, dataset: Dataset, tree: Tree, algorithm: str | None, folder: str, width: int
) -> int:
    """Write one partition's rows with the tree's predictions; returns the rows written."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from engine.atomic import write_atomic
    from engine.predict import class_codes, predict_proba, predict_value

    piece, index = source
    frame = read_piece(piece, dataset.layout.columns, dataset.layout.format)
    X = _encode_attributes(frame, dataset, piece)
    name = f"predicted {tree.schema.target}"
    if tree.is_regression:
        frame[name] = predict_value(tree, X)
    else:
        codes = class_codes(predict_proba(tree, X), algorithm, tree.costs)
        frame[name] = np.asarray(tree.schema.classes, dtype=object)[codes]
    table = pa.Table.from_pandas(frame, preserve_index=False)
    path = Path(folder) / f"part.{index:0{width}d}.parquet"
    write_atomic(path, lambda target: pq.write_table(table, target))
    return len(frame)


def score_piece(
    source, dataset: Dataset, task: str, selection: Selection, tree: Tree, algorithm: str | None
):
    """One partition's confusion matrix, or its regression sums (n, squared errors,
    absolute errors, sum and sum of squares of the target)."""
    from engine.predict import class_codes, predict_proba, predict_value
    from engine.scale.tasks import source_part

    part = source_part(source, dataset, task, selection)
    if tree.is_regression:
        err = predict_value(tree, part.X) - part.y
        return np.array(
            [part.n, dot(err, err), np.abs(err).sum(), part.y.sum(), dot(part.y, part.y)]
        )
    K = len(tree.schema.classes)
    confusion = np.zeros((K, K))
    if part.n:
        np.add.at(
            confusion,
            (part.y, class_codes(predict_proba(tree, part.X), algorithm, tree.costs)),
            1.0,
        )
    return confusion


def predict_partitions(
    tree: Tree,
    dataset: Dataset,
    cluster,
    folder: str,
    algorithm: str | None = None,
    monitor: Monitor = NULL_MONITOR,
) -> int:
    """Write the predictions of every partition into ``folder``; returns the rows written."""
    out = Path(folder)
    if out.exists() and not out.is_dir():
        raise ArborError(
            f"{shown_path(folder)} is a file; --output names a folder for the Parquet partitions"
        )
    if out.is_dir() and any(out.iterdir()):
        raise ArborError(
            f"the output folder {shown_path(folder)} is not empty; name a new or empty folder"
        )
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise ArborError(
            f"cannot make the folder {shown_path(folder)}: {err.strerror or err}"
        ) from None
    shared = cluster.share(tree)
    width = max(5, len(str(dataset.n_partitions)))
    futures = [
        cluster.submit(predict_piece, (piece, k), dataset, shared, algorithm, str(out), width)
        for k, piece in enumerate(dataset.pieces)
    ]
    return int(sum(cluster.wait(futures, monitor)))


def score_partitions(
    tree: Tree,
    dataset: Dataset,
    cluster,
    selection: Selection,
    method: str,
    algorithm: str | None = None,
    monitor: Monitor = NULL_MONITOR,
    notes=(),
):
    """The tree's :class:`engine.evaluate.evaluation.Evaluation` on the selected rows."""
    from engine.evaluate.evaluation import Evaluation, from_confusion

    task = "regression" if tree.is_regression else "classification"
    shared = cluster.share(tree)
    futures = [
        cluster.submit(score_piece, (piece, k), dataset, task, selection, shared, algorithm)
        for k, piece in enumerate(dataset.pieces)
    ]
    total = np.sum(cluster.wait(futures, monitor), axis=0)
    if tree.is_regression:
        n, sse, sae, sy, syy = (float(v) for v in total)
        if n == 0:
            raise ArborError("there are no rows to score")
        spread = syy - sy * sy / n
        return Evaluation(
            n=n,
            method=method,
            rmse=(sse / n) ** 0.5,
            mae=sae / n,
            r2=1 - sse / spread if spread > 0 else 0.0,
            notes=tuple(notes),
        )
    if total.sum() == 0:
        raise ArborError("there are no rows to score")
    return from_confusion(method, tree.schema.classes, total, notes=notes)
