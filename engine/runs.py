"""The runs of a session: every training with its settings, tree size and evaluations.

A :class:`RunLog` is what the window's Runs list shows and what a project saves. It is
bounded so that a long session does not grow without end: at most ``MAX_RUNS`` runs (the
oldest go first); only the newest ``KEEP_TREES`` keep their tree and only the newest
``KEEP_CURVES`` their curve points and regression points. Every run keeps its settings,
sizes, scalar figures, confusion matrices and per-class figures, so an older run can still
be compared, and its tree grown again from its settings (the data fingerprint says whether
the table is still the one it was trained on). No run keeps encoded data.
"""

from __future__ import annotations

import functools
from dataclasses import asdict, dataclass, fields, replace

import numpy as np

from engine.evaluate.curves import ClassCurves
from engine.evaluate.evaluation import Evaluation
from engine.settings import ALGORITHM_LABELS, OPTION, Settings, resolve, why_not
from engine.tree import Tree

MAX_RUNS = 100
KEEP_TREES = 5
KEEP_CURVES = 20

NAMES = ALGORITHM_LABELS


@dataclass(frozen=True)
class Run:
    """One training: what it was given, what it made, and how well that did.

    ``evaluations`` holds the training-set figures first, then cross-validation when it was
    asked for, then any test-file or percentage-split evaluations added later. ``score`` is
    the training accuracy (or RMSE for regression). ``tree`` is None once the log dropped it.
    """

    number: int
    when: str
    data_name: str
    n_rows: int
    data_key: str
    settings: Settings
    n_nodes: int
    n_leaves: int
    depth: int
    evaluations: tuple[Evaluation, ...] = ()
    notes: tuple[str, ...] = ()
    tree: Tree | None = None

    @property
    def title(self) -> str:
        return f"{NAMES.get(self.settings.algorithm, self.settings.algorithm)} on {self.data_name}"

    @property
    def is_regression(self) -> bool:
        return self.settings.task == "regression"

    @property
    def honest(self) -> Evaluation | None:
        """The newest evaluation on rows the tree did not learn from (None: training figures only)."""
        held = [ev for ev in self.evaluations if not ev.method.startswith("training")]
        return held[-1] if held else None


def data_key(table) -> str:
    """A fingerprint of a table's contents, kinds and target: equal keys, the same training data."""
    import hashlib

    import pandas as pd

    frame = table.frame
    digest = hashlib.sha256(
        repr((list(frame.columns), sorted(table.kinds.items()), table.target)).encode()
    )
    for name in frame.columns:
        col = frame[name]
        if isinstance(
            col.dtype, pd.CategoricalDtype
        ):  # codes and their categories: no text per row
            digest.update(repr(list(col.cat.categories)).encode())
            digest.update(np.ascontiguousarray(col.cat.codes.to_numpy()))
        elif col.dtype.kind in "fiub":
            digest.update(np.ascontiguousarray(col.to_numpy()))
        else:
            digest.update(pd.util.hash_pandas_object(col, index=False).to_numpy().tobytes())
    return digest.hexdigest()[:16]


@functools.lru_cache(maxsize=512)  # the runs list asks for each row's on every repaint
def settings_summary(settings: Settings) -> str:
    """The algorithm and the options that differ from its defaults, e.g. "C4.5, max depth 3".

    Examples
    --------
    >>> settings_summary(resolve(algorithm="cart", max_depth=3))
    'CART, max depth 3'
    """
    base = resolve(algorithm=settings.algorithm, task=settings.task)
    given = {f.name: getattr(settings, f.name) for f in fields(Settings)}
    changed = []
    for f in fields(Settings):
        value, default = getattr(settings, f.name), getattr(base, f.name)
        if f.name in ("algorithm", "seed") or value == default:
            continue
        if f.name in OPTION and why_not(f.name, given) is not None:
            continue  # an option this algorithm or pruning does not use (C4.5 has no alpha)
        if isinstance(value, float):
            value = f"{value:g}"
        changed.append(f"{f.name.replace('_', ' ')} {value}")
    return ", ".join([NAMES.get(settings.algorithm, settings.algorithm), *changed])


