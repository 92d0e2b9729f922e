"""What each sub-command does: load, call the engine, return (JSON dict, human text)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

from engine.data.encoding import encode
from engine.data.table import IGNORED, NOMINAL, NUMERIC, Table
from engine.errors import ArborError
from engine.estimator import DecisionTree
from engine.settings import ALGORITHM_LABELS, OPTIONS

LEARNER_OPTIONS = tuple(o.name for o in OPTIONS)


def _names(text: str) -> list[str]:
    return [n.strip() for n in text.split(",") if n.strip()]


def load(args: argparse.Namespace) -> Table:
    from engine.data.io import read_table
    from engine.data.samples import load_sample

    kinds = {n: NOMINAL for n in _names(args.nominal)}
    kinds.update({n: NUMERIC for n in _names(args.numeric)})
    kinds.update({n: IGNORED for n in _names(args.ignore)})
    if args.sample and args.data:
        raise ArborError("give either a DATA file or --sample, not both")
    if args.sample:
        table = load_sample(args.sample)
        if args.target:
            table = table.with_target(args.target)
        return table.with_kinds(**kinds) if kinds else table
    if not args.data:
        raise ArborError("no data: give a DATA file or --sample NAME")
    return read_table(
        args.data,
        target=args.target,
        nominal=_names(args.nominal),
        numeric=_names(args.numeric),
        ignored=_names(args.ignore),
    )


def learner_params(args: argparse.Namespace) -> dict:
    """The learner options given on the command line; ``--costs FILE`` as the file's text."""
    params = {k: getattr(args, k) for k in LEARNER_OPTIONS if getattr(args, k, None) is not None}
    if params.get("costs"):
        path = Path(params["costs"])
        try:
            params["costs"] = path.read_text(encoding="utf-8-sig")
        except OSError as err:
            raise ArborError(f"cannot read the cost matrix {str(path)!r}: {err.strerror}") from None
    return params


def learner(args: argparse.Namespace) -> DecisionTree:
    return DecisionTree(**learner_params(args))


def train(args):
    from engine.export.model_json import tree_to_dict
    from engine.export.text import summary, to_text

    if args.engine == "dask":
        from cli import scale

        return scale.train(args, learner, export_all)
    table = load(args)
    model = learner(args)
    # Encoded once for the fit and the training score (its rows are those with a target):
    # a wide table's encoding costs as much as its fit.
    data = encode(table, model.settings().task)
    model.fit(data)
    tree = model.tree_
    result = {"n_nodes": tree.n_nodes, "n_leaves": tree.n_leaves, "depth": tree.depth}
    predictions = model.predict(data)
    if tree.is_regression:
        err = predictions - data.y
        result["train_rmse"] = float(np.sqrt(np.mean(err**2)))
        score_line = f"Training RMSE: {result['train_rmse']:.4f}"
    else:
        correct = predictions == model.classes_[data.y]
        result["train_accuracy"] = float(correct.mean())
        score_line = f"Training accuracy: {100 * result['train_accuracy']:.2f}%"
    result["notes"] = list(model.notes_)
    result["tree"] = tree_to_dict(tree, model.settings_)
    exported = export_all(args, model, table)
    title = ALGORITHM_LABELS[model.settings_.algorithm]
    pruned = "" if model.settings_.prune == "none" else f" ({model.settings_.prune} pruning)"
    header = f"{title} tree{pruned}\n{'-' * len(title + ' tree' + pruned)}\n\n"
    notes = "".join(f"Note: {n}\n" for n in model.notes_)
    written = "".join(f"Wrote {p}\n" for p in exported)
    text = f"{header}{to_text(tree)}\n{summary(tree)}\n{score_line}\n{notes}{written}"
    return result, text


EXPORT_OPTIONS = ("rules", "dot", "pmml", "python", "html", "sql", "onnx", "image", "save")


def export_all(args, model, table) -> list[str]:
    """Write every file the command line asked for (``--save`` and the exports), all of
    them or none: each is made in memory and checked first, so that one refused (a name PMML
    cannot hold, a folder that does not exist) leaves no others written. Returns the paths
    written, with the image's note when it has one."""
    from engine.atomic import write_all_atomic

    asked = [(option, getattr(args, option, None)) for option in EXPORT_OPTIONS]
    asked = [(option, path) for option, path in asked if path]
    _refuse_one_file_twice(asked)
    files, written = [], []
    for option, path in asked:
        write, note = _output(option, path, args, model, table)
        files.append((path, write))
        written.append(path if note is None else f"{path} ({note})")
    write_all_atomic(files)
    return written


