"""Saved predictions write a whole number as an integer (``144``, not ``144.0``) in CSV, TSV
and XLSX; other numbers, text and missing values are written as before (issue 30, item 5)."""

from __future__ import annotations

import csv

import numpy as np
import openpyxl
import pandas as pd
import pytest

from cli.main import main
from engine.data.table import make_table
from engine.estimator import DecisionTree
from engine.predict import prediction_frame, save_predictions


def regression_table():
    x = np.arange(12, dtype=float)
    y = np.where(x < 6, 144.0, 2.5)  # one leaf predicts a whole number, one does not
    return make_table(pd.DataFrame({"x": x, "y": y}), target="y")


def numeric_class_table():
    x = np.arange(12, dtype=float)
    label = np.where(x < 6, 1.0, 2.0)
    return make_table(
        pd.DataFrame({"x": x, "label": label}), target="label", kinds={"label": "nominal"}
    )


def rows(path, sep):
    with open(path, newline="", encoding="utf-8") as handle:
        header, *body = list(csv.reader(handle, delimiter=sep))
    return header, body


@pytest.mark.parametrize("suffix, sep", [(".csv", ","), (".tsv", "\t")])
def test_whole_number_predictions_are_written_as_integers(tmp_path, suffix, sep):
    table = regression_table()
    out = prediction_frame(
        DecisionTree(algorithm="cart", task="regression").fit(table).tree_, table.frame
    )
    path = tmp_path / f"p{suffix}"
    save_predictions(out, path)
    header, body = rows(path, sep)
    column = [r[header.index("predicted y")] for r in body]
    assert set(column) == {"144", "2.5"}
    assert [r[header.index("x")] for r in body] == [str(i) for i in range(12)]
    assert out["predicted y"].dtype == float  # the frame given is not changed


def test_a_class_that_is_a_number_is_written_as_an_integer(tmp_path):
    table = numeric_class_table()
    out = prediction_frame(
        DecisionTree(algorithm="c45").fit(table).tree_, table.frame, probabilities=True
    )
    path = tmp_path / "p.csv"
    save_predictions(out, path)
    header, body = rows(path, ",")
    predicted = {r[header.index("predicted label")] for r in body}
    assert predicted <= {"1", "2"} and predicted, predicted
    assert not any(v.endswith(".0") for r in body for v in r)


def test_missing_and_fractional_values_are_kept(tmp_path):
    frame = pd.DataFrame({"a": [1.0, np.nan, 2.25, -3.0], "b": ["=x", "1.0", None, "t"]})
    path = tmp_path / "p.csv"
    save_predictions(frame, path)
    header, body = rows(path, ",")
    assert [r[0] for r in body] == ["1", "", "2.25", "-3"]
    assert [r[1] for r in body] == ["'=x", "1.0", "", "t"]  # text stays text, guarded


def test_xlsx_stores_whole_numbers_as_integers(tmp_path):
    table = regression_table()
    out = prediction_frame(
        DecisionTree(algorithm="cart", task="regression").fit(table).tree_, table.frame
    )
    path = tmp_path / "p.xlsx"
    save_predictions(out, path)
    sheet = openpyxl.load_workbook(path).active
    values = [row[1] for row in sheet.iter_rows(min_row=2, values_only=True)]
    assert {type(v) for v in values if v == 144} == {int}
    assert 2.5 in values


def test_predict_command_writes_integers(tmp_path, capsys):
    data = tmp_path / "d.csv"
    regression_table().frame.to_csv(data, index=False)
    model = tmp_path / "m.json"
    assert (
        main(
            [
                "train",
                str(data),
                "--target",
                "y",
                "--algorithm",
                "cart",
                "--task",
                "regression",
                "--save",
                str(model),
            ]
        )
        == 0
    )
    assert main(["predict", str(model), str(data), "--output", str(tmp_path / "p.csv")]) == 0
    capsys.readouterr()
    header, body = rows(tmp_path / "p.csv", ",")
    assert "144" in {r[header.index("predicted y")] for r in body}