def figure(ev: Evaluation | None) -> str:
    """An evaluation's headline: accuracy or RMSE, with where it comes from."""
    if ev is None:
        return ""
    if ev.classes is None:
        return f"RMSE {ev.rmse:.4g} ({ev.method})"
    return f"{100 * ev.accuracy:.2f}% ({ev.method})"


class RunLog:
    """Runs in the order they were made, bounded as the module says."""

    def __init__(self, runs=(), next_number: int = 1):
        self._runs: list[Run] = list(runs)
        self.next_number = max([next_number, *(r.number + 1 for r in self._runs)])

    def __iter__(self):
        return iter(self._runs)

    def __len__(self) -> int:
        return len(self._runs)

    def __getitem__(self, number: int) -> Run:
        for run in self._runs:
            if run.number == number:
                return run
        raise KeyError(number)

    def __contains__(self, number: int) -> bool:
        return any(r.number == number for r in self._runs)

    def numbers(self) -> list[int]:
        return [r.number for r in self._runs]

    def add(self, **fields_) -> Run:
        """Number a new run, add it, and drop what the bounds say is too old."""
        run = Run(number=self.next_number, **fields_)
        self.next_number += 1
        self._runs.append(run)
        self._bound()
        return self[run.number]

    def update(self, number: int, **changes) -> Run:
        """Replace fields of a run (an evaluation added, its tree grown again)."""
        self._runs = [replace(r, **changes) if r.number == number else r for r in self._runs]
        return self[number]

    def add_evaluation(self, number: int, evaluation: Evaluation) -> Run:
        run = self[number]
        return self.update(number, evaluations=(*run.evaluations, evaluation))

    def remove(self, number: int) -> None:
        self._runs = [r for r in self._runs if r.number != number]

    def clear(self) -> None:
        self._runs = []

    def _bound(self) -> None:
        del self._runs[:-MAX_RUNS]
        newest = len(self._runs)
        for k, run in enumerate(self._runs):
            age = newest - k
            if age > KEEP_TREES and run.tree is not None:
                run = self._runs[k] = replace(run, tree=None)
            if age > KEEP_CURVES and any(_has_points(ev) for ev in run.evaluations):
                self._runs[k] = replace(
                    run, evaluations=tuple(_without_points(ev) for ev in run.evaluations)
                )


def _has_points(ev: Evaluation) -> bool:
    return ev.points is not None or any(len(c.roc) for c in ev.curves)


def _without_points(ev: Evaluation) -> Evaluation:
    """The evaluation's figures and areas, without the points of its curves and plots."""
    empty = np.zeros((0, 2))
    return replace(
        ev, points=None, curves=tuple(replace(c, roc=empty, pr=empty) for c in ev.curves)
    )


# ---------------------------------------------------------------------- saving
#: Bounds on what a project may hold per run (Arbor writes far less; a hostile file is refused).
MAX_EVALUATIONS = 64
MAX_FOLDS = 10_000
MAX_STORED_POINTS = 10_000


def _array(value) -> list:
    return np.asarray(value, dtype=np.float64).tolist()


def _finite(value):
    return None if value is None or (isinstance(value, float) and not np.isfinite(value)) else value


def _curve_points(points: np.ndarray) -> list:
    return [] if np.isnan(points).any() else _array(points)  # an undefined curve is stored empty