def _refuse_one_file_twice(asked: list[tuple[str, str]]) -> None:
    seen = {}
    for option, path in asked:
        key = Path(path).resolve()
        if key in seen:
            raise ArborError(
                f"--{seen[key]} and --{option} both name {path}; give each its own file"
            )
        seen[key] = option


def _output(option: str, path: str, args, model, table):
    """The function that writes ``option``'s file into the file it is given, and a note."""
    if option == "save":
        from engine.export.model_json import model_text

        text = model_text(model.tree_, model.settings_)
    elif option == "onnx":
        from engine.export import files
        from engine.export.onnx_model import MISSING_NOTE

        content = files.render(option, model, table, Path(path))
        # Said on stderr as well as after the path: it changes what the file predicts.
        print(f"arbor train: note: {MISSING_NOTE}", file=sys.stderr)
        return (lambda target: target.write_bytes(content)), "complete rows only, see the note"
    elif option != "image":
        from engine.export import files

        options = {"dialect": args.dialect} if option == "sql" else {}
        if option == "html":
            from engine.export.node_labels import NodeLabels

            options = {"labels": NodeLabels.parse(args.labels)}
        text = files.render(option, model, table, Path(path), **options)
    else:
        return _image(path, args, model, table)
    return (lambda target: target.write_text(text, encoding="utf-8")), None


def _image(path: str, args, model, table):
    # Images are painted by the canvas's own painting code (gui.drawing, no widgets), offscreen:
    # the same look as on screen, with only a QGuiApplication.
    import os

    if not 0.1 <= args.image_scale <= 10:
        raise ArborError("--image-scale must be between 0.1 and 10")
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    try:
        from gui.drawing.image import image_writer
    except ImportError as err:
        raise ArborError(f"drawing images needs Qt and its system libraries ({err})") from None

    from engine.export.node_labels import NodeLabels
    from gui.drawing.figure_style import SCREEN

    style = SCREEN.with_labels(NodeLabels.parse(args.labels))
    return image_writer(
        model.tree_,
        path,
        scale=args.image_scale,
        transparent=args.transparent,
        style=style,
        slide=args.slide,
        plots=_plots(model, table) if style.labels.plots else None,
    )


def _plots(model, table) -> dict:
    """Every node's plot data, from the rows the model was trained on."""
    if table is None:
        raise ArborError("--labels plots needs the training rows in memory: not with --engine dask")
    from engine.data.encoding import encode
    from engine.export.node_data import nodes_data
    from gui.drawing.node_plots import THUMB_POINTS

    return nodes_data(model.tree_, encode(table, model.settings_.task), max_points=THUMB_POINTS)


def predict(args):
    from engine.export.model_json import load_model
    from engine.predict import prediction_frame, save_predictions

    if args.engine == "dask":
        from cli import scale

        return scale.predict(args)
    tree, settings = load_model(args.model)
    table = load(args)
    algorithm = settings.algorithm if settings is not None else None
    out = prediction_frame(tree, table.frame, algorithm=algorithm)
    predictions = out[f"predicted {tree.schema.target}"].tolist()
    if args.output:
        save_predictions(out, args.output, formula_guard=args.formula_guard)
    text = "\n".join(str(p) for p in predictions)
    return {"predictions": predictions, "n": len(predictions)}, text


