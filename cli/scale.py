"""``train``, ``predict`` and ``evaluate`` with ``--engine dask``: over partitions, on a cluster.

DATA is a Parquet file, a folder of Parquet files, or a glob of Parquet or CSV files. The
cluster is the scheduler of ``--scheduler`` (or ``ARBOR_DASK_SCHEDULER``), else a local one
started for the command and closed after it.
"""

from __future__ import annotations

import sys
from types import SimpleNamespace

from engine.errors import ArborError
from engine.settings import ALGORITHM_LABELS

TITLES = ALGORITHM_LABELS


def _names(text: str) -> list[str]:
    return [n.strip() for n in (text or "").split(",") if n.strip()]


def _location(args) -> str:
    if getattr(args, "sample", None):
        raise ArborError(
            "--engine dask reads Parquet or CSV files (a file, a folder or a glob); "
            "a bundled sample fits in memory: leave out --engine dask"
        )
    if not args.data:
        raise ArborError(
            "no data: give a Parquet file, a folder of them, or a glob of Parquet or CSV files"
        )
    return args.data


def _cluster(args):
    from engine.compiling.lifecycle import wait_until_compiled
    from engine.monitor import Monitor
    from engine.scale.cluster import Cluster

    # The kernels compiled (or loaded) before the workers start, so that a local cluster's
    # workers load them from this machine's folder instead of each compiling them.
    wait_until_compiled(Monitor())
    cluster = Cluster(args.scheduler)
    where = cluster.dashboard or "no dashboard"
    print(
        f"arbor {args.command}: Dask cluster at {cluster.shown_address} with "
        f"{cluster.n_workers} worker(s); dashboard: {where}",
        file=sys.stderr,
        flush=True,
    )
    return cluster


def _layout(args):
    """The files and columns of DATA, read before a cluster starts (a bad path costs nothing)."""
    from engine.scale.source import describe

    return describe(_location(args))


def _scan(args, layout, cluster):
    from engine.scale.source import scan

    return scan(
        layout,
        cluster.map,
        args.target,
        _names(args.nominal),
        _names(args.numeric),
        _names(args.ignore),
    )


def _partitions_line(facts) -> str:
    kept = (
        "kept in the workers' memory"
        if facts.kept_in_memory
        else "read once, kept as codes, values on the workers' disks"
    )
    return (
        f"Trained over partitions: {facts.rows:,} rows in {facts.partitions:,} partition(s), "
        f"{facts.passes} passes, {facts.workers} worker(s) at {facts.scheduler} "
        f"(rows {kept}; {facts.seconds:.1f} s)"
    )


def train(args, learner, export_all):
    from engine.export.model_json import tree_to_dict
    from engine.export.text import summary, to_text
    from engine.scale.predicting import score_partitions
    from engine.scale.tasks import Selection
    from engine.scale.training import fit_partitions

    if args.rules:
        raise ArborError(
            "--rules generalises the rules on the training rows, which stay on the "
            "cluster with --engine dask; export --python, --pmml or --dot instead"
        )
    settings = learner(args).settings()
    layout = _layout(args)
    with _cluster(args) as cluster:
        dataset = _scan(args, layout, cluster)
        tree, facts = fit_partitions(dataset, settings, cluster)
        settings = facts.settings
        ev = score_partitions(
            tree, dataset, cluster, Selection(role="all"), "training set", settings.algorithm
        )
    result = {"n_nodes": tree.n_nodes, "n_leaves": tree.n_leaves, "depth": tree.depth}
    if tree.is_regression:
        result["train_rmse"] = ev.rmse
        score_line = f"Training RMSE: {ev.rmse:.4f}"
    else:
        result["train_accuracy"] = ev.accuracy
        score_line = f"Training accuracy: {100 * ev.accuracy:.2f}%"
    notes = list(facts.notes)
    if facts.alpha is not None and settings.alpha is None:
        notes.append(f"alpha {facts.alpha:.6g} chosen on {facts.held_out_rows:,} held-out rows")
    result["notes"] = notes
    result["partitions"] = facts.as_dict()
    result["tree"] = tree_to_dict(tree, settings)
    model = SimpleNamespace(tree_=tree, settings_=settings)
    exported = export_all(args, model, None)
    title = TITLES[settings.algorithm]
    pruned = "" if settings.prune == "none" else f" ({settings.prune} pruning)"
    header = f"{title} tree{pruned}\n{'-' * len(title + ' tree' + pruned)}\n\n"
    noted = "".join(f"Note: {n}\n" for n in notes)
    written = "".join(f"Wrote {p}\n" for p in exported)
    text = (
        f"{header}{to_text(tree)}\n{summary(tree)}\n{score_line}\n{_partitions_line(facts)}\n"
        f"{noted}{written}"
    )
    return result, text


def predict(args):
    from engine.export.model_json import load_model
    from engine.scale.predicting import dataset_for, predict_partitions

    if not args.output:
        raise ArborError(
            "--engine dask writes the predictions as Parquet partitions: give --output FOLDER"
        )
    tree, settings = load_model(args.model)
    algorithm = settings.algorithm if settings is not None else None
    layout = _layout(args)
    dataset = dataset_for(layout, tree.schema)
    with _cluster(args) as cluster:
        rows = predict_partitions(tree, dataset, cluster, args.output, algorithm)
    result = {"n": rows, "output": args.output, "partitions": dataset.n_partitions}
    return result, (
        f"Wrote the predictions of {rows:,} rows to {args.output} "
        f"({dataset.n_partitions:,} Parquet partition(s))"
    )


def evaluate(args, learner):
    from engine.evaluate.report import evaluation_text
    from engine.scale.predicting import score_partitions
    from engine.scale.tasks import Selection
    from engine.scale.training import fit_partitions

    if args.test or args.weka_folds or not args.split:
        raise ArborError(
            "--engine dask evaluates on a held-out share of the rows: give "
            "--split PCT (the percentage trained on)"
        )
    if not 0 < args.split < 100:
        raise ArborError("the training percentage must be between 0 and 100")
    settings = learner(args).settings()
    share = args.split / 100
    layout = _layout(args)
    with _cluster(args) as cluster:
        dataset = _scan(args, layout, cluster)
        tree, facts = fit_partitions(dataset, settings, cluster, train_share=share)
        test = Selection(settings.seed, share, 0.0, "test")
        ev = score_partitions(
            tree,
            dataset,
            cluster,
            test,
            f"{args.split:g}% train / rest test (over partitions)",
            settings.algorithm,
            notes=facts.notes,
        )
    out = ev.as_dict()
    out["partitions"] = facts.as_dict()
    return out, evaluation_text(ev, dataset.target.name) + "\n" + _partitions_line(facts)