def evaluation_to_dict(ev: Evaluation) -> dict:
    out = {
        f.name: getattr(ev, f.name)
        for f in fields(Evaluation)
        if f.name not in ("confusion", "curves", "points")
    }
    out = {
        k: [_finite(float(x)) for x in v]
        if k in ("fold_scores", "precision", "recall", "f1")
        else list(v)
        if isinstance(v, tuple)
        else _finite(v)
        for k, v in out.items()
    }
    if ev.confusion is not None:
        out["confusion"] = _array(ev.confusion)
    if ev.points is not None:
        out["points"] = _array(ev.points)
    out["curves"] = [
        {
            "label": c.label,
            "roc": _curve_points(c.roc),
            "pr": _curve_points(c.pr),
            "roc_auc": _finite(c.roc_auc),
            "average_precision": _finite(c.average_precision),
            "positives": c.positives,
            "n": c.n,
        }
        for c in ev.curves
    ]
    return out


def run_to_dict(run: Run) -> dict:
    """A run as plain JSON values (without its tree: a project keeps the tree on screen only)."""
    return {
        "number": run.number,
        "when": run.when,
        "data_name": run.data_name,
        "n_rows": run.n_rows,
        "data_key": run.data_key,
        "settings": asdict(run.settings),
        "n_nodes": run.n_nodes,
        "n_leaves": run.n_leaves,
        "depth": run.depth,
        "notes": list(run.notes),
        "evaluations": [evaluation_to_dict(ev) for ev in run.evaluations],
    }


def log_to_list(log: RunLog) -> list[dict]:
    return [run_to_dict(r) for r in log]


# ---------------------------------------------------------------------- reading (checked)
def _optional(value, where: str, what: str, low=None, high=None) -> float:
    from engine.export.model_schema import number

    return float("nan") if value is None else number(value, where, what, low, high)


def _numbers(
    value, where: str, what: str, size: int | None = None, limit: int = MAX_FOLDS
) -> tuple:
    from engine.export.model_schema import fail, need

    need(value, list, where, what)
    if (size is not None and len(value) != size) or len(value) > limit:
        fail(
            where,
            f"the {what} hold {len(value)} numbers, not {size if size is not None else f'at most {limit}'}",
        )
    return tuple(_optional(v, where, f"each of the {what}") for v in value)


def _pairs(value, where: str, what: str) -> np.ndarray:
    from engine.export.model_schema import fail, need, number

    need(value, list, where, what)
    if len(value) > MAX_STORED_POINTS:
        fail(where, f"the {what} hold {len(value)} points, more than {MAX_STORED_POINTS}")
    for pair in value:
        if not isinstance(pair, list) or len(pair) != 2:
            fail(where, f"each of the {what} must be a pair of numbers")
        for v in pair:
            number(v, where, f"a coordinate of the {what}")
    return np.asarray(value, dtype=np.float64).reshape(-1, 2)


