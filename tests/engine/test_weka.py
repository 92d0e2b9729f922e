"""C4.5 and ID3 against Weka 3.6 (J48, Id3): recorded outputs, plus a live run when Weka is installed.

The recorded fixtures (tests/fixtures/weka/recorded.json, made by record.py) let
every machine check equality; the live tests re-run Weka itself where it exists.
"""

import functools
import json
import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from engine.data.arff import read_arff
from engine.estimator import DecisionTree
from engine.export.text import to_text

HERE = Path(__file__).resolve().parents[1] / "fixtures" / "weka"
RECORDED = json.loads((HERE / "recorded.json").read_text())["datasets"]
NAMES = sorted(RECORDED)
ID3_NAMES = sorted(n for n in NAMES if "id3" in RECORDED[n])
WEKA_JAR = Path("/usr/share/java/weka.jar")

#: Every fit here grows on the compiled kernels (the code that grows real trees), which
#: the fixture checks; it waits for their one-time compilation if need be.
pytestmark = pytest.mark.usefixtures("compiled_builder")


@functools.cache
def table(name):
    """The data set's table, read once for all the tests here (they only fit and predict)."""
    return read_arff(HERE / RECORDED[name]["arff"])


@pytest.mark.parametrize("name", NAMES)
def test_unpruned_c45_equals_j48_minus_u(name):
    expected = RECORDED[name]["j48_unpruned"]
    tree = DecisionTree(algorithm="c45", prune="none").fit(table(name)).tree_
    assert (tree.n_leaves, tree.n_nodes) == (expected["n_leaves"], expected["size"])


@pytest.mark.parametrize("name", NAMES)
def test_pruned_c45_equals_j48(name):
    expected = RECORDED[name]["j48"]
    tree = DecisionTree(algorithm="c45").fit(table(name)).tree_
    assert (tree.n_leaves, tree.n_nodes) == (expected["n_leaves"], expected["size"])


@pytest.mark.parametrize("name", NAMES)
def test_pruning_options_equal_j48(name):
    t = table(name)
    for key, params in (
        ("j48_no_raising", {"subtree_raising": False}),
        ("j48_c01", {"confidence": 0.1}),
    ):
        expected = RECORDED[name][key]
        tree = DecisionTree(algorithm="c45", **params).fit(t).tree_
        assert (tree.n_leaves, tree.n_nodes) == (expected["n_leaves"], expected["size"]), key


@pytest.mark.parametrize("name", ["weather.nominal", "weather.numeric", "iris", "contact-lenses"])
def test_small_trees_print_like_j48(name):
    for key, prune in (("j48_unpruned", "none"), ("j48", "pessimistic")):
        tree = DecisionTree(algorithm="c45", prune=prune).fit(table(name)).tree_
        assert to_text(tree).strip() == RECORDED[name][key]["tree"].strip()


def _weka_id3_text(ours: str) -> str:
    """Our text in Weka Id3's dialect: two-space bars, no counts, empty leaves as null."""
    lines = []
    for line in ours.splitlines():
        line = line.replace("|   ", "|  ")
        line = re.sub(r": (\S+) \(0\.0\)$", ": null", line)
        lines.append(re.sub(r" \([\d./]+\)$", "", line))
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("name", ID3_NAMES)
def test_id3_equals_weka_id3(name):
    t = table(name)
    model = DecisionTree(algorithm="id3").fit(t)
    assert _weka_id3_text(to_text(model.tree_)) == RECORDED[name]["id3"]["tree"]
    assert model.predict(t).tolist() == RECORDED[name]["id3"]["train_predictions"]


live = pytest.mark.skipif(
    not (WEKA_JAR.exists() and shutil.which("java")),
    reason="Weka (Debian package weka) is not installed",
)


@live
@pytest.mark.weka
@pytest.mark.parametrize("name", ["synth-mixed", "glass"])
def test_live_j48_run(name, tmp_path):
    path = HERE / RECORDED[name]["arff"]
    out = subprocess.run(
        ["java", "-cp", str(WEKA_JAR), "weka.classifiers.trees.J48", "-t", str(path), "-no-cv"],
        capture_output=True,
        text=True,
        timeout=120,
    ).stdout
    leaves = int(re.search(r"Number of Leaves\s*:\s*(\d+)", out).group(1))
    size = int(re.search(r"Size of the tree\s*:\s*(\d+)", out).group(1))
    tree = DecisionTree(algorithm="c45").fit(table(name)).tree_
    assert (tree.n_leaves, tree.n_nodes) == (leaves, size)


@live
@pytest.mark.weka
def test_live_j48_on_fresh_random_data(tmp_path):
    import pandas as pd

    from engine.data.io import write_table
    from engine.data.table import make_table

    rng = np.random.default_rng(2024)
    n = 400
    frame = pd.DataFrame(
        {
            "x": np.round(rng.normal(size=n), 2),
            "z": np.round(rng.uniform(0, 10, n), 1),
            "c": rng.choice(list("pqrs"), n),
            "d": rng.choice(["u", "v"], n),
        }
    )
    score = frame.x + (frame.c == "q") - 0.2 * frame.z + rng.normal(0, 0.5, n)
    frame["y"] = np.where(score > -0.5, "hi", "lo")
    frame.loc[rng.random(n) < 0.05, "x"] = np.nan
    t = make_table(frame, categories={"y": ["hi", "lo"]})
    path = tmp_path / "fresh.arff"
    write_table(t, path)
    for opts, prune in ((["-U"], "none"), ([], "pessimistic")):
        out = subprocess.run(
            [
                "java",
                "-cp",
                str(WEKA_JAR),
                "weka.classifiers.trees.J48",
                *opts,
                "-t",
                str(path),
                "-no-cv",
            ],
            capture_output=True,
            text=True,
            timeout=120,
        ).stdout
        leaves = int(re.search(r"Number of Leaves\s*:\s*(\d+)", out).group(1))
        size = int(re.search(r"Size of the tree\s*:\s*(\d+)", out).group(1))
        tree = DecisionTree(algorithm="c45", prune=prune).fit(read_arff(path)).tree_
        assert (tree.n_leaves, tree.n_nodes) == (leaves, size)
