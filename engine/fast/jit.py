"""``njit`` for Arbor's kernels: numba's, with ``cache=True`` writing to the shared kernel folder.

numba finds a function's cache through a list of "locators", the first of which is
keyed by the source file's path and modification time (:mod:`engine.fast.cache` says
why that does not suit Arbor). Kernels decorated here get a cache whose only locator
(before numba's own, used if the folder cannot be written) is the per-user folder of
:func:`engine.fast.cache.kernel_folder`, stamped with the sources' digest. Importing
this module imports numba: :mod:`engine.fast.kernels` does so only when numba is installed.
"""

from __future__ import annotations

import contextlib
import threading

import numba
import numba.core.event
from numba.core.caching import CompileResultCacheImpl, FunctionCache, _CacheLocator
from numba.core.dispatcher import Dispatcher

from engine.fast.cache import kernel_folder, sources_digest


class SharedFolderLocator(_CacheLocator):
    """Locates every kernel's cache in the shared folder, whatever the source file's path."""

    def __init__(self, py_func, py_file):
        self._lineno = py_func.__code__.co_firstlineno
        self._path = str(kernel_folder())

    def get_cache_path(self):
        return self._path

    def get_source_stamp(self):
        return sources_digest()  # content, not the file's modification time

    def get_disambiguator(self):
        return str(self._lineno)

    @classmethod
    def from_function(cls, py_func, py_file):
        try:
            locator = cls(py_func, py_file)
            locator.ensure_cache_path()
        except OSError:
            return None  # numba's own locators then
        return locator


class _SharedFolderImpl(CompileResultCacheImpl):
    _locator_classes = [SharedFolderLocator, *CompileResultCacheImpl._locator_classes]


class SharedFolderCache(FunctionCache):
    _impl_class = _SharedFolderImpl


def njit(*args, **options):
    """numba's ``njit``; with ``cache=True`` the cache is :class:`SharedFolderCache`."""
    shared = options.pop("cache", False)

    def decorate(func):
        dispatcher = numba.njit(**options)(func)
        if shared and isinstance(dispatcher, Dispatcher):  # not under NUMBA_DISABLE_JIT
            # What Dispatcher.enable_caching() does, with our cache class instead of numba's.
            dispatcher._cache = SharedFolderCache(func)
        return dispatcher

    if args and callable(args[0]):
        return decorate(args[0])
    return decorate


class NotCached(RuntimeError):
    """A kernel had to be compiled where it should only have been loaded from the cache."""


class _RefuseToCompile(numba.core.event.Listener):
    def __init__(self, thread: int):
        self._thread = thread

    def on_start(self, event):
        if threading.get_ident() == self._thread:  # other threads' numba code is theirs
            raise NotCached(event.data["dispatcher"].py_func.__qualname__)

    def on_end(self, event):
        pass


@contextlib.contextmanager
def loading_only():
    """In this block, this thread loads kernels from the cache and raises :class:`NotCached`
    instead of compiling one (which would hold this process for most of a minute)."""
    with numba.core.event.install_listener("numba:compile", _RefuseToCompile(threading.get_ident())):
        yield
