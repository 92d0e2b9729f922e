"""The ``evaluate`` and ``path`` sub-commands."""

from __future__ import annotations

from engine.data.encoding import encode, encode_like
from engine.errors import ArborError
from engine.estimator import check_trainable
from engine.evaluate.evaluation import cross_validate, evaluate_tree, holdout_evaluate
from engine.evaluate.report import evaluation_text
from engine.fitting import fit_tree

NAMES = {"id3": "ID3", "c45": "C4.5", "cart": "CART"}


def _prepare(args, load, learner):
    """The table, validated settings and encoded data every learning command starts from."""
    table = load(args)
    settings = learner(args).settings()
    data = encode(table, settings.task)
    check_trainable(data, settings)
    return table, settings, data


def evaluate_command(args, load, learner):
    table, settings, data = _prepare(args, load, learner)
    seed = settings.seed
    if args.weka_folds and (args.test or args.split):
        raise ArborError(
            "--weka-folds chooses cross-validation folds; it does not go with --test or --split"
        )
    if args.test:
        from engine.data.io import read_table

        test_table = read_table(args.test, target=table.target)
        tree = fit_tree(data, settings)
        test = encode_like(test_table, data.schema)
        ev = evaluate_tree(tree, test, f"test set {args.test}", settings.algorithm)
    elif args.split:
        ev = holdout_evaluate(data, settings, args.split, seed)
    else:
        ev = cross_validate(data, settings, args.folds, seed, weka_folds=args.weka_folds)
    return ev.as_dict(), evaluation_text(ev, table.target)


def path_command(args, load, learner):
    from dataclasses import replace

    from engine.growth import grow
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
    full = Tree(grow(data, replace(settings, prune="none")), data.schema)
    path = cost_complexity_path(full)
    result = {
        "algorithm": "cart",
        "criterion": settings.criterion,
        "n_nodes": full.n_nodes,
        "alphas": path.alphas.tolist(),
        "impurities": path.impurities.tolist(),
        "n_leaves": path.n_leaves.tolist(),
    }
    impurity = "squared error" if settings.criterion == "squared_error" else settings.criterion
    lines = [
        f"CART's cost-complexity pruning path ({impurity}; the unpruned tree has "
        f"{full.n_leaves} leaves). Impurity: the leaves' {impurity}, weighted by their share "
        "of the rows.",
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
