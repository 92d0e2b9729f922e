"""The examples in the engine's docstrings run and print what they say."""

import doctest
import importlib
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
def test_docstring_examples(name):
    result = doctest.testmod(importlib.import_module(name))
    assert result.failed == 0
