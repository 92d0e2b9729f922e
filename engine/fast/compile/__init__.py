"""How a kernel is compiled and cached: numba's ``njit`` with Arbor's overrides and cache
(:mod:`.jit`) and the per-user kernel folder (:mod:`.cache`). The kernels are the other
modules of :mod:`engine.fast`; the one-time compile of them all is :mod:`engine.compiling`."""
