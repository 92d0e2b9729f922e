"""Export for a slide uses its page (issue 30): no edge label cut where the page has room,
and a tree narrower than the 16:9 page spread across it rather than half its width."""

import pytest
from PySide6.QtGui import QColor, QImage

from engine import DecisionTree
from engine.data.samples import load_sample
from gui.drawing import image
from gui.drawing.edges import edge_label
from gui.drawing.picture import natural_size


def _labels(pic):
    plan, metrics = pic.plan, pic.style.edge_metrics
    geometry = plan.edge_geometry
    return [
        (text, edge_label(text, geometry.anchors[k], geometry.room[k], metrics)[0])
        for k, (_, _, text) in enumerate(plan.edges)
    ]


def _ink(path) -> tuple[float, float]:
    """The share of the image's width and height that holds anything but white."""
    picture = QImage(str(path))
    white = QColor("white").rgb()
    xs, ys = [], []
    for y in range(0, picture.height(), 4):
        for x in range(0, picture.width(), 4):
            if picture.pixel(x, y) != white:
                xs.append(x)
                ys.append(y)
    return (max(xs) - min(xs)) / picture.width(), (max(ys) - min(ys)) / picture.height()


@pytest.mark.parametrize(
    "sample, algorithm", [("weather", "id3"), ("iris", "c45"), ("contact-lenses", "c45")]
)
def test_no_edge_label_is_cut_on_a_slide(qapp, sample, algorithm):
    tree = DecisionTree(algorithm=algorithm).fit(load_sample(sample)).tree_
    pic = image._picture(tree, "top-down", image.SCREEN, slide=True, ghosts=False)
    assert [shown for _, shown in _labels(pic)] == [full for full, _ in _labels(pic)]
    assert ("= overcast", "= overcast") in _labels(pic) or sample != "weather"


def test_iris_fills_the_slide_page(qapp, tmp_path):
    tree = DecisionTree(algorithm="c45").fit(load_sample("iris")).tree_
    pic = image._picture(tree, "top-down", image.SCREEN, slide=True, ghosts=False)
    width, height = natural_size(pic)
    assert width / height == pytest.approx(
        16 / 9, rel=0.03
    )  # the page's shape, so no side left empty
    path = tmp_path / "iris.png"
    assert image.save_image(tree, path, slide=True) is None
    across, down = _ink(path)
    assert across > 0.9 and down > 0.9


def test_a_slide_takes_the_orientation_that_draws_the_tree_larger(qapp):
    tree = DecisionTree(algorithm="c45").fit(load_sample("iris")).tree_
    chosen = image._picture(tree, "left-to-right", image.SCREEN, slide=True, ghosts=False)
    options = [
        image.page_scale(image.picture(tree, o, image.SLIDE)) for o in ("top-down", "left-to-right")
    ]
    assert chosen.plan.orientation == "top-down" and options[0] > options[1]
    assert image.page_scale(chosen) == pytest.approx(max(options), rel=1e-6)
