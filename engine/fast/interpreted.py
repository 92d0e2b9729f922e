"""The growth kernels' own Python source, run by the interpreter instead of numba.

A small fit does not wait for the kernels (:func:`engine.growth.compiled_kernels_ready`):
while they compile (once per machine, :mod:`engine.compiling.lifecycle`) it runs these very
functions uncompiled, and a tiny one (:data:`UNCOMPILED_MAX_CELLS`) runs them so rather
than load numba and the compiled kernels at all. There is no second implementation to
keep in step: the kernel modules' source files are executed a second time, into private
module objects (never put in ``sys.modules``), as they run on a machine without numba
(``engine.fast.kernels`` then leaves its functions undecorated), with their imports of
each other pointing at those copies. So the same statements run, in the same order, on
the same IEEE doubles, and the tree is the same (``tests/engine/fast/test_builder.py``
checks); and numba is never imported for it. Interpreted, a kernel is some hundred times
slower, which is why only small fits take this path (:data:`INTERPRETED_MAX_CELLS`).
"""

from __future__ import annotations

import builtins
import importlib.util
import types
from functools import cache

#: Fits of at most this many entries times attributes run interpreted while the kernels
#: compile (a second or so); bigger ones wait for the compiled kernels.
INTERPRETED_MAX_CELLS = 40_000
#: Fits of at most this many entries times attributes run interpreted unless this process
#: has the compiled kernels already: interpreted they take a tenth of a second at most,
#: less than importing numba and loading the compiled kernels (a second of CPU or more),
#: and nothing starts a compilation for them ...
UNCOMPILED_MAX_CELLS = 4_000
#: ... until fits in this process have run this many CPU seconds interpreted, about what
#: loading the kernels costs: many tiny fits (cross-validation) then load them, as a bigger
#: fit would. Rent until the rent paid would have bought: never more than twice the cost
#: of the better choice, which cannot be known in advance.
UNCOMPILED_SECONDS = 1.0

#: The modules with kernels, each after those it imports.
MODULES = (
    "engine.fast.kernels",
    "engine.fast.sweeps",
    "engine.fast.histogram",
    "engine.fast.growth_loop",
)
#: What the kernel modules import only when numba is there to compile them.
_NUMBA_ONLY = "engine.fast.compile.jit"


@cache
def modules() -> dict[str, types.ModuleType]:
    """The kernel modules (:data:`MODULES`) executed again uncompiled, by name."""
    copies: dict[str, types.ModuleType] = {}

    def importer(name, globals=None, locals=None, fromlist=(), level=0):
        if level == 0 and name == _NUMBA_ONLY:
            raise ImportError(f"{name}: the kernels run uncompiled here")
        if level == 0 and fromlist and name in copies:
            return copies[name]  # ``from engine.fast.kernels import ...``: the copy's names
        return builtins.__import__(name, globals, locals, fromlist, level)

    home = dict(vars(builtins), __import__=importer)
    for name in MODULES:
        spec = importlib.util.find_spec(name)
        module = types.ModuleType(name)
        module.__file__ = spec.origin
        module.__builtins__ = home
        exec(spec.loader.get_code(name), vars(module))  # noqa: S102 - our own source file
        copies[name] = module
    return copies


@cache
def kernels() -> types.SimpleNamespace:
    """``run`` and ``preorder`` (and every other kernel) as plain Python functions; its
    ``UNCOMPILED`` is True (the compiled module has none)."""
    return types.SimpleNamespace(**vars(module("engine.fast.growth_loop")), UNCOMPILED=True)


def module(name: str) -> types.ModuleType:
    """The uncompiled copy of kernel module ``name`` ("engine.fast.histogram", say)."""
    return modules()[name]
