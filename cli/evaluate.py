"""The ``evaluate`` and ``path`` sub-commands."""

from __future__ import annotations

import numpy as np

from engine.data.encoding import encode, encode_columns
from engine.estimator import check_trainable
from engine.evaluate.evaluation import Evaluation, cross_validate, evaluate_tree, holdout_evaluate
from engine.fitting import fit_tree


def _text(ev: Evaluation, target: str) -> str:
    lines = [f"=== {ev.method} ({ev.n:g} instances) ==="]
    if ev.classes is None:
        lines += [f"RMSE: {ev.rmse:.4f}", f"MAE:  {ev.mae:.4f}", f"R^2:  {ev.r2:.4f}"]
        return "\n".join(lines)
    lines += [
        f"Accuracy: {100 * ev.accuracy:.2f}%  (+/- {100 * ev.accuracy_std:.2f} across folds)",
        f"Kappa:    {ev.kappa:.4f}",
        "",
        f"{'class':<16}{'precision':>10}{'recall':>10}{'F1':>10}",
    ]
    for c, p, r, f in zip(ev.classes, ev.precision, ev.recall, ev.f1, strict=True):
        lines.append(f"{c[:15]:<16}{p:>10.3f}{r:>10.3f}{f:>10.3f}")
    width = max(8, *(len(c) + 1 for c in ev.classes))
    lines += ["", f"Confusion matrix (rows: actual {target}, columns: predicted)"]
    lines.append(" " * width + "".join(f"{c:>{width}}" for c in ev.classes))
    for c, row in zip(ev.classes, ev.confusion, strict=True):
        lines.append(f"{c:>{width}}" + "".join(f"{v:>{width}g}" for v in row))
    return "\n".join(lines)


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
    if args.test:
        from engine.data.io import read_table

        test_table = read_table(args.test, target=table.target)
        tree = fit_tree(data, settings)
        test = encode(test_table, settings.task)
        # Encode the test rows against the training schema so codes line up.
        from dataclasses import replace

        X = encode_columns(test_table.frame.loc[test_table.frame[table.target].notna()],
                           data.schema.attributes)
        if not data.schema.is_regression:
            lookup = {c: i for i, c in enumerate(data.schema.classes)}
            y = np.array([lookup.get(test.schema.classes[k], -1) for k in test.y])
            keep = y >= 0
            test = replace(test, schema=data.schema, X=np.asfortranarray(X[keep]), y=y[keep],
                           weight=test.weight[keep])
        else:
            test = replace(test, schema=data.schema, X=np.asfortranarray(X))
        ev = evaluate_tree(tree, test, f"test set {args.test}")
    elif args.split:
        ev = holdout_evaluate(data, settings, args.split, seed)
    else:
        ev = cross_validate(data, settings, args.folds, seed)
    return ev.as_dict(), _text(ev, table.target)


def path_command(args, load, learner):
    from dataclasses import replace

    from engine.evaluate.alpha import choose_alpha
    from engine.learn.growth import grow
    from engine.prune.cost_complexity import cost_complexity_path
    from engine.tree import Tree

    table, settings, data = _prepare(args, load, learner)
    full = Tree(grow(data, replace(settings, prune="none")), data.schema)
    path = cost_complexity_path(full)
    result = {"alphas": path.alphas.tolist(), "impurities": path.impurities.tolist(),
              "n_leaves": path.n_leaves.tolist()}
    lines = [f"{'alpha':>14}{'impurity':>14}{'leaves':>8}"]
    lines += [f"{a:>14.6g}{i:>14.6g}{n:>8d}"
              for a, i, n in zip(path.alphas, path.impurities, path.n_leaves, strict=True)]
    if settings.cv_alpha:
        choice = choose_alpha(full, data, settings)
        result["cv"] = choice.as_dict()
        lines += ["", f"{settings.cv_alpha}-fold CV error per alpha:",
                  f"{'alpha':>14}{'leaves':>8}{'cv error':>12}{'se':>10}"]
        lines += [f"{a:>14.6g}{n:>8d}{e:>12.4f}{s:>10.4f}"
                  for a, n, e, s in zip(choice.alphas, choice.n_leaves, choice.cv_error,
                                        choice.cv_se, strict=True)]
        lines.append(f"minimum error: alpha = {choice.min_alpha:.6g}; "
                     f"one standard error: alpha = {choice.one_se_alpha:.6g}")
    return result, "\n".join(lines)
