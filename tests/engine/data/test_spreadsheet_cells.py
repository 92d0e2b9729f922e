"""Issue 31, item 1: a value that looks like a formula is saved as text and read back as it was.

XLSX (a saved table, saved predictions) stores every text cell as text; CSV and TSV
predictions put ``'`` before text a spreadsheet would run, and leave numbers alone.
"""

import csv
import zipfile

import pandas as pd
import pytest

from cli.main import main
from engine.data.cells import FORMULA_STARTS, guard_formula, guarded_frame, needs_guard
from engine.data.io import read_table, write_table
from engine.data.table import make_table
from engine.estimator import DecisionTree
from engine.predict import prediction_frame, save_predictions

HOSTILE = [
    "=cmd|' /C calc'!A0",
    "=1+1",
    "+SUM(A1)",
    "-2+3",
    '@HYPERLINK("x")',
    "#N/A",
    "#REF!",
    "<b>x</b>",
    "plain",
]
EVIL_COLUMN = "=evil()"


def hostile_frame() -> pd.DataFrame:
    n = len(HOSTILE)
    return pd.DataFrame(
        {
            EVIL_COLUMN: HOSTILE,
            "weight": [-1.5, 2.0, 3.25, -4.0, 5.0, 6.5, -7.0, 8.0, 9.0],
            "class": [HOSTILE[i % 3] for i in range(n)],
        }
    )


def hostile_table():
    return make_table(hostile_frame(), "class")


def sheet_xml(path) -> str:
    with zipfile.ZipFile(path) as book:
        return "".join(
            book.read(n).decode() for n in book.namelist() if n.startswith("xl/worksheets/")
        )


def test_the_rule():
    for start in FORMULA_STARTS:
        assert needs_guard(start + "x") and guard_formula(start + "x") == "'" + start + "x"
    for harmless in ("plain", "-1.5", "+2", "1e-3", "-.5", "", "'quoted"):
        assert not needs_guard(harmless) and guard_formula(harmless) == harmless
    assert guard_formula(-1.5) == -1.5 and guard_formula(None) is None


def test_a_table_round_trips_through_xlsx_exactly(tmp_path):
    path = tmp_path / "hostile.xlsx"
    table = hostile_table()
    write_table(table, path)
    assert "<f>" not in sheet_xml(path) and "<f " not in sheet_xml(path)
    back = read_table(path)
    assert not back.notes, back.notes  # no "formula cell(s) have no saved value"
    assert list(back.frame.columns) == list(table.frame.columns)
    assert back.frame[EVIL_COLUMN].astype(str).tolist() == HOSTILE
    assert back.frame["class"].astype(str).tolist() == table.frame["class"].astype(str).tolist()
    assert back.frame["weight"].tolist() == table.frame["weight"].tolist()
    assert back.kinds == table.kinds


def predictions(table):
    tree = DecisionTree(algorithm="c45").fit(table).tree_
    return prediction_frame(tree, table.frame, probabilities=True)


def test_predictions_round_trip_through_xlsx_exactly(tmp_path):
    out = predictions(hostile_table())
    path = tmp_path / "p.xlsx"
    save_predictions(out, path)
    assert "<f>" not in sheet_xml(path)
    back = read_table(path)
    assert not back.notes, back.notes
    assert list(back.frame.columns) == list(out.columns)
    for name in (EVIL_COLUMN, "class", "predicted class"):
        assert back.frame[name].astype(str).tolist() == out[name].astype(str).tolist()
    assert back.frame["weight"].tolist() == out["weight"].tolist()


@pytest.mark.parametrize("suffix, sep", [(".csv", ","), (".tsv", "\t")])
def test_csv_predictions_guard_text_cells_and_leave_numbers_alone(tmp_path, suffix, sep):
    out = predictions(hostile_table())
    path = tmp_path / f"p{suffix}"
    save_predictions(out, path)
    with open(path, newline="", encoding="utf-8") as handle:
        header, *rows = list(csv.reader(handle, delimiter=sep))
    assert header[0] == "'" + EVIL_COLUMN
    column = [r[0] for r in rows]
    assert column == [guard_formula(v) for v in HOSTILE]
    assert column[:5] == ["'" + v for v in HOSTILE[:5]] and column[5:] == HOSTILE[5:]
    assert [float(r[1]) for r in rows] == out["weight"].tolist()  # numbers unguarded
    assert all(not r[1].startswith("'") for r in rows)
    for value in [c for r in rows for c in r] + header:
        assert (
            not value.startswith(FORMULA_STARTS) or value.lstrip("+-").replace(".", "", 1).isdigit()
        )
    # Arbor's own reader takes the numbers back as numbers, -1.5 and all.
    back = read_table(path)
    assert back.frame["weight"].tolist() == out["weight"].tolist()


def test_the_guard_can_be_turned_off(tmp_path):
    out = predictions(hostile_table())
    path = tmp_path / "p.csv"
    save_predictions(out, path, formula_guard=False)
    assert pd.read_csv(path, dtype=str, keep_default_na=False)[EVIL_COLUMN].tolist() == HOSTILE


def test_guarded_frame_leaves_the_frame_given_alone():
    frame = hostile_frame().astype({"class": "category"})
    before = frame.copy()
    out = guarded_frame(frame)
    pd.testing.assert_frame_equal(frame, before)
    assert out["class"].astype(str).tolist() == [guard_formula(v) for v in frame["class"]]
    both = pd.DataFrame({"c": pd.Categorical(["=a", "'=a"])})  # one text after guarding
    assert guarded_frame(both)["c"].tolist() == ["'=a", "'=a"]


def test_predict_command_guards_csv_and_writes_xlsx_as_text(tmp_path, capsys):
    data = tmp_path / "hostile.xlsx"
    write_table(hostile_table(), data)
    model = tmp_path / "m.json"
    assert main(["train", str(data), "--target", "class", "--save", str(model)]) == 0
    for name in ("p.csv", "p.xlsx"):
        assert main(["predict", str(model), str(data), "--output", str(tmp_path / name)]) == 0
    capsys.readouterr()
    guarded = pd.read_csv(tmp_path / "p.csv", dtype=str, keep_default_na=False)
    assert guarded["'" + EVIL_COLUMN].tolist() == [guard_formula(v) for v in HOSTILE]
    back = read_table(tmp_path / "p.xlsx", target="class")
    assert not back.notes and back.frame[EVIL_COLUMN].astype(str).tolist() == HOSTILE
    assert (
        main(
            [
                "predict",
                str(model),
                str(data),
                "--output",
                str(tmp_path / "raw.csv"),
                "--no-formula-guard",
            ]
        )
        == 0
    )
    assert (
        pd.read_csv(tmp_path / "raw.csv", dtype=str, keep_default_na=False)[EVIL_COLUMN].tolist()
        == HOSTILE
    )


def test_predict_help_documents_the_guard(capsys):
    with pytest.raises(SystemExit):
        main(["predict", "--help"])
    out = " ".join(capsys.readouterr().out.split())
    assert "--no-formula-guard" in out and "leading '" in out
