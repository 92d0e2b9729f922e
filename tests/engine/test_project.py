"""Project files: a whole session saved and restored."""

import json

import numpy as np
import pytest

from engine import project as proj
from engine.errors import ArborError
from engine.estimator import DecisionTree


def _project(weather):
    frame = weather.frame.copy()
    frame.loc[3, "humidity"] = np.nan
    table = weather.with_kinds()  # same kinds
    table = type(table)(frame, table.kinds, table.target)
    model = DecisionTree(algorithm="c45").fit(table)
    return proj.Project(table, model.settings_, model.tree_, {0: (1.5, 2.0), 2: (-3.0, 4.0)}, (1,))


def test_round_trip_keeps_everything(weather, tmp_path):
    project = _project(weather)
    path = tmp_path / "s.arbor"
    proj.save_project(project, path)
    back = proj.load_project(path)
    assert back.table.frame["humidity"].isna().sum() == 1
    assert list(back.table.frame["windy"].cat.categories) == ["TRUE", "FALSE"]
    assert dict(back.table.kinds) == dict(project.table.kinds) and back.table.target == "play"
    assert back.settings == project.settings
    assert back.tree.n_nodes == project.tree.n_nodes
    assert back.positions == project.positions and back.collapsed == (1,)


def test_newer_version_is_refused_clearly(weather, tmp_path):
    path = tmp_path / "s.arbor"
    proj.save_project(_project(weather), path)
    doc = json.loads(path.read_text())
    doc["version"] = 99
    path.write_text(json.dumps(doc))
    with pytest.raises(ArborError, match="newer Arbor"):
        proj.load_project(path)


@pytest.mark.parametrize("content", ["not json", json.dumps({"format": "other"}), "[]"])
def test_garbage_is_refused(tmp_path, content):
    path = tmp_path / "s.arbor"
    path.write_text(content)
    with pytest.raises(ArborError):
        proj.load_project(path)


def test_referenced_data_file_is_checked(weather, tmp_path, monkeypatch):
    data = tmp_path / "weather.csv"
    weather.frame.to_csv(data, index=False)
    monkeypatch.setattr(proj, "EMBED_LIMIT", 10)
    path = tmp_path / "s.arbor"
    proj.save_project(proj.Project(weather), path, data_path=str(data))
    assert "path" in json.loads(path.read_text())["table"]
    assert proj.load_project(path).table.frame.shape == (14, 5)
    data.write_text(data.read_text().replace("sunny", "cloudy", 1))
    with pytest.raises(ArborError, match="has changed"):
        proj.load_project(path)
    data.unlink()
    with pytest.raises(ArborError, match="missing"):
        proj.load_project(path)


# ------------------------------------------------- issue 31, item 3: an embedded table's footer
def _parquet_project(tmp_path, frame, declared_rows, kinds=None):
    """A version-2 project embedding ``frame`` as zstd Parquet, declaring ``declared_rows``."""
    import base64

    import pandas as pd

    from engine.data.io import parquet_bytes
    from engine.data.table import make_table

    table = make_table(pd.DataFrame(frame), kinds=kinds)
    doc = {
        "format": proj.FORMAT,
        "version": 2,
        "table": {
            "columns": list(table.frame.columns),
            "kinds": dict(table.kinds),
            "target": table.target,
            "rows": declared_rows,
            "categories": {
                c: list(table.frame[c].cat.categories)
                for c, k in table.kinds.items()
                if k == "nominal"
            },
            "parquet": base64.b64encode(parquet_bytes(table)).decode("ascii"),
        },
    }
    path = tmp_path / "p.arbor"
    path.write_text(json.dumps(doc))
    return path


def _no_column_reading(monkeypatch):
    import pyarrow.parquet as pq

    def refuse(*args, **kwargs):
        raise AssertionError("a column was read before the footer was checked")

    monkeypatch.setattr(pq, "read_table", refuse)
    monkeypatch.setattr(pq.ParquetFile, "read", refuse)
    monkeypatch.setattr(pq.ParquetFile, "read_row_group", refuse)


def test_an_embedded_table_of_more_rows_than_declared_is_refused_unread(tmp_path, monkeypatch):
    # (2,000,000 rows said the same, and cost a second making the table to write.)
    rows = 200_000
    path = _parquet_project(
        tmp_path, {"x": np.ones(rows), "y": np.full(rows, "a", dtype=object)}, 4
    )
    assert path.stat().st_size < 20_000  # compressed to almost nothing
    _no_column_reading(monkeypatch)
    with pytest.raises(ArborError) as err:
        proj.load_project(path)
    message = str(err.value)
    assert "\n" not in message and "200,000 rows, not the 4 the project declares" in message


def test_an_embedded_table_bigger_than_memory_is_refused_unread(tmp_path, monkeypatch):
    import engine.data.io as io

    rows = 200_000
    path = _parquet_project(
        tmp_path, {"x": np.ones(rows), "y": np.full(rows, "a", dtype=object)}, rows
    )
    _no_column_reading(monkeypatch)
    monkeypatch.setattr(io, "available_memory", lambda: 1 << 20)
    with pytest.raises(ArborError, match="more than this machine can load now"):
        proj.load_project(path)
    monkeypatch.setattr(io, "available_memory", lambda: None)
    monkeypatch.setattr(proj, "PROJECT_LIMIT", 1 << 20)
    with pytest.raises(ArborError, match="a project's table is at most 1 MB"):
        proj.load_project(path)


