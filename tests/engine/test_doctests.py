"""The examples in the engine's docstrings run and print what they say."""

import doctest
import importlib
import linecache
from pathlib import Path

import pytest

ENGINE = Path(__file__).resolve().parents[2] / "engine"
#: Every engine module, subpackages included (engine/data, engine/learn, ... since the
#: restructure; only the top level was collected before).
MODULES = ["engine"] + sorted(
    ".".join(p.relative_to(ENGINE.parent).with_suffix("").parts).removesuffix(".__init__")
    for p in ENGINE.rglob("*.py")
    if p.parent != ENGINE or p.stem != "__init__"
)


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name, monkeypatch):
    # doctest makes a debugger for every docstring it runs, and each one checks every file
    # in linecache against the disk (bdb.reset calls linecache.checkcache()): thousands of
    # files once the suite has run a while, 14 s of the suite's CPU. The examples read no
    # source files, so they run the same without the check.
    monkeypatch.setattr(linecache, "checkcache", lambda filename=None: None)
    result = doctest.testmod(importlib.import_module(name))
    assert result.failed == 0
