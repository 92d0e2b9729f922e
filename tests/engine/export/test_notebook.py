"""docs/notebook.ipynb runs (issue 36): it fits, shows, prunes and exports, and every model it
displays comes out as the tree's SVG.

Marked slow: nbclient starts a kernel process (a few seconds). The quick in-process check of
the same display is ``test_svg_tree.py::test_notebooks_show_trained_models``."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.data.samples import load_sample
from engine.estimator import DecisionTree
from tests.engine.export.test_html_page import embedded

NOTEBOOK = Path(__file__).resolve().parents[3] / "docs" / "notebook.ipynb"


@pytest.mark.slow
def test_the_notebook_runs_and_shows_trees(tmp_path):
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    pytest.importorskip("ipykernel")
    notebook = nbformat.read(NOTEBOOK, as_version=4)
    client = nbclient.NotebookClient(
        notebook, timeout=180, kernel_name="python3", resources={"metadata": {"path": tmp_path}}
    )
    client.execute()  # raises CellExecutionError on any failing cell
    outputs = [o for c in notebook.cells if c.cell_type == "code" for o in c.outputs]
    figures = [o for o in outputs if "image/svg+xml" in o.get("data", {})]
    assert len(figures) == 7
    assert all(f.data["image/svg+xml"].startswith("<svg") for f in figures)
    assert any("Drawn to depth" in f.data["image/svg+xml"] for f in figures)
    pruned = DecisionTree(algorithm="cart", prune="cost-complexity").fit(load_sample("iris"))
    page = (tmp_path / "iris-tree.html").read_text(encoding="utf-8")
    assert len(embedded(page)["nodes"]["id"]) == pruned.tree_.n_nodes
    assert (tmp_path / "iris-tree.svg").read_text(encoding="utf-8").startswith("<svg")
    assert "THEN class = Iris-setosa" in (tmp_path / "iris-rules.txt").read_text(encoding="utf-8")
