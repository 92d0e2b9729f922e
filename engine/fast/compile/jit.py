"""``njit`` for Arbor's kernels: numba's, with ``cache=True`` writing to the shared kernel folder.

numba finds a function's cache through a list of "locators", the first of which is
keyed by the source file's path and modification time (:mod:`engine.fast.compile.cache` says
why that does not suit Arbor). Kernels decorated here get a cache whose only locator
(before numba's own, used if the folder cannot be written) is the per-user folder of
:func:`engine.fast.compile.cache.kernel_folder`, stamped with the sources' digest. Importing
this module imports numba: :mod:`engine.fast.kernels` does so only when numba is installed.
"""

from __future__ import annotations

import contextlib
import threading

import numba
import numba.core.event
from llvmlite import ir
from numba.core import types
from numba.core.caching import CompileResultCacheImpl, FunctionCache, _CacheLocator
from numba.core.codegen import JITCodeLibrary
from numba.core.compiler import CompilerBase, DefaultPassBuilder
from numba.core.compiler_machinery import LoweringPass, register_pass
from numba.core.dispatcher import Dispatcher
from numba.core.registry import CPUDispatcher
from numba.core.typed_passes import AnnotateTypes
from numba.extending import intrinsic

from engine.fast.compile.cache import kernel_folder, sources_digest
from engine.fast.compile.refs import as_ref  # noqa: F401 - the kernels take it from here


@intrinsic
def prefetch(typingctx, array, index):
    """Ask the processor to bring ``array[index]`` into the cache (never faults, changes
    nothing). A kernel sweeping a big node reads values and targets of entries scattered
    over the whole table, one miss after another: fetched some entries ahead, a million-row
    sweep took 2.4 times less (measured on a gather like the sweep's)."""
    if not isinstance(array, types.Array) or not isinstance(index, types.Integer):
        return None

    def codegen(context, builder, signature, args):
        values, at = args
        data = context.make_array(signature.args[0])(context, builder, values).data
        byte = ir.IntType(8).as_pointer()
        i32 = ir.IntType(32)
        fetch = builder.module.declare_intrinsic(
            "llvm.prefetch", fnty=ir.FunctionType(ir.VoidType(), [byte, i32, i32, i32])
        )
        # A read, kept in every cache level, of data.
        where = builder.bitcast(builder.gep(data, [at]), byte)
        builder.call(fetch, [where, i32(0), i32(3), i32(1)])
        return context.get_dummy_value()

    return types.void(array, index), codegen


class SharedFolderLocator(_CacheLocator):
    """Locates every kernel's cache in the shared folder, whatever the source file's path."""

    def __init__(self, py_func, py_file):
        self._py_file = py_file  # numba names it when it explains why it cannot cache a kernel
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


class Kernel(CPUDispatcher):
    """A CPU dispatcher that compiles a call from another kernel for its arguments' plain types.

    numba types a constant argument (``f(x, 0)``) as a literal and compiled the callee, and
    everything it calls, once more for each literal value met (and for a variable whose
    type was still a literal partway through type inference): 24 extra specialisations,
    the biggest of them 21 s, a third of the one-time compile. No kernel asks for a
    literal value (``numba.literally``), so plain types lose nothing.
    """

    def get_call_template(self, args, kws):
        return super().get_call_template(
            [types.unliteral(a) for a in args], {k: types.unliteral(v) for k, v in kws.items()}
        )


class LinkedKernel(Kernel):
    """A kernel only other kernels call (``njit(linked=True)``): compiled without the
    optimisation of its whole module, which its caller does anyway.

    numba gives each kernel a module holding its own code and a copy of every kernel it
    calls, and optimises that module whole (so that callees can be inlined). Down a
    chain of calls (``run`` > ``evaluate`` > ``scan_sorted`` > ``sweep_sorted`` > ...)
    the same code was optimised once per kernel above it: two thirds of the compile time.
    A linked kernel's module is only ever copied into its callers', where it is optimised
    once, with them, in the module of the kernel Python calls. Called from Python itself,
    it would run unoptimised, so that is refused.
    """

    def __call__(self, *args, **kwargs):
        raise TypeError(
            f"{self.py_func.__qualname__} is compiled into the kernels that call "
            "it; call one of those (njit(linked=True) marks it)"
        )


class _LinkedLibrary(JITCodeLibrary):
    def _optimize_final_module(self):
        pass  # optimised with its callers (LinkedKernel)


class _InlinedLibrary(_LinkedLibrary):
    """A linked kernel's library whose functions LLVM always inlines into their callers."""

    def add_ir_module(self, ir_module):
        for fn in ir_module.functions:
            if not fn.is_declaration and "noinline" not in fn.attributes:
                fn.attributes.add("alwaysinline")
        super().add_ir_module(ir_module)


@register_pass(mutates_CFG=False, analysis_only=False)
class _UseLinkedLibrary(LoweringPass):
    """Gives the function a :class:`_LinkedLibrary` before lowering (which would otherwise
    make the target's usual library)."""

    _name = "arbor_linked_library"
    _library = _LinkedLibrary

    def __init__(self):
        LoweringPass.__init__(self)

    def run_pass(self, state):
        # Never called from Python or C: no wrappers to lower, optimise and generate.
        state.flags.no_cpython_wrapper = True
        state.flags.no_cfunc_wrapper = True
        if state.library is None:
            state.library = self._library(state.targetctx.codegen(), state.func_id.func_qualname)
            state.library.enable_object_caching()  # as lowering does, so that it can be cached
        return True


