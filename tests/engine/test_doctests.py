"""The examples in the engine's docstrings run and print what they say."""

import doctest
import importlib
from pathlib import Path

import pytest

ENGINE = Path(__file__).resolve().parents[2] / "engine"
MODULES = ["engine"] + [f"engine.{p.stem}" for p in sorted(ENGINE.glob("*.py")) if p.stem != "__init__"]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    result = doctest.testmod(importlib.import_module(name))
    assert result.failed == 0
