"""The Dask cluster a fit over partitions runs on: an existing scheduler, or a local one.

``--scheduler tcp://HOST:PORT`` (or the ``ARBOR_DASK_SCHEDULER`` environment variable)
connects to a running ``dask.distributed`` scheduler, whose workers must have Arbor
installed (they import its kernels). Without one, :class:`Cluster` starts a
``LocalCluster`` sized to this machine: one single-threaded worker process per core (the
kernels hold no lock but numba's, and separate processes keep one worker's memory from
another's), sharing the machine's memory, with its dashboard on a free port.

Every wait checks the monitor, so Cancel cancels the futures of the pass under way. A
scheduler that goes away mid-fit (or cannot be reached) is one :class:`ArborError`
naming it; a worker that dies is Dask's to recover: its tasks run again elsewhere, from
the files, and give the same numbers. A worker process that dies while a local cluster
starts fails the start; the cluster is started again (``START_ATTEMPTS`` in all).
"""

from __future__ import annotations

import contextlib
import functools
import os
import threading
import time
from collections.abc import Callable, Sequence

from engine.errors import ArborError, Cancelled
from engine.monitor import NULL_MONITOR, Monitor

ENVIRONMENT = "ARBOR_DASK_SCHEDULER"
#: Seconds to wait for a scheduler to answer before giving up.
CONNECT_SECONDS = 10
#: Seconds between two checks of the monitor while waiting for a pass.
POLL_SECONDS = 0.1
#: A task is tried this many times on workers that died under it (Dask's own count).
ALLOWED_FAILURES = 3
#: A local cluster is started this many times when a worker process dies while it starts.
START_ATTEMPTS = 3


def scheduler_address(given: str | None = None) -> str | None:
    """The scheduler to use: ``given``, else ``ARBOR_DASK_SCHEDULER``, else None (a local one)."""
    address = (given or os.environ.get(ENVIRONMENT) or "").strip()
    return address or None


def _detail(err: BaseException) -> str:
    """The first line of what ``err`` says (its type when it says nothing), shortened."""
    text = str(err).strip().splitlines()
    return text[0][:160] if text else type(err).__name__


def _lost(address: str, err: BaseException) -> ArborError:
    return ArborError(f"lost the Dask scheduler at {address} ({_detail(err)}); the fit stopped")


def _is_connection_failure(err: BaseException) -> bool:
    from distributed.client import FutureCancelledError
    from distributed.comm.core import CommClosedError

    if isinstance(
        err, FutureCancelledError
    ):  # Dask cancels every future when it loses the scheduler
        return "connection" in str(err)
    return isinstance(err, CommClosedError | OSError | TimeoutError) and not isinstance(
        err, FileNotFoundError | PermissionError
    )