def evaluation_from_dict(doc, where: str) -> Evaluation:
    from engine.export.model_schema import fail, need, number, texts

    need(doc, dict, where, "an evaluation")
    method = need(doc.get("method"), str, where, "the method")
    n = number(doc.get("n"), where, "the number of instances", 0)
    notes = tuple(texts(doc.get("notes", []), where, "notes", unique=False))
    folds = _numbers(doc.get("fold_scores", []), where, "fold scores")
    if doc.get("classes") is None:
        points = doc.get("points")
        return Evaluation(
            n=n,
            method=method,
            rmse=_optional(doc.get("rmse"), where, "the RMSE", 0),
            mae=_optional(doc.get("mae"), where, "the MAE", 0),
            r2=_optional(doc.get("r2"), where, "R²"),
            fold_scores=folds,
            notes=notes,
            points=None if points is None else _pairs(points, where, "predicted points"),
            fold_seed=_fold_seed(doc, where),
            weka_folds=doc.get("weka_folds") is True,
        )
    classes = tuple(texts(doc["classes"], where, "classes"))
    k = len(classes)
    confusion = need(doc.get("confusion"), list, where, "the confusion matrix")
    if len(confusion) != k or any(not isinstance(row, list) or len(row) != k for row in confusion):
        fail(where, f"the confusion matrix must be {k} rows of {k} numbers, one per class")
    matrix = np.array(
        [[number(v, where, "a confusion count", 0) for v in row] for row in confusion]
    )
    curves = need(doc.get("curves", []), list, where, "the curves")
    if len(curves) not in (0, k):
        fail(where, f"there must be one curve per class ({k}), not {len(curves)}")
    kept = []
    for c in curves:
        need(c, dict, where, "a curve")
        kept.append(
            ClassCurves(
                label=need(c.get("label"), str, where, "a curve's class"),
                roc=_pairs(c.get("roc", []), where, "ROC points"),
                pr=_pairs(c.get("pr", []), where, "precision-recall points"),
                roc_auc=_optional(c.get("roc_auc"), where, "an ROC area", 0, 1),
                average_precision=_optional(
                    c.get("average_precision"), where, "an average precision", 0, 1
                ),
                positives=number(c.get("positives"), where, "a class's instances", 0),
                n=number(c.get("n"), where, "the instances", 0),
            )
        )
    return Evaluation(
        n=n,
        method=method,
        classes=classes,
        confusion=matrix,
        fold_scores=folds,
        notes=notes,
        accuracy=_optional(doc.get("accuracy"), where, "the accuracy", 0, 1),
        accuracy_std=_optional(doc.get("accuracy_std"), where, "the accuracy's spread", 0),
        kappa=_optional(doc.get("kappa"), where, "kappa", -1, 1),
        precision=_numbers(doc.get("precision", []), where, "precisions", k),
        recall=_numbers(doc.get("recall", []), where, "recalls", k),
        f1=_numbers(doc.get("f1", []), where, "F1 scores", k),
        curves=tuple(kept),
        fold_seed=_fold_seed(doc, where),
        weka_folds=doc.get("weka_folds") is True,
    )


def _fold_seed(doc: dict, where: str) -> int | None:
    """The seed that dealt a cross-validation's folds (None: not recorded, as in older projects)."""
    from engine.export.model_schema import fail

    seed = doc.get("fold_seed")
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)):
        fail(where, "the folds' seed must be a whole number")
    return seed


def run_from_dict(doc, where: str) -> Run:
    from engine.export.model_schema import fail, need, settings_from, texts

    need(doc, dict, where, "a run")

    def whole(key, what, low=0):
        value = need(doc.get(key), int, where, what)
        if value < low:
            fail(where, f"{what} must be at least {low}")
        return value

    settings = settings_from(doc.get("settings"), where)
    if settings is None:
        fail(where, "a run needs its settings")
    evaluations = need(doc.get("evaluations", []), list, where, "the evaluations")
    if len(evaluations) > MAX_EVALUATIONS:
        fail(where, f"a run holds at most {MAX_EVALUATIONS} evaluations")
    return Run(
        number=whole("number", "the run's number", 1),
        when=need(doc.get("when"), str, where, "the time"),
        data_name=need(doc.get("data_name"), str, where, "the data's name"),
        n_rows=whole("n_rows", "the number of rows"),
        data_key=need(doc.get("data_key"), str, where, "the data's fingerprint"),
        settings=settings,
        n_nodes=whole("n_nodes", "the number of nodes", 1),
        n_leaves=whole("n_leaves", "the number of leaves", 1),
        depth=whole("depth", "the depth"),
        notes=tuple(texts(doc.get("notes", []), where, "notes", unique=False)),
        evaluations=tuple(
            evaluation_from_dict(ev, f"{where}: evaluation {i + 1}")
            for i, ev in enumerate(evaluations)
        ),
    )


def log_from_list(docs, where: str = "runs") -> RunLog:
    """Runs read back from a project, every field checked; a damaged one is one clear error."""
    from engine.export.model_schema import fail, need

    need(docs, list, where, "the runs")
    if len(docs) > MAX_RUNS:
        fail(where, f"a project holds at most {MAX_RUNS} runs, not {len(docs)}")
    runs = [run_from_dict(d, f"{where}: run {i + 1}") for i, d in enumerate(docs)]
    if len({r.number for r in runs}) != len(runs):
        fail(where, "two runs have the same number")
    log = RunLog(runs)
    log._bound()
    return log
