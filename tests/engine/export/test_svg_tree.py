"""The Qt-free SVG figure (issue 36): what ``engine.plot`` returns and what a notebook shows
for a trained model, a big tree drawn to a depth with a note."""

from __future__ import annotations

from xml.etree import ElementTree as ET

import pandas as pd
import pytest

import engine
from engine.data.samples import load_sample
from engine.data.table import make_table
from engine.errors import ArborError
from engine.estimator import DecisionTree
from engine.export.svg_tree import auto_depth, plot, text_width

SVG = "{http://www.w3.org/2000/svg}"


def _texts(svg: str) -> list[str]:
    return [t.text or "" for t in ET.fromstring(svg).iter(f"{SVG}text")]


def _boxes(svg: str) -> int:
    """Node boxes: the groups that draw one node each."""
    return sum(1 for _ in ET.fromstring(svg).iter(f"{SVG}g")) - 1  # less the legend's


@pytest.fixture(scope="module")
def weather():
    return DecisionTree(algorithm="id3").fit(load_sample("weather"))


def test_the_figure_draws_every_node_with_the_canvas_words(weather):
    figure = engine.plot(weather)
    texts = _texts(figure.svg)
    assert figure.shown == figure.total == 8 and figure.note == ""
    assert _boxes(figure.svg) == 8
    for word in ("outlook", "humidity", "windy", "n = 14", "= overcast", "= high"):
        assert word in texts
    assert texts.count("yes") == 3 + 1  # three leaves and the legend
    assert 'fill="#0072B2"' in figure.svg and 'fill="#E69F00"' in figure.svg


def test_labels_and_orientation_as_the_image_export(weather):
    figure = plot(weather, labels="n,weka,counts", orientation="left-to-right")
    texts = _texts(figure.svg)
    assert "(14.0/5.0)" in texts and "yes 9 · no 5" in texts
    assert "#0072B2" not in figure.svg  # no bar, no legend of colours
    with pytest.raises(ArborError, match="unknown node label"):
        plot(weather, labels="n,colour")


def test_a_big_tree_is_drawn_to_a_depth_with_a_note():
    table = load_sample("iris")
    model = DecisionTree(algorithm="cart", prune="none").fit(table)
    assert model.tree_.n_nodes == 17 and auto_depth(model.tree_, most=10) == 3
    figure = plot(model.tree_, max_depth=2)
    assert (figure.shown, figure.total) == (5, 17)
    assert "Drawn to depth 2: 5 of 17 nodes" in figure.note and figure.note in _texts(figure.svg)
    assert any(t.endswith("hidden") for t in _texts(figure.svg))
    assert plot(model, max_depth=None).shown == 17


def test_notebooks_show_trained_models(weather, tmp_path):
    assert DecisionTree()._repr_svg_() is None
    assert weather._repr_svg_() == plot(weather).svg
    path = plot(weather, width=300).save(tmp_path / "tree.svg")
    assert ET.parse(path).getroot().get("width") == "300"
    with pytest.raises(ArborError, match="SVG"):
        plot(weather).save(tmp_path / "tree.png")


def test_sklearn_estimators_show_their_tree():
    sklearn_tree = pytest.importorskip("engine.sklearn")
    frame = load_sample("weather").frame
    X, y = frame.drop(columns=["play"]), frame["play"]
    model = sklearn_tree.ArborClassifier(algorithm="id3")
    assert "image/svg+xml" not in model._repr_mimebundle_()
    bundle = model.fit(X, y)._repr_mimebundle_()
    assert bundle["image/svg+xml"] == plot(model).svg
    assert bundle["text/html"] == f"<div>{bundle['image/svg+xml']}</div>"


def test_names_stay_text():
    rows = [("<b>&\x01</b>", float(k), "]]></svg>" if k % 2 else "<!--") for k in range(8)]
    frame = pd.DataFrame(rows, columns=["<script>", "x\ny", "class"])
    model = DecisionTree(algorithm="cart").fit(make_table(frame))
    figure = plot(model)
    texts = _texts(figure.svg)  # parses: every name was escaped, \x01 made U+FFFD
    assert {"]]></svg>", "<!--"} <= set(texts)


# Qt's advances for DejaVu Sans (QFontMetricsF.horizontalAdvance), bold 13 px and 12 px.
QT_WIDTHS = {
    ("Iris-versicolor", True): 101.1,
    ("n = 14", True): 47.2,
    ("<= 0.6", True): 49.3,
    ("temperature", True): 92.5,
    ("Iris-versicolor", False): 80.5,
    ("n = 14", False): 40.5,
    ("<= 0.6", False): 43.0,
    ("yes 9 · no 5", False): 70.0,
}


@pytest.mark.parametrize(("text", "bold"), sorted(QT_WIDTHS))
def test_text_widths_are_estimated_close_to_the_fonts(text, bold):
    estimate = text_width(text, 13 if bold else 12, bold)
    assert abs(estimate / QT_WIDTHS[text, bold] - 1) < 0.08


def test_percentages_are_predicts_probabilities_with_pseudocounts():
    laplace = DecisionTree(algorithm="id3", laplace=True).fit(load_sample("weather"))
    texts = _texts(plot(laplace, labels="n,counts,percent").svg)
    # The sunny, high-humidity leaf: no 3 of 3, Laplace (3 + 1) / (3 + 2) = 80%, as predict.
    # The root: (9 + 1) / 16 and (5 + 1) / 16, 62.5% and 37.5% (rounded half to even).
    assert "no 3 (80%)" in texts and "yes 9 (62%) · no 5 (38%)" in texts
    plain = DecisionTree(algorithm="id3").fit(load_sample("weather"))
    assert "no 3 (100%)" in _texts(plot(plain, labels="n,counts,percent").svg)
