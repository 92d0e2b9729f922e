"""The growth kernels' own Python source, run by the interpreter instead of numba.

While the kernels compile (once per machine, :mod:`engine.fast.compile`) a small fit
does not wait: it runs these very functions uncompiled. There is no second
implementation to keep in step: each kernel here is its compiled twin's Python
function (numba keeps it as ``py_func``) with its globals pointing at the other
kernels' Python functions, so the same statements run, in the same order, on the same
IEEE doubles, and the tree is the same (``tests/engine/test_builder.py`` checks).
Interpreted, a kernel is some hundred times slower, which is why only small fits
take this path (:data:`INTERPRETED_MAX_CELLS`).
"""

from __future__ import annotations

import importlib
import types
from functools import cache

#: Fits of at most this many entries times attributes run interpreted while the kernels
#: compile (a second or so); bigger ones wait for the compiled kernels.
INTERPRETED_MAX_CELLS = 40_000

#: The modules whose kernels call each other.
MODULES = ("engine.learn.rules", "engine.fast.kernels", "engine.fast.sweeps",
           "engine.fast.histogram", "engine.fast.compiled")


def _is_kernel(value) -> bool:
    return hasattr(value, "py_func") and hasattr(value, "signatures")


@cache
def kernels() -> types.SimpleNamespace:
    """``run`` and ``preorder`` (and every other kernel) as plain Python functions."""
    modules = {name: importlib.import_module(name) for name in MODULES}
    namespaces = {name: dict(vars(module)) for name, module in modules.items()}
    plain: dict[int, types.FunctionType] = {}

    def python_twin(kernel):
        if id(kernel) not in plain:
            f = kernel.py_func
            home = namespaces.get(f.__module__, f.__globals__)
            plain[id(kernel)] = types.FunctionType(f.__code__, home, f.__name__, f.__defaults__,
                                                   f.__closure__)
        return plain[id(kernel)]

    for namespace in namespaces.values():
        for key, value in list(namespace.items()):
            if _is_kernel(value):
                namespace[key] = python_twin(value)
    return types.SimpleNamespace(**namespaces["engine.fast.compiled"])
