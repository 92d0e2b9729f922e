"""``evaluate --per-node``: every node's training and test rows and errors (issue 32)."""

from __future__ import annotations

import json

import pytest

from cli.main import main
from engine.data.samples import load_sample

KEYS = {"id", "depth", "leaf", "train_n", "train_errors", "test_n", "test_errors"}


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def run_json(capsys, *argv):
    code, out, err = run(capsys, *argv, "--json")
    assert code == 0, err
    return json.loads(out)


def _children(nodes: list[dict]) -> dict[int, list[dict]]:
    """Each node's children, from the pre-order list and the depths."""
    children: dict[int, list[dict]] = {n["id"]: [] for n in nodes}
    spine: list[dict] = []
    for node in nodes:
        while spine and spine[-1]["depth"] >= node["depth"]:
            spine.pop()
        if spine:
            children[spine[-1]["id"]].append(node)
        spine.append(node)
    return children


def _check_adds_up(nodes: list[dict], test_rows: float, train_rows: float) -> None:
    assert all(set(n) >= KEYS for n in nodes)
    leaves = [n for n in nodes if n["leaf"]]
    assert sum(n["test_n"] for n in leaves) == pytest.approx(test_rows)
    assert sum(n["train_n"] for n in leaves) == pytest.approx(train_rows)
    assert nodes[0]["test_n"] == pytest.approx(test_rows)
    for node in nodes:
        below = _children(nodes)[node["id"]]
        if below:
            assert sum(c["test_n"] for c in below) == pytest.approx(node["test_n"])


@pytest.mark.parametrize("algorithm", ["id3", "c45", "cart"])
def test_per_node_test_counts_add_up_to_the_test_file(capsys, tmp_path, algorithm):
    frame = load_sample("weather").frame
    test_file = tmp_path / "weather-test.csv"
    frame.iloc[::2].assign(outlook=lambda f: f["outlook"].where(f.index != 4)).to_csv(
        test_file, index=False
    )  # seven rows, one missing its outlook (split down every branch)
    result = run_json(
        capsys,
        "evaluate",
        "--sample",
        "weather",
        "--algorithm",
        algorithm,
        "--test",
        str(test_file),
        "--per-node",
    )
    nodes = result["per_node"]
    _check_adds_up(nodes, 7, 14)
    assert result["n"] == 7 and result["per_node_totals"]["test_n"] == 7
    leaves = [n for n in nodes if n["leaf"]]
    totals = result["per_node_totals"]
    assert totals["test_errors"] == pytest.approx(sum(n["test_errors"] for n in leaves))
    assert totals["train_errors"] == pytest.approx(sum(n["train_errors"] for n in leaves))
    assert nodes[0]["condition"] == "" and all(n["condition"] for n in nodes[1:])
    assert all(n["predicted"] in ("yes", "no") for n in nodes)


def test_per_node_on_a_split_counts_the_rows_held_out(capsys):
    result = run_json(capsys, "evaluate", "--sample", "iris", "--split", "70", "--per-node")
    nodes = result["per_node"]
    test_rows = result["n"]
    assert test_rows == 45
    _check_adds_up(nodes, test_rows, 150 - test_rows)
    wrong = test_rows - sum(result["confusion_matrix"][k][k] for k in range(3))
    assert result["per_node_totals"]["test_errors"] == pytest.approx(wrong)
    assert result["per_node_totals"]["test_error"] == pytest.approx(1 - result["accuracy"])


def test_per_node_text_is_a_table_of_both_sides(capsys):
    code, out, _ = run(
        capsys,
        "evaluate",
        "--sample",
        "weather",
        "--algorithm",
        "id3",
        "--split",
        "66",
        "--per-node",
    )
    assert code == 0
    assert "=== Per node: training rows | 66% train / rest test ===" in out
    assert "condition -> prediction" in out and "(root)" in out
    assert "leaves: training" in out


