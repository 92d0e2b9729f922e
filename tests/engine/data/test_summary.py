"""The table summary (issue 32): every column's figures, the same from the engine and ``summary``."""

import json

import numpy as np
import pandas as pd
import pytest

from cli.main import main
from engine.data.samples import load_sample
from engine.data.summary import MAX_BINS, MAX_CATEGORIES, OTHERS, rows_in_bar, summarize
from engine.data.table import make_table


def test_weather_counts_by_class():
    s = summarize(load_sample("weather"))
    assert s.classes == ("yes", "no") and s.n_rows == 14
    outlook = s.column("outlook")
    assert (outlook.kind, outlook.missing, outlook.distinct) == ("nominal", 0, 3)
    # Most frequent first; sunny and rainy tie at 5 and keep the declared order.
    assert outlook.categories == ("sunny", "rainy", "overcast")
    assert outlook.counts == (5, 5, 4)
    assert outlook.class_counts == ((2, 3), (3, 2), (4, 0))
    humidity = s.column("humidity")
    assert dict(zip(humidity.categories, humidity.class_counts, strict=True)) == {
        "high": (3, 4),
        "normal": (6, 1),
    }
    windy = s.column("windy")
    assert dict(zip(windy.categories, windy.class_counts, strict=True)) == {
        "FALSE": (6, 2),
        "TRUE": (3, 3),
    }
    play = s.column("play")
    assert play.is_target and play.counts == (9, 5)


def test_weather_numeric_histogram():
    s = summarize(load_sample("weather-numeric"))
    t = s.column("temperature")
    assert (t.minimum, t.maximum, t.distinct) == (64, 85, 12)
    assert t.mean == pytest.approx(73.5714286) and t.std == pytest.approx(6.5716675)
    assert t.edges == pytest.approx((64, 68.2, 72.4, 76.6, 80.8, 85))
    assert t.counts == (3, 5, 2, 1, 3)
    assert t.class_counts == ((2, 1), (3, 2), (2, 0), (0, 1), (2, 1))


def test_iris_figures():
    table = load_sample("iris")
    s = summarize(table)
    assert s.classes == ("Iris-setosa", "Iris-versicolor", "Iris-virginica")
    sl = s.column("sepallength")
    assert (sl.minimum, sl.maximum, sl.distinct, sl.missing) == (4.3, 7.9, 35, 0)
    assert sl.mean == pytest.approx(5.8433333) and sl.std == pytest.approx(0.8280661)
    pl = s.column("petallength")
    assert pl.counts == (44, 6, 0, 6, 17, 31, 21, 19, 6)
    assert pl.class_counts == (
        (44, 0, 0),
        (6, 0, 0),
        (0, 0, 0),
        (0, 6, 0),
        (0, 17, 0),
        (0, 25, 6),
        (0, 2, 19),
        (0, 0, 19),
        (0, 0, 6),
    )
    pw = s.column("petalwidth")
    assert pw.distinct == 22 and pw.mean == pytest.approx(1.1986667)
    for column in s.columns:  # every bar adds up to its rows, and every class to its 50
        if column.kind == "numeric":
            assert sum(column.counts) == 150
            assert np.sum(column.class_counts, axis=0).tolist() == [50, 50, 50]
            assert (np.sum(column.class_counts, axis=1) == column.counts).all()
    assert s.column("class").counts == (50, 50, 50)


def test_rows_in_bar_are_the_rows_counted():
    table = load_sample("iris")
    s = summarize(table)
    pl = s.column("petallength")
    for bar, row in enumerate(pl.class_counts):
        assert len(rows_in_bar(table, pl, bar)) == pl.counts[bar]
        for k, n in enumerate(row):
            rows = rows_in_bar(table, pl, bar, class_index=k)
            assert len(rows) == n
            assert (table.frame["class"].iloc[rows] == s.classes[k]).all()
    weather = load_sample("weather")
    outlook = summarize(weather).column("outlook")
    assert rows_in_bar(weather, outlook, 0, class_index=1).tolist() == [0, 1, 7]  # sunny, no