class Cluster:
    """A Dask client and, without a scheduler address, the local cluster it owns.

    Use it as a context manager: leaving it closes the client, and the local cluster with
    its worker processes.
    """

    def __init__(
        self,
        address: str | None = None,
        n_workers: int | None = None,
        memory_limit: str | int | None = None,
        processes: bool = True,
    ):
        import logging

        import dask
        from distributed import Client, LocalCluster

        dask.config.set(
            {
                "distributed.scheduler.allowed-failures": ALLOWED_FAILURES,
                "distributed.worker.daemon": False,
            }
        )
        self._owned = None
        self.address = scheduler_address(address)
        if self.address is None:
            workers = n_workers or max(1, os.cpu_count() or 1)
            for attempt in range(1, START_ATTEMPTS + 1):
                try:
                    self._owned = LocalCluster(
                        n_workers=workers,
                        threads_per_worker=1,
                        processes=processes,
                        memory_limit=memory_limit or "auto",
                        dashboard_address=":0",
                        silence_logs=logging.ERROR,
                    )
                    self.client = Client(self._owned, set_as_default=False)
                    if processes:
                        self.client.register_plugin(_quiet_logs()(), name="arbor-quiet-logs")
                    break
                except Exception as err:  # noqa: BLE001 - Dask raises RuntimeError, OSError...
                    # A worker process that dies while the cluster starts (killed, out of
                    # memory) fails the whole start ("Nanny failed to start"): the cluster
                    # closes itself, and a new one is started, as a worker dying later is
                    # replaced by its nanny.
                    self.close()
                    if attempt == START_ATTEMPTS:
                        raise ArborError(
                            f"could not start a local Dask cluster of {workers} worker(s), "
                            f"{START_ATTEMPTS} times ({_detail(err)}); is a worker process "
                            "being killed, or memory short?"
                        ) from None
        else:
            try:
                self.client = Client(self.address, timeout=CONNECT_SECONDS, set_as_default=False)
            except (OSError, TimeoutError) as err:
                self.close()
                raise ArborError(
                    f"cannot reach the Dask scheduler at {self.address} ({_detail(err)})"
                ) from None
        self.shown_address = self.address or self.client.scheduler.address

    # ------------------------------------------------------------------ facts

    @property
    def dashboard(self) -> str | None:
        """The dashboard's address (``http://host:port/status``), if it has one."""
        try:
            return self.client.dashboard_link
        except Exception:  # noqa: BLE001 - no bokeh, or no dashboard configured
            return None

    @property
    def n_workers(self) -> int:
        try:
            return len(self.client.scheduler_info(n_workers=-1)["workers"])
        except Exception as err:  # noqa: BLE001
            raise self._failure(err) from None

    def worker_memory(self) -> int:
        """Bytes of memory the workers may use in all (0 when they set no limit)."""
        try:
            workers = self.client.scheduler_info(n_workers=-1)["workers"].values()
        except Exception as err:  # noqa: BLE001
            raise self._failure(err) from None
        return int(sum(w.get("memory_limit") or 0 for w in workers))

    # ------------------------------------------------------------------ running

    def submit(self, function: Callable, *args, **kwargs):
        try:
            return self.client.submit(function, *args, pure=False, **kwargs)
        except Exception as err:  # noqa: BLE001
            raise self._failure(err) from None

    def share(self, value):
        """``value`` as a future the tasks take: a task's result, not scattered data, so that
        Dask makes it again if the worker holding it dies."""
        return self.submit(_value, value)

    def wait(
        self,
        futures: Sequence,
        monitor: Monitor = NULL_MONITOR,
        on_done: Callable[[int], None] | None = None,
    ) -> list:
        """The results of ``futures`` in order; Cancel cancels them all (``Cancelled``)."""
        futures = list(futures)
        if not futures:
            return []
        # Woken by the futures themselves (Dask calls back when each ends): sleeping a fixed
        # time between looks lost half of it per wait on average, 50 ms a pass.
        ended = threading.Event()
        left = [len(futures)]
        lock = threading.Lock()

        def one_ended(future) -> None:
            with lock:
                left[0] -= 1
                last = left[0] == 0
            if last or future.status == "error":
                ended.set()

        away_since = None
        try:
            for future in futures:
                future.add_done_callback(one_ended)
            while True:
                try:
                    monitor.check()
                except Cancelled:
                    self.cancel(futures)
                    raise
                status = self.client.status
                if status != "running":
                    away_since = away_since or time.monotonic()
                    if (
                        status in ("closed", "closing", "failed")
                        or time.monotonic() - away_since > CONNECT_SECONDS
                    ):
                        raise _lost(self.shown_address, ConnectionError("connection closed"))
                else:
                    away_since = None
                if on_done is not None:
                    on_done(sum(f.done() for f in futures))
                if ended.wait(POLL_SECONDS):
                    break
            if on_done is not None:
                on_done(sum(f.done() for f in futures))
            return self.client.gather(futures)
        except (Cancelled, ArborError):
            raise
        except Exception as err:  # noqa: BLE001 - a task's own error, or the connection's
            raise self._failure(err) from None

    def map(
        self,
        function: Callable,
        items: Sequence,
        *args,
        monitor: Monitor = NULL_MONITOR,
        on_done: Callable[[int], None] | None = None,
    ) -> list:
        """``function(item, *args)`` for every item, on the workers; the results in order."""
        futures = [self.submit(function, item, *args) for item in items]
        return self.wait(futures, monitor, on_done)

    def holders(self, futures) -> list:
        """Per future, a worker holding its value (None: not known)."""
        try:
            held = self.client.who_has(list(futures))
        except Exception as err:  # noqa: BLE001
            raise self._failure(err) from None
        return [next(iter(held.get(f.key, ())), None) for f in futures]

    def cancel(self, futures) -> None:
        with contextlib.suppress(Exception):  # nothing left to cancel on a lost scheduler
            self.client.cancel(list(futures), force=True)

    def everywhere(self, function: Callable, *args) -> None:
        """``function(*args, dask_worker=worker)`` on every worker, now (tidying up: a
        worker that cannot be reached is skipped)."""
        with contextlib.suppress(Exception):
            self.client.run(function, *args)

    def _failure(self, err: BaseException) -> Exception:
        """What a failed call becomes: an ArborError from a task (naming its file) as it is,
        a lost connection as one message, anything else as the bug it is."""
        if isinstance(err, ArborError):
            return err
        if _is_connection_failure(err) or self.client.status in ("closed", "closing"):
            return _lost(self.shown_address, err)
        from distributed.scheduler import KilledWorker

        if isinstance(err, KilledWorker):
            return ArborError(
                f"a task failed on {ALLOWED_FAILURES} workers that died under it "
                "(out of memory? see the dashboard); the fit stopped"
            )
        return err

    def close(self) -> None:
        client = getattr(self, "client", None)
        if client is not None:
            with contextlib.suppress(Exception):  # a client whose scheduler is gone
                client.close(timeout=5)
        if self._owned is not None:
            with contextlib.suppress(Exception):
                self._owned.close(timeout=10)
            self._owned = None

    def __enter__(self) -> Cluster:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def _value(value):
    return value


