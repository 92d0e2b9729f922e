"""Fixtures for the engine tests: forcing the compiled growth kernels, and what a fresh
interpreter loads when it imports every engine module."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

#: Imports every engine module named in argv[1] with scikit-learn blocked, then, if argv[2]
#: says "with-sklearn", the adapters with it; prints what the adapters said without it and
#: every module loaded in the end.
ENGINE_IMPORTS = """\
import importlib, json, sys
sys.modules["sklearn"] = None  # blocked: importing it raises ImportError
for name in json.loads(sys.argv[1]):
    if name != "engine.sklearn":
        importlib.import_module(name)
try:
    import engine.sklearn
except ImportError as err:
    refused = str(err)
else:
    refused = None
if sys.argv[2] == "with-sklearn":
    del sys.modules["sklearn"]
    import engine.sklearn
print(json.dumps({"refused": refused, "modules": sorted(sys.modules)}))
"""


def engine_modules() -> dict[str, Path]:
    """Every module of the engine package, by dotted name."""
    out = {}
    for path in (ROOT / "engine").rglob("*.py"):
        parts = path.relative_to(ROOT).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        out[name] = path
    return out


def import_the_engine(with_sklearn: bool) -> dict:
    """Every engine module imported in one fresh interpreter (this one has the tests'
    QApplication, and scikit-learn once any test used it): ``refused``, the adapters' error
    while scikit-learn was blocked, and ``modules``, everything loaded in the end (with
    ``with_sklearn``, once the adapters imported with scikit-learn too: 1 s of CPU more,
    most of it scipy, which scikit-learn imports)."""
    out = subprocess.run(
        [
            sys.executable,
            "-c",
            ENGINE_IMPORTS,
            json.dumps(sorted(engine_modules())),
            "with-sklearn" if with_sklearn else "without",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
        stdin=subprocess.DEVNULL,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="session")
def engine_imports() -> dict:
    """:func:`import_the_engine` with scikit-learn blocked throughout, once for the checks
    reading it (one interpreter for both)."""
    return import_the_engine(with_sklearn=False)


@pytest.fixture
def compiled_builder(monkeypatch):
    """Every fit in the test runs on the compiled kernels (waiting for their one-time
    compilation), never on their interpreted twin; the test fails if one did not."""
    pytest.importorskip("numba")
    from engine.compiling.lifecycle import compile_kernels
    from engine.fast import builder

    assert compile_kernels(), "the growth kernels do not compile here"
    kinds = []
    choose = builder.kernels

    def recording(compiled: bool):
        kinds.append(compiled)
        return choose(compiled)

    monkeypatch.setattr(builder, "kernels", recording)
    yield kinds
    assert all(kinds), "a fit ran on the interpreted kernels"
