"""The compiled (numba) tree builder and its one-time compilation."""

from importlib.util import find_spec

#: numba is imported only by a fit that uses it (importing it takes a good part of a second).
NUMBA_INSTALLED = find_spec("numba") is not None
