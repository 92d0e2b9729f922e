"""A plot out of sight is made and drawn when it shows or is asked for (issue 29): the
drawing waits, the newest replaces an older one, and whoever reads the plot finds it drawn."""

from PySide6.QtWidgets import QWidget

from gui.panels.error_plot import ErrorPlot
from gui.panels.lazy_plot import LazyPlot


def _lazy(qtbot):
    made = []
    lazy = LazyPlot(lambda plot: made.append(plot))
    qtbot.addWidget(lazy)
    return lazy, made


def test_a_hidden_plot_draws_the_newest_drawing_when_asked_for(qtbot):
    lazy, made = _lazy(qtbot)
    drawn = []
    lazy.paint(lambda: drawn.append("old"))
    lazy.paint(lambda: drawn.append(len(lazy.plot.getPlotItem().listDataItems())))
    assert not lazy.built and lazy.waiting and drawn == []
    plot = lazy.plot  # asked for: made, set up once, then the newest drawing only
    assert lazy.built and not lazy.waiting and made == [plot] and drawn == [0]
    lazy.paint(None)  # nothing to draw: nothing waits
    assert not lazy.waiting and drawn == [0]


def test_a_plot_draws_at_once_on_screen_and_when_it_shows(qtbot):
    holder = QWidget()
    qtbot.addWidget(holder)
    lazy = LazyPlot(lambda plot: None, parent=holder)
    drawn = []
    lazy.paint(lambda: drawn.append("hidden"))
    holder.show()  # shown: made, and the drawing waiting drawn
    assert lazy.built and drawn == ["hidden"]
    lazy.paint(lambda: drawn.append("shown"))  # on screen: at once
    assert drawn == ["hidden", "shown"] and not lazy.waiting


def test_an_error_plot_works_its_curve_out_when_read(qtbot):
    errors = ErrorPlot("step")
    qtbot.addWidget(errors)
    asked = []

    def make():
        asked.append(True)
        errors.show_curve([0, 1, 2], [0.5, 0.25, 0.0], marked=1)

    errors.show_later(make)
    errors.mark(2)  # while it waits: no work
    assert asked == [] and not errors.figure.built
    assert list(errors.train) == [0.5, 0.25, 0.0] and asked == [True]  # read: worked out
    assert errors.marked == 1 and "25.0%" in errors.legend.text()
    assert set(errors.lines) == {"training"} and errors.figure.built  # drawn when read
    xs, ys = errors.lines["training"].getData()
    assert list(xs) == [0, 1, 2] and list(ys) == [0.5, 0.25, 0.0]


def test_a_plot_made_in_the_dark_theme_is_dark(qtbot):
    from gui.drawing import palette

    lazy, _ = _lazy(qtbot)
    palette.use(palette.DARK)
    try:
        plot = lazy.plot  # made after the theme was applied: it takes the theme
    finally:
        palette.use(palette.LIGHT)
    colour = plot.backgroundBrush().color().name().upper()
    assert colour == palette.DARK.background.upper()
