"""The ``evaluate`` and ``path`` sub-commands."""

from __future__ import annotations

from pathlib import Path

from engine.data.encoding import encode, encode_like, subset
from engine.errors import ArborError
from engine.estimator import check_trainable
from engine.evaluate.evaluation import (
    cross_validate_outputs,
    evaluate_tree,
    holdout_method,
    holdout_rows,
)
from engine.evaluate.gains import cost_optimal_threshold
from engine.evaluate.report import evaluation_text
from engine.fitting import fit_tree
from engine.predict import predict_proba
from engine.settings import ALGORITHM_LABELS

NAMES = ALGORITHM_LABELS


def _prepare(args, load, learner):
    """The table, validated settings and encoded data every learning command starts from."""
    table = load(args)
    settings = learner(args).settings()
    data = encode(table, settings.task)
    check_trainable(data, settings)
    if settings.costs and data.schema.classes is not None:  # its faults named by its file
        from engine.learn.costs import parse_cost_matrix

        parse_cost_matrix(
            settings.costs, data.schema.classes, Path(getattr(args, "costs", None) or "costs").name
        )
    return table, settings, data


def check_per_node(args) -> None:
    """``--per-node`` routes rows in memory: a test file's, a split's rest, or (with neither)
    cross-validation's held-out rows with their out-of-fold predictions."""
    if getattr(args, "per_node", False) and getattr(args, "engine", "memory") == "dask":
        raise ArborError("--per-node routes the test rows in memory: leave out --engine dask")


def evaluate_command(args, load, learner):
    check_per_node(args)
    table, settings, data = _prepare(args, load, learner)
    seed = settings.seed
    if args.weka_folds and (args.test or args.split):
        raise ArborError(
            "--weka-folds chooses cross-validation folds; it does not go with --test or --split"
        )
    if args.test and args.split:
        raise ArborError("--test and --split are two ways to test: give one of them")
    tree = test = None
    if args.test:
        from engine.data.io import read_table

        test_table = read_table(args.test, target=table.target)
        tree = fit_tree(data, settings)
        test = encode_like(test_table, data.schema)
        label = f"test set {args.test}"
    elif args.split:
        train_rows, test_rows = holdout_rows(data, args.split, seed)
        tree = fit_tree(subset(data, train_rows), settings)
        test = subset(data, test_rows)
        label = holdout_method(args.split)
    per_node = getattr(args, "per_node", False)
    predictions = None
    out = None
    if tree is not None:
        ev = evaluate_tree(tree, test, label, settings.algorithm)
    elif per_node:  # cross-validation's held-out rows, on the tree trained on all the rows
        from engine.evaluate.per_node import fold_predictions
        from engine.learn.costs import settings_costs

        ev, out = cross_validate_outputs(
            data, settings, args.folds, seed, weka_folds=args.weka_folds
        )
        costs = settings_costs(settings, data.schema.classes)
        predictions = fold_predictions(data, out, settings.algorithm, costs)
        tree, test, label = fit_tree(data, settings), data, f"{ev.method}: held-out rows"
    else:
        ev, out = cross_validate_outputs(
            data, settings, args.folds, seed, weka_folds=args.weka_folds
        )
    result, text = ev.as_dict(), evaluation_text(ev, table.target)
    if getattr(args, "costs", None) and ev.classes is not None:
        held = data if out is not None else test
        proba = out if out is not None else predict_proba(tree, test.X)
        costs = _matrix_costs(args.costs, ev, held, proba)
        result["cost"] = costs.as_dict()  # the report's cost line says the first two
    if ev.classes is not None and len(ev.classes) == 2:
        held = data if out is not None else test
        proba = out if out is not None else predict_proba(tree, test.X)
        operating = _least_cost(args, ev.classes, held, proba)
        result["cost_optimal_threshold"] = operating.as_dict()
        text += "\n\n" + _least_cost_text(operating, ev.classes)
    if per_node:
        from engine.evaluate.per_node import OUT_OF_FOLD_NOTE, node_rows
        from engine.export.test_rows import node_records, per_node_text

        figures = node_rows(tree, test, settings.algorithm, predictions)
        result["per_node_test_rows"] = (
            "test file"
            if args.test
            else "percentage split"
            if args.split
            else "cross-validation out-of-fold"
        )
        if predictions is not None:
            result["per_node_note"] = OUT_OF_FOLD_NOTE + "."
        result["per_node"] = node_records(tree, figures)
        train_error, test_error = figures.error_rates()
        result["per_node_totals"] = {
            "train_n": figures.train_total,
            "test_n": figures.test_total,
            "train_errors": figures.leaf_sums()[0],
            "test_errors": figures.leaf_sums()[1],
            "train_error": train_error,
            "test_error": test_error,
            "measure": "RMSE" if tree.is_regression else "error rate",
        }
        text += "\n\n" + per_node_text(tree, figures, label)
    return result, text