def test_an_embedded_table_with_other_columns_or_types_is_refused_unread(tmp_path, monkeypatch):
    path = _parquet_project(tmp_path, {"x": ["a", "b", "c"], "y": ["p", "q", "p"]}, 3)
    doc = json.loads(path.read_text())
    _no_column_reading(monkeypatch)
    doc["table"]["kinds"]["x"] = "numeric"
    path.write_text(json.dumps(doc))
    with pytest.raises(ArborError, match="column 'x' is stored as dictionary"):
        proj.load_project(path)
    doc["table"]["kinds"]["x"] = "nominal"
    doc["table"]["columns"] = ["y", "x"]
    path.write_text(json.dumps(doc))
    with pytest.raises(ArborError, match="does not have the 2 columns the project declares"):
        proj.load_project(path)


def test_an_embedded_table_still_round_trips(tmp_path):
    path = _parquet_project(tmp_path, {"x": [1.5, None, 3.0], "y": ["p", "q", None]}, 3)
    table = proj.load_project(path).table
    assert table.frame["x"].isna().tolist() == [False, True, False]
    assert table.frame["y"].tolist()[:2] == ["p", "q"] and table.frame["y"].isna().tolist()[2]


# --------------------------------- issue 31, item 6: cells outside their declared categories
def _json_project(tmp_path, cells, categories, kind="nominal"):
    doc = {
        "format": proj.FORMAT,
        "version": 1,
        "table": {
            "columns": ["x", "y"],
            "kinds": {"x": kind, "y": "nominal"},
            "target": "y",
            "rows": len(cells),
            "categories": {"y": ["p", "q"]},
            "data": {"x": cells, "y": (["p", "q"] * len(cells))[: len(cells)]},
        },
    }
    if categories is not None:
        doc["table"]["categories"]["x"] = categories
    path = tmp_path / "p.arbor"
    path.write_text(json.dumps(doc))
    return path


def test_cells_outside_the_declared_categories_are_refused_by_name(tmp_path):
    path = _json_project(tmp_path, ["p", "q", "zzz", None], ["p", "q"])
    with pytest.raises(ArborError) as err:
        proj.load_project(path)
    message = str(err.value)
    assert "\n" not in message
    assert "1 cell(s) of 'x' hold values outside its declared categories: 'zzz'" in message
    many = [f"v{i}" for i in range(9)] * 2
    with pytest.raises(ArborError, match=r"18 cell\(s\) of 'x' .*'v4' and 4 more"):
        proj.load_project(_json_project(tmp_path, many, ["p"]))


def test_booleans_in_a_nominal_column_load_as_their_text(tmp_path):
    cells = [True, False, True, 1]
    table = proj.load_project(_json_project(tmp_path, cells, ["true", "false", "1"])).table
    assert table.frame["x"].tolist() == ["true", "false", "true", "1"]
    assert list(table.frame["x"].cat.categories) == ["true", "false", "1"]
    table = proj.load_project(_json_project(tmp_path, cells, None)).table  # none declared
    assert table.frame["x"].tolist() == ["TRUE", "FALSE", "TRUE", "1"]
    with pytest.raises(ArborError, match="outside its declared categories: '1'"):
        proj.load_project(_json_project(tmp_path, cells, ["TRUE", "FALSE"]))


def test_declared_categories_are_kept_exactly(tmp_path):
    """A category Arbor saved (from a quoted ARFF value, say) comes back even where a data
    file's cell would be cleaned: " a" unstripped, "NA" not missing, "1.0" not "1"."""
    table = proj.load_project(
        _json_project(tmp_path, [" a", "NA", 1.0, "?"], [" a", "NA", "1.0"])
    ).table
    assert (
        table.frame["x"].tolist()[:3] == [" a", "NA", "1.0"] and table.frame["x"].isna().tolist()[3]
    )


def test_a_saved_table_of_text_booleans_round_trips(tmp_path):
    import pandas as pd

    from engine.data.table import make_table

    table = make_table(
        pd.DataFrame({"x": ["true", "false", "true", "1"], "y": list("pqpq")}),
        kinds={"x": "nominal"},
    )
    path = tmp_path / "p.arbor"
    proj.save_project(proj.Project(table), path)
    back = proj.load_project(path).table
    pd.testing.assert_frame_equal(back.frame, table.frame)


def test_an_embedded_table_with_cells_outside_its_categories_is_refused(tmp_path):
    path = _parquet_project(tmp_path, {"x": [1.5, 2.0, 3.0], "y": ["p", "q", "r"]}, 3)
    doc = json.loads(path.read_text())
    doc["table"]["categories"]["y"] = ["p", "q"]
    path.write_text(json.dumps(doc))
    with pytest.raises(ArborError, match=r"1 cell\(s\) of 'y' hold values outside .*: 'r'"):
        proj.load_project(path)
