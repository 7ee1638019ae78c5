"""A quiet local Dask cluster for ``simbfs sweep`` and ``simbfs reproduce``.

:func:`local_client` starts ``workers`` single-threaded worker processes on
this computer and yields a Client on them. Compared with a bare
``LocalCluster``:

- **Ctrl-C reaches only simbfs.** A terminal's Ctrl-C sends SIGINT to the
  whole process group, worker processes included; each would die with a
  page of ``CancelledError`` ... ``KeyboardInterrupt`` tracebacks. SIGINT is
  blocked in the thread that starts the cluster while it starts, so every
  thread Dask creates, and every worker process they spawn, inherits the
  blocked mask (a signal mask survives fork and exec), and once up each
  worker ignores SIGINT for good: the workers never see a SIGINT. The
  parent unblocks it once the cluster is up; a Ctrl-C pressed meanwhile is
  then delivered, not lost. The workers stop when the parent closes the
  cluster, which it does on the interrupt (or die with it: Dask's workers
  exit when their parent process goes away).
- **Silent shutdown.** When the block is left by an exception (Ctrl-C, a
  failure), Dask's loggers are muted before the cluster is closed, so
  cancelling running tasks prints nothing: the caller reports the one line
  that matters. The worker processes log only at CRITICAL: while the
  cluster closes, a worker whose heartbeat finds the scheduler already gone
  logs an ERROR with a traceback from its own process, where this one's
  muting cannot reach. Nothing is lost: a task's failure reaches the
  caller as its exception, and a dead worker as ``KilledWorker``.
- **No dashboard, no port warning.** Dask's scheduler always starts an
  HTTP server, even with ``dashboard_address=None``, and then tries port
  8787 and warns ("Port 8787 is already in use") when something else holds
  it. Here it listens on a free port of 127.0.0.1 with the dashboard off.
  For Dask's dashboard, start a cluster yourself (``dask scheduler``,
  ``dask worker``) and give its address to ``simbfs sweep --scheduler``.
"""

from __future__ import annotations

import logging
import signal
import threading
import warnings
from contextlib import contextmanager
from typing import Iterator

# the scheduler's HTTP server (health and metrics routes; the dashboard is off):
# any free port, on this computer only
HTTP_ADDRESS = "127.0.0.1:0"
_LOGGERS = ("distributed", "tornado", "asyncio")


@contextmanager
def _sigint_blocked() -> Iterator[None]:
    """Block SIGINT in this thread (and so in the threads and processes it
    starts) for the block's life; a SIGINT that arrived meanwhile is
    delivered when it ends. Only the main thread handles SIGINT, so
    elsewhere this does nothing."""
    if threading.current_thread() is not threading.main_thread() or not hasattr(signal, "pthread_sigmask"):
        yield
        return
    # multiprocessing starts its resource tracker on first use and then
    # *unblocks* SIGINT in the thread that started it (bpo-33613), which
    # would be Dask's event-loop thread: start it now, while nothing is blocked
    from multiprocessing import resource_tracker

    resource_tracker.ensure_running()
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


def _quiet_worker() -> None:
    """Run on each worker: ignore SIGINT for good, whatever later unblocks
    it, and log nothing below CRITICAL, for the worker's whole life: Dask's
    own ``silence_logs`` sets its handlers' levels only until the worker
    begins to close, which is when the heartbeat errors come."""
    for name in _LOGGERS:
        logging.getLogger(name).setLevel(logging.CRITICAL)
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, signal.SIG_IGN)


@contextmanager
def _muted() -> Iterator[None]:
    """Nothing from Dask's loggers or warnings while the block runs."""
    levels = {name: logging.getLogger(name).level for name in _LOGGERS}
    for name in _LOGGERS:
        logging.getLogger(name).setLevel(logging.CRITICAL + 1)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            yield
    finally:
        for name, level in levels.items():
            logging.getLogger(name).setLevel(level)


@contextmanager
def local_client(workers: int):
    """A dask.distributed Client on a local cluster of ``workers`` worker
    processes with one thread each (see the module's notes)."""
    from dask.distributed import Client, LocalCluster

    cluster = client = None
    try:
        with _sigint_blocked():
            cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                                   dashboard_address=None,
                                   scheduler_kwargs={"dashboard": False, "dashboard_address": HTTP_ADDRESS},
                                   silence_logs=logging.CRITICAL)
            client = Client(cluster)
            client.run(_quiet_worker)
        # a Ctrl-C pressed while the cluster started is raised by now, in this try
        yield client
    except BaseException:
        with _muted():
            if client is not None:
                client.close()
            if cluster is not None:
                cluster.close()
        raise
    client.close()
    cluster.close()
