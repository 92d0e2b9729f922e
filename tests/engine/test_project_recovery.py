"""A recovery file keeps the session: where the work came from and the runs with their trees,
checked when read back like everything else in a project (issue 30, item 6)."""

import json
from dataclasses import replace

import pytest

from engine.data.samples import load_sample
from engine.errors import ArborError
from engine.estimator import DecisionTree
from engine.project import Origin, Project, load_project, save_project
from engine.runs import KEEP_TREES, RunLog


def _session(tmp_path):
    table = load_sample("weather")
    log = RunLog()
    trees = [DecisionTree(algorithm=a).fit(table).tree_ for a in ("id3", "cart")]
    for tree in trees:
        log.add(
            when="10:00:00",
            data_name="weather",
            n_rows=14,
            data_key="k",
            settings=DecisionTree().settings(),
            n_nodes=tree.n_nodes,
            n_leaves=tree.n_leaves,
            depth=tree.depth,
            tree=tree,
        )
    origin = Origin(
        project_path=str(tmp_path / "work.arbor"), data_path=str(tmp_path / "weather.csv")
    )
    return Project(table, DecisionTree().settings(), trees[1], runs=log, origin=origin), trees


def test_a_recovery_file_keeps_the_origin_and_the_runs_trees(tmp_path):
    project, trees = _session(tmp_path)
    path = tmp_path / "recovery.arbor"
    save_project(project, path, run_trees=True)
    doc = json.loads(path.read_text())
    assert (
        doc["runs"][1] == {**doc["runs"][1], "tree_on_screen": True}
        and "tree" not in doc["runs"][1]
    )
    back = load_project(path)
    assert back.origin == project.origin
    first, second = back.runs
    assert (
        first.tree.n_nodes == trees[0].n_nodes and second.tree is back.tree
    )  # the tree on screen, once
    save_project(replace(project, origin=None), path)  # a project saved by hand: runs' figures only
    back = load_project(path)
    assert back.origin is None and all(run.tree is None for run in back.runs)


@pytest.mark.parametrize(
    "origin, message",
    [
        ({"project_path": "work.arbor"}, "absolute path to an .arbor"),
        ({"project_path": "/home/x/.bashrc"}, "absolute path to an .arbor"),
        ({"data_path": "relative.csv"}, "must be absolute"),
        ({"project_path": "/a/" + "x" * 5000 + ".arbor"}, "too long"),
        ({"sample": "a\nb"}, "one line"),
        ({"project_path": 7}, "project path"),
        ({"elsewhere": "/tmp"}, "not part of an origin"),
        ([], "where the work came from"),
    ],
)
def test_a_hostile_origin_is_refused(tmp_path, origin, message):
    project, _ = _session(tmp_path)
    path = tmp_path / "recovery.arbor"
    save_project(project, path, run_trees=True)
    doc = json.loads(path.read_text())
    doc["origin"] = origin
    path.write_text(json.dumps(doc))
    with pytest.raises(ArborError, match=message):
        load_project(path)


def test_run_trees_are_bounded_and_checked(tmp_path):
    project, _ = _session(tmp_path)
    path = tmp_path / "recovery.arbor"
    save_project(project, path, run_trees=True)
    doc = json.loads(path.read_text())
    tree = doc["runs"][0]["tree"]
    doc["runs"] = [{**doc["runs"][0], "number": k + 1} for k in range(KEEP_TREES + 1)]
    path.write_text(json.dumps(doc))
    with pytest.raises(ArborError, match="keep their tree"):
        load_project(path)
    doc["runs"] = [{**doc["runs"][0], "tree": {**tree, "nodes": "lots"}}]
    path.write_text(json.dumps(doc))
    with pytest.raises(ArborError, match="run 1's tree"):
        load_project(path)
    doc["runs"] = [{**doc["runs"][0], "tree_on_screen": True}]
    doc["tree"] = None
    doc["positions"] = {}
    path.write_text(json.dumps(doc))
    with pytest.raises(ArborError, match="tree on screen"):
        load_project(path)
