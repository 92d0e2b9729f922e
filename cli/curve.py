"""The ``curve`` sub-command: a learning curve, or bias and variance against tree size."""

from __future__ import annotations

from engine.data.encoding import encode
from engine.errors import ArborError
from engine.estimator import check_trainable

#: Each mode's own options, and their defaults (None on the parser: "not given").
LEARNING = {"folds": 5, "steps": 8}
BIAS_VARIANCE = {
    "vary": "depth",
    "values": None,
    "resampling": "bootstrap",
    "resamples": 20,
    "keep_pruning": False,
}


def _own_options(args, mine: dict, theirs: dict, flag: str) -> dict:
    """``mine`` filled from ``args``; an option of the other mode given is refused."""
    for name in theirs:
        if getattr(args, name, None) is not None:
            raise ArborError(f"--{name.replace('_', '-')} is not an option of {flag}")
    return {
        name: default if getattr(args, name, None) is None else getattr(args, name)
        for name, default in mine.items()
    }


def parse_values(text: str) -> list[int]:
    """``--values 1,2,4`` as whole numbers.

    >>> parse_values("1, 2,4")
    [1, 2, 4]
    """
    try:
        values = [int(v) for v in text.split(",") if v.strip()]
    except ValueError:
        raise ArborError(
            f"--values takes whole numbers separated by commas, not {text!r}"
        ) from None
    if not values:
        raise ArborError("--values needs at least one number")
    return values


def curve_command(args, load, learner):
    table = load(args)
    settings = learner(args).settings()
    data = encode(table, settings.task)
    check_trainable(data, settings)
    if args.learning:
        from engine.evaluate.learning_curve import learning_curve

        options = _own_options(args, LEARNING, BIAS_VARIANCE, "--learning")
        curve = learning_curve(data, settings, options["folds"], options["steps"], settings.seed)
        return curve.as_dict(), learning_text(curve)
    from engine.evaluate.bias_variance import bias_variance

    options = _own_options(args, BIAS_VARIANCE, LEARNING, "--bias-variance")
    values = parse_values(options["values"]) if options["values"] else None
    result = bias_variance(
        data,
        settings,
        options["vary"],
        values,
        options["resampling"],
        options["resamples"],
        settings.seed,
        keep_pruning=options["keep_pruning"],
    )
    return result.as_dict(), bias_variance_text(result)


def _figure(value: float, measure: str) -> str:
    return f"{value:.4g}" if measure == "RMSE" else f"{100 * value:.2f}%"


def learning_text(curve) -> str:
    m = curve.measure
    lines = [
        f"Learning curve: {m} against training rows, over {curve.folds} cross-validation "
        f"folds (seed {curve.seed}; ± is the spread over the folds)",
        "",
        f"{'rows':>8}{'training':>22}{'cross-validated':>22}",
    ]
    for size, tm, ts, vm, vs in zip(
        curve.sizes,
        curve.training_mean,
        curve.training_std,
        curve.validation_mean,
        curve.validation_std,
        strict=True,
    ):
        lines.append(
            f"{size:>8,}{_figure(tm, m) + ' ± ' + _figure(ts, m):>22}"
            f"{_figure(vm, m) + ' ± ' + _figure(vs, m):>22}"
        )
    lines += [
        "",
        "Seed 004: the gap between the curves is variance (error due to lack of data); "
        "the level they approach is bias and noise.",
    ]
    return "\n".join(lines)


def bias_variance_text(bv) -> str:
    zero_one = bv.loss == "0-1 loss"
    noise = "c1*noise" if zero_one else "noise"
    bias = "bias" if zero_one else "bias^2"
    variance = "net var" if zero_one else "variance"
    lines = [
        f"Bias and variance ({bv.loss}) against max {bv.parameter}: {bv.resamples} "
        f"{'bootstrap samples' if bv.resampling == 'bootstrap' else 'fold training parts'} of "
        f"{bv.train_rows:,} training rows, tested on {bv.test_rows:,} held-out rows "
        f"(seed {bv.seed})",
        "",
        f"{'max ' + bv.parameter:>12}{'error':>10}{noise:>10}{bias:>10}{variance:>10}",
    ]
    columns = [bv.column(k) for k in ("error", "noise_term", "bias", "variance")]
    for k, value in enumerate(bv.values):
        mark = "  <- the chosen tree" if value == _nearest(bv.values, bv.chosen) else ""
        lines.append(f"{value:>12}" + "".join(f"{c[k]:>10.4f}" for c in columns) + mark)
    lines.append("")
    lines.append(
        f"The chosen tree (your options) has depth {bv.chosen_depth} and {bv.chosen_leaves} leaves."
    )
    lines.append(pruning_note(bv))
    if bv.noise_rows:
        lines.append(
            f"Noise is estimated from the {bv.noise_rows:,} test rows whose attribute values "
            "other test rows share; the others count as noise-free, their noise in the bias."
        )
    else:
        lines.append(
            "No test row repeats another's attribute values, so noise cannot be told apart: "
            "it is counted in the bias."
        )
    if zero_one:
        lines.append(
            "Domingos' terms: error = c1*noise + bias + net variance; net variance = "
            "unbiased variance - biased variance."
        )
    lines.append(
        "Seed 004: bias (representation bias: too simple a model; search bias: not enough "
        "search), variance (error due to lack of data), noise; the bias-variance trade-off."
    )
    return "\n".join(lines)


def pruning_note(bv) -> str:
    """Whether the swept trees were pruned: the sizes mean something else if they were."""
    if bv.keep_pruning:
        return (
            "Each size's trees are pruned as your options say (--keep-pruning): pruning may "
            "cut several sizes back to the same tree."
        )
    return (
        f"Each size's trees are grown unpruned, so max {bv.parameter} is their complexity "
        "(--keep-pruning: prune them as your options say)."
    )


def _nearest(values, target: int) -> int:
    return min(values, key=lambda v: (abs(v - target), v))
