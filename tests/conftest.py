"""Shared fixtures: the seeds' tables, typed in exactly as the lecture notes print them."""

from __future__ import annotations

import gc
import os
from dataclasses import replace
from functools import cache
from pathlib import Path

# GUI tests run without a display; set before anything imports Qt.
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

#: Python's own thresholds for the garbage collector, and fewer passes. While the test
#: modules import, everything they make stays, so the collector's passes over it found
#: nothing and cost a second of the collection. With Python's thresholds it also walked what
#: the engine's, command line's and oracle's tests keep (modules loaded lazily, compiled
#: kernels, Dask's state) so often that tests/engine/{learn,data,evaluate} took 32 s of CPU
#: against 27 s with fewer passes: those tests run with them too. Cycles are still collected.
PYTHONS_COLLECTIONS = gc.get_threshold()
FEWER_COLLECTIONS = (10_000, 20, 100)
gc.set_threshold(*FEWER_COLLECTIONS)

import pandas as pd  # noqa: E402
from hypothesis import settings as hypothesis_settings  # noqa: E402

# Property tests draw the same examples on every run, so CI is reproducible.
hypothesis_settings.register_profile("arbor", derandomize=True, print_blob=True)
hypothesis_settings.load_profile("arbor")
import pytest  # noqa: E402

from engine.data.table import Table, make_table  # noqa: E402


def pytest_configure(config):
    """One QApplication for the whole run, made first. A command's image export, which the
    command-line tests run in this process, starts a widget-free QGuiApplication when none
    runs (the command line never loads the widgets); made first, that would be the
    process's one application, and the next window a test opens would abort it."""
    try:
        from PySide6.QtWidgets import QApplication
    except ImportError:  # the engine's tests run without Qt
        return
    if QApplication.instance() is None:
        config._arbor_qapp = QApplication([])


def pytest_collection_finish(session):
    """What exists once the tests are collected (every module the suite imports, the
    application, the tests themselves) lives as long as the run: Python's collector need not
    walk it again and again. Its full collections did, a seventh of the engine tests' CPU.
    (Cycles the tests make are collected as ever.)"""
    gc.collect()
    gc.freeze()
    gc.set_threshold(*PYTHONS_COLLECTIONS)


#: The window's tests keep Python's thresholds: Qt objects held in cycles go when the
#: collector runs, and those tests expect them gone as soon as ever.
WINDOW_TESTS = (Path(__file__).parent / "gui", Path(__file__).parent / "browser")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    if any(item.path.is_relative_to(folder) for folder in WINDOW_TESTS):
        yield
        return
    thresholds = gc.get_threshold()
    gc.set_threshold(*FEWER_COLLECTIONS)
    yield
    gc.set_threshold(*thresholds)


WEATHER = """\
sunny hot high FALSE no
sunny hot high TRUE no
overcast hot high FALSE yes
rainy mild high FALSE yes
rainy cool normal FALSE yes
rainy cool normal TRUE no
overcast cool normal TRUE yes
sunny mild high FALSE no
sunny cool normal FALSE yes
rainy mild normal FALSE yes
sunny mild normal TRUE yes
overcast mild high TRUE yes
overcast hot normal FALSE yes
rainy mild high TRUE no"""

RESTAURANT = """\
Yes No No Yes Some $$$ No Yes French 0-10 Yes
Yes No No Yes Full $ No No Thai 30-60 No
No Yes No No Some $ No No Burger 0-10 Yes
Yes No Yes Yes Full $ No No Thai 10-30 Yes
Yes No Yes No Full $$$ No Yes French >60 No
No Yes No Yes Some $$ Yes Yes Italian 0-10 Yes
No Yes No No None $ Yes No Burger 0-10 No
No No No Yes Some $$ Yes Yes Thai 0-10 Yes
No Yes Yes No Full $ Yes No Burger >60 No
Yes Yes Yes Yes Full $$$ No Yes Italian 10-30 No
No No No No None $ No No Thai 0-10 No
Yes Yes Yes Yes Full $ No No Burger 30-60 Yes"""

TOYS = """\
red 2 yes
red 3 yes
green 2 yes
red 2 yes
green 2 yes
green 4 yes
green 2 yes
green 1 yes
red 2 yes
green 2 yes
red 1 yes
blue 2 no
green 2 yes
green 1 yes
red 3 yes
green 1 yes"""


def _frame(text: str, columns: list[str]) -> pd.DataFrame:
    return pd.DataFrame([line.split() for line in text.splitlines()], columns=columns)


@cache
def _seed(name: str) -> Table:
    """A seed's table, made once a run (making one took 4 ms, hundreds of times)."""
    if name == "weather":
        frame = _frame(WEATHER, ["outlook", "temperature", "humidity", "windy", "play"])
        return make_table(frame, categories={"windy": ["TRUE", "FALSE"], "play": ["yes", "no"]})
    if name == "restaurant":
        cols = [
            "Alt",
            "Bar",
            "Fri",
            "Hun",
            "Pat",
            "Price",
            "Rain",
            "Res",
            "Type",
            "Est",
            "WillWait",
        ]
        return make_table(_frame(RESTAURANT, cols), categories={"WillWait": ["Yes", "No"]})
    frame = _frame(TOYS, ["Color", "Players", "Fun"])
    return make_table(frame, kinds={"Players": "nominal"})


def _own_copy(table: Table) -> Table:
    """Each test gets a frame of its own to change."""
    return replace(table, frame=table.frame.copy())


@pytest.fixture
def weather():
    return _own_copy(_seed("weather"))


@pytest.fixture
def restaurant():
    return _own_copy(_seed("restaurant"))


@pytest.fixture
def toys():
    return _own_copy(_seed("toys"))