class InProcess:
    """What :class:`Cluster` offers a fit, with every task run at once in this process, one
    after another: the warm-up (:func:`engine.scale.warmup.warm_up_partitions`) runs the
    partition tasks on the very arrays they make on a worker, without starting one."""

    n_workers = 1
    dashboard = None
    shown_address = "this process"
    address = None

    def submit(
        self,
        function: Callable,
        *args,
        priority: int = 0,
        workers=None,
        allow_other_workers: bool = False,
        **kwargs,
    ):
        return _Done(function(*[a.value if isinstance(a, _Done) else a for a in args], **kwargs))

    def share(self, value):
        return _Done(value)

    def wait(self, futures: Sequence, monitor: Monitor = NULL_MONITOR, on_done=None) -> list:
        monitor.check()
        return [f.value for f in futures]

    def map(
        self,
        function: Callable,
        items: Sequence,
        *args,
        monitor: Monitor = NULL_MONITOR,
        on_done=None,
    ) -> list:
        return self.wait([self.submit(function, item, *args) for item in items], monitor)

    def holders(self, futures) -> list:
        return [None] * len(futures)

    def cancel(self, futures) -> None:
        pass

    def everywhere(self, function: Callable, *args) -> None:
        function(*args)

    def worker_memory(self) -> int:
        return 1 << 30  # room to keep small partitions, as a local cluster keeps them

    def close(self) -> None:
        pass

    def __enter__(self) -> InProcess:
        return self

    def __exit__(self, *exc) -> None:
        pass


class _Done:
    """A finished task's result, as :class:`InProcess` hands it on."""

    def __init__(self, value):
        self.value = value

    def done(self) -> bool:
        return True

    def release(self) -> None:
        pass


@functools.cache
def _quiet_logs() -> type:
    """:class:`QuietLogs`, made on first use: subclassing Dask's WorkerPlugin as this module
    loads would import distributed (half a second) in every process that imports it, such as
    the compilation's child, which fits only :class:`InProcess`."""
    from distributed.diagnostics.plugin import WorkerPlugin

    class QuietLogs(WorkerPlugin):
        """Our own local workers log nothing below CRITICAL.

        A worker silences its log handlers while it runs and restores them as it closes, so the
        connections cut by the shutdown itself (a heartbeat to the closing scheduler, a transfer
        to a worker already gone) were printed with their tracebacks after every command. The
        logger's own level stays set. Nothing is lost: a task's error, a dead worker and a lost
        scheduler reach the fit through its futures, as one message (:meth:`Cluster._failure`).
        """

        name = "arbor-quiet-logs"

        def setup(self, worker) -> None:
            import logging

            logging.getLogger("distributed").setLevel(logging.CRITICAL)

    QuietLogs.__module__, QuietLogs.__qualname__ = __name__, "QuietLogs"
    return QuietLogs


def __getattr__(name: str):
    # ``engine.scale.cluster.QuietLogs`` as Dask's workers look it up to unpickle the plugin.
    if name == "QuietLogs":
        return _quiet_logs()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