@register_pass(mutates_CFG=False, analysis_only=False)
class _UseInlinedLibrary(_UseLinkedLibrary):
    _name = "arbor_inlined_library"
    _library = _InlinedLibrary


#: What a borrowing kernel may still call of numba's runtime: reading a group's fields.
_RUNTIME_READS = frozenset({"NRT_MemInfo_data_fast"})
_REFERENCE_COUNTS = frozenset({"NRT_incref", "NRT_decref"})


class BorrowingError(TypeError):
    """A kernel marked ``borrows=True`` makes or is handed a reference of its own."""


class _BorrowingLibrary(_LinkedLibrary):
    """A linked kernel's library with its reference counting taken out (``borrows=True``).

    numba counts a reference for every array a kernel reads out of a group, every view it
    slices and every group it is passed, and releases each at the end, one atomic
    operation apiece, each an opaque call LLVM cannot move loads across: without them a
    full regression tree of 9,000 rows, where most nodes hold a few rows, grew 13-20%
    faster. A kernel that allocates nothing and is
    handed no new array holds only what its caller already holds for the whole call, so
    the counts change nothing and are removed."""

    def add_ir_module(self, ir_module):
        for fn in ir_module.functions:
            if fn.is_declaration:
                continue
            for block in fn.blocks:
                kept = []
                for instruction in block.instructions:
                    if isinstance(instruction, ir.CallInstr):
                        callee = getattr(instruction.callee, "name", "")
                        if callee in _REFERENCE_COUNTS:
                            continue
                        if callee.startswith("NRT_") and callee not in _RUNTIME_READS:
                            raise BorrowingError(f"{fn.name} calls numba's {callee}")
                    kept.append(instruction)
                block.instructions[:] = kept
        super().add_ir_module(ir_module)


@register_pass(mutates_CFG=False, analysis_only=False)
class _UseBorrowingLibrary(_UseLinkedLibrary):
    _name = "arbor_borrowing_library"
    _library = _BorrowingLibrary

    def run_pass(self, state):
        # A new reference handed over (a result with arrays in it, its own or a callee's)
        # would be released by nobody, or once too often.
        models = state.targetctx.data_model_manager
        name = state.func_id.func_qualname
        if models[state.return_type].contains_nrt_meminfo():
            raise BorrowingError(f"{name} returns {state.return_type}")
        for expr, signature in state.calltypes.items():
            if getattr(expr, "op", None) != "call" or signature is None:
                continue
            if models[signature.return_type].contains_nrt_meminfo():
                raise BorrowingError(f"{name} is handed {signature.return_type}")
        return super().run_pass(state)


class _LinkedCompiler(CompilerBase):
    _library_pass = _UseLinkedLibrary

    def define_pipelines(self):
        pipeline = DefaultPassBuilder.define_nopython_pipeline(self.state)
        pipeline.add_pass_after(self._library_pass, AnnotateTypes)
        pipeline.finalize()
        return [pipeline]


class _InlinedCompiler(_LinkedCompiler):
    _library_pass = _UseInlinedLibrary


class _BorrowingCompiler(_LinkedCompiler):
    _library_pass = _UseBorrowingLibrary


def njit(*args, **options):
    """numba's ``njit`` making :class:`Kernel` s (:class:`LinkedKernel` s with
    ``linked=True``); with ``cache=True`` the cache is :class:`SharedFolderCache`.

    ``linked="inline"``: a linked kernel LLVM always inlines into its callers. It is typed
    and lowered once, where numba's ``inline="always"`` types and lowers its body again at
    every call site; inlined by LLVM, a caller's constants (the specialised sweeps' class
    count and impurity) still unroll and prune it. For the sweeps' shared step this took
    about a second off each of the eight sweep copies' compile, at the same speed.

    ``borrows=True`` (with ``linked=True``): the kernel counts no references
    (:class:`_BorrowingLibrary`). It must allocate nothing and take no array from a call;
    compiling it raises :class:`BorrowingError` otherwise."""
    shared = options.pop("cache", False)
    linked = options.pop("linked", False)
    borrows = options.pop("borrows", False)
    if borrows and linked is not True:
        raise ValueError("a kernel that borrows is linked (njit(linked=True, borrows=True))")
    if linked:
        options["pipeline_class"] = _InlinedCompiler if linked == "inline" else _LinkedCompiler
    if borrows:
        options["pipeline_class"] = _BorrowingCompiler

    def decorate(func):
        dispatcher = numba.njit(**options)(func)
        if type(dispatcher) is CPUDispatcher:  # not under NUMBA_DISABLE_JIT
            # The same object, typed (and called) through our overrides.
            dispatcher.__class__ = LinkedKernel if linked else Kernel
        if shared and isinstance(dispatcher, Dispatcher):
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
    with numba.core.event.install_listener(
        "numba:compile", _RefuseToCompile(threading.get_ident())
    ):
        yield