def explain(args):
    from engine.export.labels import candidate_split, condition, number
    from engine.learn.explain import REASONS, attribute_table, node_rows, used_on_path
    from engine.learn.significance import BONFERRONI_RULE

    table = load(args)
    model = learner(args)
    settings = model.settings()
    data = encode(table, settings.task)
    rows = weights = None
    chosen = None
    used = frozenset()
    tree = None
    rule = "every row (the root)"
    node_id = args.node or 0
    if args.node is not None:
        model.fit(data)
        tree = model.tree_
        rows, weights = node_rows(tree, data, args.node, model.settings_)
        path = tree.path_to(args.node)
        node = path[-1][0]
        chosen = node.split.attribute if node.split is not None else -1
        used = used_on_path(tree, args.node)
        if len(path) > 1:
            rule = " AND ".join(condition(tree, a, b) for a, b in path[:-1])
    if args.curve is not None:
        return _curve(args, data, settings, rows, weights, node_id, rule, tree)
    rows_out = attribute_table(data, settings, rows, weights, chosen, used)
    weights = data.weight if weights is None else weights
    counts = np.bincount(
        data.y if rows is None else data.y[rows],
        weights=weights,
        minlength=len(data.schema.classes),
    )
    result = {
        "node": node_id,
        "rule": rule,
        "n": float(weights.sum()),
        "class_counts": dict(zip(data.schema.classes, counts.tolist(), strict=True)),
        "attributes": [r.as_dict() for r in rows_out],
    }
    spread = ", ".join(
        f"{c} {number(round(v, 3))}" for c, v in zip(data.schema.classes, counts, strict=True)
    )
    splits = [candidate_split(r) for r in rows_out]
    name_w = max(len("attribute"), *(len(r.name) for r in rows_out)) + 2
    split_w = max(len("split"), *(len(t) for t in splits)) + 2
    lines = [
        f"Node {node_id}: {rule}",
        f"{number(round(float(weights.sum()), 3))} rows ({spread})",
        "",
        f"{'attribute':<{name_w}}{'split':<{split_w}}{'entropy':>9}{'mean info':>11}"
        f"{'info gain':>11}{'split info':>12}{'gain ratio':>12}{'gini gain':>11}"
        f"{'chi2':>9}{'G':>9}{'df':>4}{'p adj':>10}",
    ]
    notes = []
    for r, words in zip(rows_out, splits, strict=True):
        mark = " *" if r.chosen else ""
        if r.reason is not None:
            notes.append(f"  {r.name}: {REASONS[r.reason]}")
            mark = " -"
        lines.append(
            f"{r.name:<{name_w}}{words:<{split_w}}{r.entropy_before:>9.3f}{r.mean_info:>11.3f}"
            f"{r.info_gain:>11.3f}{r.split_info:>12.3f}{r.gain_ratio:>12.3f}"
            f"{r.gini_gain:>11.3f}{_tests_text(r.test)}{mark}"
        )
    lines.append("* the attribute the algorithm chooses")
    lines.append(f"chi2, G: tests of the split's table against independence; {BONFERRONI_RULE}")
    if notes:
        lines += ["- cannot split this node:", *notes]
    return result, "\n".join(lines)


def _tests_text(test) -> str:
    """A row's chi-squared, G, degrees of freedom and adjusted p (of chi-squared) for ``explain``."""
    if test is None or test.df == 0:
        return f"{'-':>9}{'-':>9}{'-':>4}{'-':>10}"
    return f"{test.chi2:>9.3f}{test.g:>9.3f}{test.df:>4}{test.p_chi2_adjusted:>10.3g}"


def _curve(args, data, settings, rows, weights, node_id: int, rule: str, tree):
    """``explain --curve ATTR``: the attribute's split curve at the node, as JSON and a table."""
    from engine.learn.split_curves import LABELS, split_curve

    node_split = tree.node(node_id).split if tree is not None else None
    curve = split_curve(data, settings, args.curve, rows, weights, node_split)
    result = {"node": node_id, "rule": rule, **curve.as_dict()}
    keys = [k for k in LABELS if k in curve.values]
    cuts = list(curve.groupings) if curve.nominal else list(curve.thresholds)
    texts = [curve.cut(i) if curve.nominal else f"{c:g}" for i, c in enumerate(cuts)]
    cut_w = max(len("cut"), *(len(t) for t in texts)) + 2 if texts else 5
    heads = {
        "info_gain": "info gain",
        "gain_ratio": "gain ratio",
        "gini_gain": "gini gain",
        "mdl_gain": "MDL gain",
        "mdl_gain_ratio": "MDL ratio",
    }
    lines = [
        f"Node {node_id}: {rule}",
        f"{curve.attribute} ({'nominal' if curve.nominal else 'numeric'}): {len(curve)} "
        f"candidate {'grouping' if curve.nominal else 'cut'}{'' if len(curve) == 1 else 's'} "
        f"over {curve.n:g} rows",
        "",
        f"{'cut' if not curve.nominal else 'grouping':<{cut_w}}"
        + "".join(f"{heads[k]:>12}" for k in keys),
    ]
    for i, text in enumerate(texts):
        mark = ("  best" if i == curve.best else "") + ("  chosen" if i == curve.chosen else "")
        lines.append(
            f"{text:<{cut_w}}" + "".join(f"{curve.values[k][i]:>12.4f}" for k in keys) + mark
        )
    if not texts:
        lines.append("(no candidate split of this attribute here)")
    lines.append(
        f"best: the cut the algorithm's scorer picks ({heads[curve.criterion]}); "
        "chosen: the node's own split"
    )
    return result, "\n".join(lines)