def test_missing_values_are_counted_not_dropped():
    frame = pd.DataFrame(
        {"x": [1.0, np.nan, 3.0, np.nan], "c": ["a", "b", None, "a"], "y": ["p", "q", "p", None]}
    )
    s = summarize(make_table(frame, target="y"))
    x, c = s.column("x"), s.column("c")
    assert (x.missing, x.missing_share, x.distinct, sum(x.counts)) == (2, 0.5, 2, 2)
    assert (c.missing, c.distinct, c.counts) == (1, 2, (2, 1))
    assert c.class_counts == ((1, 0), (0, 1))  # the row of unknown class is in counts only


def test_caps_are_said():
    n = 5000
    rng = np.random.default_rng(0)
    frame = pd.DataFrame(
        {
            "id": [f"r{i}" for i in range(n)],
            "v": rng.normal(size=n),
            "y": rng.choice(["a", "b"], size=n),
        }
    )
    table = make_table(frame, target="y")
    s = summarize(table)
    ids = s.column("id")
    assert ids.distinct == n and len(ids.categories) == MAX_CATEGORIES
    assert ids.categories[-1] == OTHERS and sum(ids.counts) == n and "5000" in ids.note
    assert len(rows_in_bar(table, ids, MAX_CATEGORIES - 1)) == n - (MAX_CATEGORIES - 1)
    n = 2**19 + 1  # Sturges' rule asks for 21 bins
    v = summarize(
        make_table(
            pd.DataFrame({"v": rng.normal(size=n), "y": rng.choice(["a", "b"], size=n)}), target="y"
        )
    ).column("v")
    assert len(v.counts) == MAX_BINS and sum(v.counts) == n and "20 bins" in v.note


def test_numeric_target_has_no_classes():
    s = summarize(load_sample("iris").with_target("sepallength"))
    assert s.classes is None
    assert s.column("class").class_counts == () and s.column("class").counts == (50, 50, 50)
    assert s.as_dict()["columns"][4]["counts_by_class"] is None


def test_cli_json_keys(capsys):
    assert main(["summary", "--sample", "weather-numeric", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    columns = {c["name"]: c for c in result["columns"]}
    assert list(columns) == ["outlook", "temperature", "humidity", "windy", "play"]
    for c in columns.values():
        assert {"name", "kind", "missing", "distinct"} <= set(c)
    assert columns["outlook"]["counts_by_class"]["sunny"] == {"yes": 2, "no": 3}
    assert {"min", "max", "mean"} <= set(columns["temperature"])
    assert (columns["temperature"]["min"], columns["temperature"]["max"]) == (64, 85)


def test_cli_text_and_target(capsys):
    assert main(["summary", "--sample", "iris", "--target", "class"]) == 0
    out = capsys.readouterr().out
    assert "petallength by class" in out and "Iris-setosa 44" in out


def test_cli_bad_file_is_one_line(capsys, tmp_path):
    bad = tmp_path / "broken.arff"
    bad.write_text("@relation x\n@attribute a {p,q}\n@data\nnot,a,row,at,all\n")
    assert main(["summary", str(bad)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("arbor summary: error:") and err.count("\n") == 1
    assert main(["summary", str(tmp_path / "missing.csv")]) == 2
    assert capsys.readouterr().err.count("\n") == 1


def test_cli_typo_is_refused(capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["sumary", "--sample", "weather"])
    assert exit_info.value.code == 2
    assert "did you mean 'summary'" in capsys.readouterr().err


def test_a_cancelled_summary_stops():
    from engine.errors import Cancelled
    from engine.monitor import Monitor, watching

    monitor = Monitor()
    monitor.cancel()
    with watching(monitor), pytest.raises(Cancelled):
        summarize(load_sample("iris"))