def _matrix_costs(path, ev, held, proba):
    from engine.evaluate.cost_matrix import cost_figures, read_cost_matrix

    matrix = read_cost_matrix(path, tuple(ev.classes))
    return cost_figures(ev.confusion, matrix, held.y, proba, held.weight)


def _least_cost(args, classes, held, proba):
    """The two-class threshold of least cost on the held-out rows' probabilities."""
    positive = classes[1] if args.positive is None else args.positive
    if positive not in classes:
        raise ArborError(
            f"--positive {positive!r} is not a class (the classes are {', '.join(classes)})"
        )
    k = classes.index(positive)
    return cost_optimal_threshold(
        proba[:, k], held.y == k, held.weight, args.cost_fp, args.cost_fn, positive
    )


def _least_cost_text(op, classes) -> str:
    other = classes[0] if op.positive == classes[1] else classes[1]
    rule = (
        f"never predict {op.positive}"
        if op.threshold == float("inf")
        else f"predict {op.positive} when its probability is at least {op.threshold:.4g}"
    )
    return (
        f"Cost-optimal threshold (a false {op.positive} costs {op.cost_fp:g}, a missed "
        f"{op.positive} {op.cost_fn:g}): {rule}, else {other}; on the held-out rows "
        f"{op.false_positives:g} false and {op.false_negatives:g} missed, total cost "
        f"{op.cost:g} ({op.average_cost:.4g} a row)"
    )


def path_command(args, load, learner):
    from dataclasses import replace

    from engine.growth import grow
    from engine.learn.class_weights import weighted_by_class
    from engine.prune.alpha import choose_alpha
    from engine.prune.cost_complexity import cost_complexity_path
    from engine.tree import Tree

    if args.algorithm not in (None, "cart"):
        raise ArborError(
            f"path is CART's cost-complexity pruning path; {NAMES[args.algorithm]} "
            "has none (leave out --algorithm, or use --algorithm cart)"
        )
    args.algorithm = "cart"
    table, settings, data = _prepare(args, load, learner)
    data = weighted_by_class(data, settings)  # as a fit grows it
    full = Tree(grow(data, replace(settings, prune="none")), data.schema)
    measure = settings.ccp_measure
    path = cost_complexity_path(full, measure)
    result = {
        "algorithm": "cart",
        "criterion": settings.criterion,
        "ccp_measure": measure,
        "n_nodes": full.n_nodes,
        "alphas": path.alphas.tolist(),
        "impurities": path.impurities.tolist(),
        "n_leaves": path.n_leaves.tolist(),
    }
    impurity = "squared error" if settings.criterion == "squared_error" else settings.criterion
    if measure == "errors":
        root = float(path.impurities[-1])  # the root alone: its errors
        cps = path.alphas / root if root > 0 else 0.0 * path.alphas
        result["errors"] = result.pop("impurities")
        result["cp"] = cps.tolist()
        wrong = "squared errors" if full.is_regression else "misclassified rows"
        lines = [
            f"CART's cost-complexity pruning path in errors (grown on {impurity}; the unpruned "
            f"tree has {full.n_leaves} leaves). Errors: the leaves' {wrong}, weighted; cp: "
            "alpha over the root's errors, as rpart's cp table.",
            "",
            f"{'alpha':>14}{'errors':>14}{'leaves':>8}{'cp':>12}",
        ]
        lines += [
            f"{a:>14.6g}{i:>14.6g}{n:>8d}{c:>12.6g}"
            for a, i, n, c in zip(path.alphas, path.impurities, path.n_leaves, cps, strict=True)
        ]
    else:
        lines = [
            f"CART's cost-complexity pruning path ({impurity}; the unpruned tree has "
            f"{full.n_leaves} leaves). Impurity: the leaves' {impurity}, weighted by their "
            "share of the rows.",
            "",
            f"{'alpha':>14}{'impurity':>14}{'leaves':>8}",
        ]
        lines += [
            f"{a:>14.6g}{i:>14.6g}{n:>8d}"
            for a, i, n in zip(path.alphas, path.impurities, path.n_leaves, strict=True)
        ]
    if settings.cv_alpha:
        choice = choose_alpha(full, data, settings)
        result["cv"] = choice.as_dict()
        lines += [
            "",
            f"{settings.cv_alpha}-fold CV error per alpha:",
            f"{'alpha':>14}{'leaves':>8}{'cv error':>12}{'se':>10}",
        ]
        lines += [
            f"{a:>14.6g}{n:>8d}{e:>12.4f}{s:>10.4f}"
            for a, n, e, s in zip(
                choice.alphas, choice.n_leaves, choice.cv_error, choice.cv_se, strict=True
            )
        ]
        lines.append(
            f"minimum error: alpha = {choice.min_alpha:.6g}; "
            f"one standard error: alpha = {choice.one_se_alpha:.6g}"
        )
    return result, "\n".join(lines)