def baseline(args):
    from engine.evaluate.baseline import baselines

    table = load(args)
    b = baselines(encode(table))
    result = {
        "n": b.n,
        "zero_r_class": b.zero_r_class,
        "zero_r_errors": b.zero_r_errors,
        "one_r_attribute": b.one_r_attribute,
        "one_r_errors": b.one_r_errors,
        "one_r_rules": [{"value": v, "class": c} for v, c in b.one_r_rules],
        "errors_by_attribute": dict(b.errors_by_attribute),
    }
    n = f"{b.n:g}"
    rules = "\n".join(
        f"  {b.one_r_attribute} {v if v[0] in '<>' else '= ' + v} -> {c}" for v, c in b.one_r_rules
    )
    text = (
        f"0-R: predict {table.target} = {b.zero_r_class}: {b.zero_r_errors:g}/{n} errors\n"
        f"1-R: on {b.one_r_attribute}: {b.one_r_errors:g}/{n} errors\n{rules}"
    )
    return result, text


def table_summary(args):
    from cli.summary import summary_command

    return summary_command(load(args))


def evaluate(args):
    from cli.evaluate import check_per_node, evaluate_command

    check_per_node(args)
    if args.engine == "dask":
        from cli import scale

        return scale.evaluate(args, learner)
    return evaluate_command(args, load, learner)


def path(args):
    from cli.evaluate import path_command

    return path_command(args, load, learner)


def curve(args):
    from cli.curve import curve_command

    return curve_command(args, load, learner)


def compile_kernels(args):
    from engine.compiling.lifecycle import compile_now
    from engine.fast import NUMBA_INSTALLED
    from engine.scale.warmup import warm_up_partitions

    if not NUMBA_INSTALLED:
        raise ArborError(
            "numba is not installed, so fits run the uncompiled search, far more slowly "
            "(pip install 'numba<0.66' to compile the fast one)"
        )
    report = compile_now(extra_warm_ups=(warm_up_partitions,))
    if not report["ok"]:
        raise ArborError(f"could not compile the fast split search: {report['reason']}")
    if report["already"]:
        text = (
            f"The fast split search is already compiled for this machine (loaded in "
            f"{report['seconds']:.1f} s).\nCache: {report['folder']}"
        )
    else:
        text = (
            f"Compiled the fast split search in {report['seconds']:.0f} s; every later fit "
            f"and run on this machine uses it.\nCache: {report['folder']}"
        )
    return report, text


def importance(args):
    from cli.evaluate import _prepare
    from cli.importance import importance_command

    return importance_command(args, load, learner, _prepare)


def diff(args):
    """ID3, C4.5, CART and the optimal tree (depth 3, or --max-depth up to 4) on one table:
    each pair's first divergence, with the scores there."""
    from engine.evaluate.side_by_side import GROWN, PRUNED, as_dict, as_text, compare

    if not 0 <= args.tolerance <= 1:
        raise ArborError("--tolerance must be between 0 and 1 (a share of the attribute's range)")
    table = load(args)
    params = learner_params(args)
    data = encode(table, params.get("task") or "classification")
    result = compare(data, params, tolerance=args.tolerance)
    if not any(g.reason is None for g in result.algorithms):
        raise ArborError("none of the algorithms can grow a tree on this table")
    return as_dict(result), as_text(result, PRUNED if args.pruned else GROWN)


def worksheet(args):
    """A worksheet's table, questions and answer key; written as a PDF when OUT is given."""
    import os

    from engine.export.worksheet import worksheet as make_worksheet

    if args.out is None and not args.json:
        raise ArborError("name the PDF to write (worksheet OUT.pdf), or ask for --json")
    ws = make_worksheet(args.seed, args.rows, args.algorithm)
    result = ws.as_dict()
    lines = [f"Worksheet: {args.algorithm}, seed {args.seed}, {result['rows']} rows"]
    if args.out is not None:
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
        try:
            from gui.drawing.worksheet_pdf import save_worksheet
        except ImportError as err:
            raise ArborError(f"writing a PDF needs Qt and its system libraries ({err})") from None
        pages = save_worksheet(ws, args.out)
        result["pdf"], result["pages"] = args.out, pages
        lines.append(f"Wrote {args.out} ({pages} pages: the questions, then the answer key)")
    lines += [f"{q['number']}. {q['text']}\n   answer: {q['answer']}" for q in ws.questions]
    return result, "\n".join(lines)


HANDLERS = {
    "train": train,
    "evaluate": evaluate,
    "importance": importance,
    "predict": predict,
    "explain": explain,
    "path": path,
    "curve": curve,
    "baseline": baseline,
    "worksheet": worksheet,
    "summary": table_summary,
    "compile": compile_kernels,
    "diff": diff,
}


def run(args: argparse.Namespace):
    return HANDLERS[args.command](args)
