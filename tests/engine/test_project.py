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