def test_regression_per_node_gives_squared_errors(capsys):
    result = run_json(
        capsys,
        "evaluate",
        "--sample",
        "iris",
        "--target",
        "petallength",
        "--ignore",
        "class",
        "--task",
        "regression",
        "--algorithm",
        "cart",
        "--split",
        "60",
        "--per-node",
    )
    nodes = result["per_node"]
    _check_adds_up(nodes, result["n"], 150 - result["n"])
    totals = result["per_node_totals"]
    assert totals["measure"] == "RMSE" and totals["test_error"] == pytest.approx(result["rmse"])
    assert {"train_rmse", "test_rmse"} <= set(nodes[0])


@pytest.mark.parametrize(
    "argv",
    [
        ["evaluate", "--sample", "weather", "--split", "60", "--per-node", "--engine", "dask"],
        ["evaluate", "--sample", "weather", "--per-node", "--engine", "dask"],
    ],
)
def test_per_node_on_dask_is_refused_in_one_line(capsys, argv):
    code, out, err = run(capsys, *argv)
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and "--per-node" in err and "dask" in err


@pytest.mark.parametrize(
    ("argv", "classes"),
    [
        (["--sample", "iris", "--folds", "5"], 3),
        (["--sample", "weather", "--algorithm", "id3", "--weka-folds"], 2),
        (["--sample", "contact-lenses", "--algorithm", "cart"], 3),
    ],
)
def test_per_node_without_a_test_file_places_cvs_held_out_rows(capsys, argv, classes):
    result = run_json(capsys, "evaluate", *argv, "--per-node")
    nodes, totals = result["per_node"], result["per_node_totals"]
    rows = result["n"]
    # Every row is held out once: the tree trained on all of them holds them on both sides.
    _check_adds_up(nodes, rows, rows)
    assert result["per_node_test_rows"] == "cross-validation out-of-fold"
    assert "out-of-fold prediction" in result["per_node_note"]
    # The leaves' errors are the cross-validation's wrong predictions, exactly.
    wrong = rows - sum(result["confusion_matrix"][k][k] for k in range(classes))
    assert totals["test_errors"] == pytest.approx(wrong, abs=1e-9)
    assert sum(n["test_errors"] for n in nodes if n["leaf"]) == pytest.approx(wrong, abs=1e-9)
    assert totals["test_error"] == pytest.approx(1 - result["accuracy"])
    # Keeping the predictions changes nothing of the cross-validation's own figures.
    plain = run_json(capsys, "evaluate", *argv)
    assert {k: v for k, v in result.items() if not k.startswith("per_node")} == plain


def test_per_node_cv_text_says_the_rows_are_out_of_fold(capsys):
    code, out, _ = run(capsys, "evaluate", "--sample", "weather", "--per-node")
    assert code == 0
    assert "=== Per node: training rows | 10-fold cross-validation: held-out rows ===" in out
    assert "out-of-fold prediction, made by the tree of the" in out
    header = next(line for line in out.splitlines() if line.strip().startswith("training"))
    assert header.split() == ["training", "CV", "held-out"]
    assert "leaves: training 0 errors of 14 (0.00% wrong); CV held-out" in out


def test_regression_per_node_cv_gives_the_cvs_squared_errors(capsys):
    result = run_json(
        capsys,
        "evaluate",
        "--sample",
        "iris",
        "--target",
        "petallength",
        "--ignore",
        "class",
        "--task",
        "regression",
        "--algorithm",
        "cart",
        "--max-depth",
        "3",
        "--folds",
        "5",
        "--per-node",
    )
    nodes, totals = result["per_node"], result["per_node_totals"]
    _check_adds_up(nodes, 150, 150)
    assert totals["test_errors"] == pytest.approx(result["rmse"] ** 2 * 150)
    assert totals["test_error"] == pytest.approx(result["rmse"])


def test_the_test_label_asks_for_test_rows_in_one_line(capsys, tmp_path):
    image = tmp_path / "tree.png"
    code, out, err = run(
        capsys, "train", "--sample", "weather", "--image", str(image), "--labels", "n,test"
    )
    assert code == 2 and out == "" and not image.exists()
    assert len(err.strip().splitlines()) == 1
    assert "node label 'test' needs test rows" in err and "--per-node" in err
