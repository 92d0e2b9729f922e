"""The ``importance`` sub-command: which attributes the tree leans on."""

from __future__ import annotations

from engine.data.encoding import encode_like
from engine.errors import ArborError
from engine.evaluate.importance import (
    KINDS,
    Importance,
    cross_validated_permutation_importance,
    impurity_importance,
    permutation_importance,
)
from engine.fitting import fit_tree


def importance_command(args, load, learner, prepare):
    repeats = 5 if args.repeats is None else args.repeats
    if repeats < 1:
        raise ArborError("--repeats must be at least 1")
    if (args.test or args.repeats is not None) and not args.permutation:
        raise ArborError("--test and --repeats choose permutation importance: add --permutation")
    table, settings, data = prepare(args, load, learner)
    tree = fit_tree(data, settings)
    found = [impurity_importance(tree)]
    if args.permutation:
        if args.test:
            from engine.data.io import read_table

            held = encode_like(read_table(args.test, target=table.target), data.schema)
            found.append(
                permutation_importance(
                    tree,
                    held,
                    repeats,
                    settings.seed,
                    settings.algorithm,
                    method=f"test set {args.test}",
                )
            )
        else:
            found.append(
                cross_validated_permutation_importance(
                    data, settings, args.folds, settings.seed, repeats
                )
            )
    result = {"importances": [imp.as_dict() for imp in found]}
    return result, "\n\n".join(_text(imp, tree.is_regression) for imp in found)


def _text(imp: Importance, regression: bool) -> str:
    lines = [f"{imp.kind.capitalize()} importance: {KINDS[imp.kind]}", f"({imp.method})"]
    if imp.spread is not None:
        measure = "RMSE" if regression else "accuracy"
        score = -imp.score if regression else imp.score
        lines.append(
            f"Mean {'rise in RMSE' if regression else 'drop in accuracy'} over {imp.repeats} "
            f"shuffles, ± their standard deviation; {measure} unshuffled {score:.4f}"
        )
    width = max(len("attribute"), *(len(n) for n in imp.names)) + 2
    lines.append("")
    for j in imp.ranked():
        spread = f" ± {imp.spread[j]:.4f}" if imp.spread is not None else ""
        bar = "#" * round(40 * max(imp.values[j], 0.0) / max(max(imp.values), 1e-12))
        lines.append(f"{imp.names[j]:<{width}}{imp.values[j]:>8.4f}{spread}  {bar}".rstrip())
    return "\n".join(lines)
