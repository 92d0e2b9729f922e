"""The cost matrix (issue 33, item 1): read as CSV or whitespace with the classes as header
and first column, each fault in one message, and the cost of predictions beside accuracy."""

import json

import numpy as np
import pytest

from engine.errors import ArborError
from engine.evaluate.cost_matrix import cost_figures, least_cost_classes, parse_cost_matrix

CLASSES = ("no", "yes")


def test_read_with_or_without_a_corner_cell_in_any_order():
    expected = [[0.0, 1.0], [5.0, 0.0]]  # a missed yes costs 5
    assert parse_cost_matrix("actual,no,yes\nno,0,1\nyes,5,0\n", CLASSES).tolist() == expected
    assert parse_cost_matrix("no yes\nno 0 1\nyes 5 0\n", CLASSES).tolist() == expected
    reordered = "x;yes;no\nyes;0;5\nno;1;0\n"  # semicolons, classes in another order
    assert parse_cost_matrix(reordered, CLASSES).tolist() == expected


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("no,yes\n", "needs a header row of predicted classes and a row per actual class"),
        ("a,no,yes\nno,0,1\n", "must be square, a row and a column per class"),
        (
            "a,no,maybe\nno,0,1\nmaybe,1,0\n",
            "must be the target's classes \\(no, yes\\); no column",
        ),
        ("a,no,yes\nno,0,1\nno,1,0\n", "a class heads two rows"),
        ("a,no,yes\nno,0,x\nyes,1,0\n", "the cost of predicting 'yes' for 'no' is not a number"),
        ("a,no,yes\nno,0,-1\nyes,1,0\n", "costs must be numbers of at least 0"),
        ("a,no,yes\nno,2,1\nyes,1,0\n", "a correct prediction costs nothing, but 'no'"),
    ],
)
def test_one_message_per_fault(text, message):
    with pytest.raises(ArborError, match=message):
        parse_cost_matrix(text, CLASSES, "costs.csv")


def test_costs_of_the_predictions_and_of_least_expected_cost():
    matrix = np.array([[0.0, 1.0], [5.0, 0.0]])
    proba = np.array([[0.9, 0.1], [0.7, 0.3], [0.2, 0.8]])  # expected costs: .5|.9, 1.5|.7, 4|.2
    assert least_cost_classes(proba, matrix).tolist() == [0, 1, 1]
    y = np.array([0, 1, 1])
    confusion = np.array([[1.0, 0.0], [1.0, 1.0]])  # argmax: no, no, yes
    figures = cost_figures(confusion, matrix, y, proba, 1.0)
    assert (figures.total, figures.average) == (5.0, 5 / 3)
    assert (figures.least_cost_total, figures.least_cost_average) == (0.0, 0.0)


def test_evaluate_prints_and_returns_the_costs(capsys, tmp_path):
    from cli.main import main

    costs = tmp_path / "costs.csv"
    costs.write_text("actual,no,yes\nno,0,1\nyes,5,0\n")
    assert main(["evaluate", "--sample", "weather", "--costs", str(costs), "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    confusion = np.array(result["confusion_matrix"])
    no, yes = result["classes"].index("no"), result["classes"].index("yes")
    assert result["cost"]["total"] == confusion[no, yes] * 1 + confusion[yes, no] * 5
    assert result["cost"]["average"] == pytest.approx(result["cost"]["total"] / 14)
    costs.write_text("actual,no,yes\nno,0,1\n")
    assert main(["evaluate", "--sample", "weather", "--costs", str(costs)]) == 2
    assert "costs.csv: the matrix must be square" in capsys.readouterr().err
