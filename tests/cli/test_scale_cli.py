"""train, predict and evaluate with --engine dask, on a scheduler given by --scheduler (a
cluster in this process): the same tree as in memory with the histogram splitter, Parquet
predictions, a held-out evaluation, and one-line errors that start no cluster."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from cli.main import main

pytest.importorskip("distributed")


@pytest.fixture(scope="module")
def scheduler():
    from distributed import LocalCluster

    with LocalCluster(
        n_workers=1, threads_per_worker=1, processes=False, protocol="tcp", dashboard_address=None
    ) as local:
        yield local.scheduler_address


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    path = tmp_path_factory.mktemp("parts")
    rng = np.random.default_rng(5)
    X = rng.normal(size=(9000, 3))
    df = pd.DataFrame(X, columns=["a", "b", "c"])
    df["cls"] = np.where(
        X[:, 0] + X[:, 1] * X[:, 2] + rng.normal(scale=0.4, size=9000) > 0, "yes", "no"
    )
    for k in range(3):
        df.iloc[k * 3000 : (k + 1) * 3000].to_parquet(path / f"part.{k}.parquet")
    df.to_csv(tmp_path_factory.mktemp("whole") / "whole.csv", index=False)
    return path


def _run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_train_gives_the_in_memory_histogram_tree(capsys, scheduler, folder):
    options = [
        "--algorithm",
        "cart",
        "--prune",
        "none",
        "--max-depth",
        "4",
        "--splitter",
        "histogram",
    ]
    code, out, err = _run(
        capsys,
        "train",
        str(folder),
        "--engine",
        "dask",
        "--scheduler",
        scheduler,
        "--json",
        *options,
    )
    assert code == 0, err
    got = json.loads(out)
    code, out, err = _run(
        capsys, "train", str(folder.parent / "whole0" / "whole.csv"), "--json", *options
    )
    want = json.loads(out)
    del got["tree"]["settings"]["cv_alpha"], want["tree"]["settings"]["cv_alpha"]  # see notes
    assert got["tree"] == want["tree"]
    assert got["train_accuracy"] == pytest.approx(want["train_accuracy"])
    assert got["partitions"]["rows"] == 9000 and got["partitions"]["partitions"] == 3


def test_predict_writes_parquet_partitions(capsys, scheduler, folder, tmp_path):
    model = tmp_path / "model.json"
    code, _, err = _run(
        capsys,
        "train",
        str(folder),
        "--engine",
        "dask",
        "--scheduler",
        scheduler,
        "--algorithm",
        "c45",
        "--max-depth",
        "3",
        "--save",
        str(model),
    )
    assert code == 0, err
    code, out, err = _run(
        capsys,
        "predict",
        str(model),
        str(folder),
        "--engine",
        "dask",
        "--scheduler",
        scheduler,
        "--output",
        str(tmp_path / "out"),
        "--json",
    )
    assert code == 0, err
    assert json.loads(out)["n"] == 9000
    written = pd.read_parquet(tmp_path / "out")
    assert len(written) == 9000 and set(written.iloc[:, -1]) <= {"yes", "no"}


def test_evaluate_holds_out_the_rest_of_the_rows(capsys, scheduler, folder):
    code, out, err = _run(
        capsys,
        "evaluate",
        str(folder),
        "--engine",
        "dask",
        "--scheduler",
        scheduler,
        "--split",
        "70",
        "--algorithm",
        "cart",
        "--json",
    )
    assert code == 0, err
    result = json.loads(out)
    trained = result["partitions"]["rows"] + result["partitions"]["held_out_rows"]
    assert 0.65 * 9000 < trained < 0.75 * 9000
    assert trained + result["n"] == 9000  # the test share is every other row


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["train", "--sample", "iris"], "a bundled sample fits in memory"),
        (["train", "/no/such/folder"], "no such file or folder"),
        (["predict", "model.json", "x.parquet"], "give --output FOLDER"),
        (["evaluate", "x.parquet"], "give --split PCT"),
    ],
)
def test_bad_input_is_one_line_before_any_cluster(capsys, argv, message, monkeypatch):
    import engine.scale.cluster as cluster

    def refuse(*a, **k):
        raise AssertionError("a cluster was started")

    monkeypatch.setattr(cluster, "Cluster", refuse)
    code, out, err = _run(capsys, *argv, "--engine", "dask")
    assert code == 2 and message in err and len(err.strip().splitlines()) == 1


@pytest.mark.slow
def test_a_local_cluster_starts_and_closes_quietly(folder):
    """Closing the local cluster's worker processes printed their tracebacks (a heartbeat or
    a transfer cut by the shutdown): stderr holds the cluster's line and nothing else. Slow
    (about 9 s of CPU: a fresh process and its worker processes each import Arbor and load
    the kernels); only real worker processes print on their way out: run with -m slow."""
    root = Path(__file__).resolve().parents[2]
    env = dict(
        os.environ,
        PYTHONPATH=os.pathsep.join(p for p in (str(root), os.environ.get("PYTHONPATH")) if p),
    )
    env.pop("ARBOR_DASK_SCHEDULER", None)
    out = subprocess.run(
        [
            sys.executable,
            str(root / "main.py"),
            "train",
            str(folder),
            "--engine",
            "dask",
            "--max-depth",
            "3",
        ],
        cwd=root,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert out.returncode == 0, out.stderr
    assert "Traceback" not in out.stderr and "ERROR" not in out.stderr, out.stderr
    assert len(out.stderr.strip().splitlines()) == 1, out.stderr
    assert (
        out.stderr.startswith("arbor train: Dask cluster at tcp://") and "C4.5 tree" in out.stdout
    )
