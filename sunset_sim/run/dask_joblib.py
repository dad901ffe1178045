"""joblib on a Dask cluster, as the Dask backend (``backends.DaskBackend``) uses it:
joblib's Dask backend mended where it waited forever (a task the cluster gave up on), and
a watch over the cluster while a run waits on it (no worker left, the scheduler lost).
Each failure ends the run with one line (``RunError``)."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator

from sunset_sim.run import RunError


class ClusterWatch:
    """What a Dask run waits on, watched: a cluster whose every worker had gone left the
    run waiting forever (the watch cancels this call's tasks after the connect timeout
    without a worker, which joblib does raise), and the scheduler lost mid-run ended in
    a 60-line traceback; ``failures`` says either in one line, as it does a chunk the
    cluster gave up on (KilledWorker: ``joblib_dask_backend``)."""

    def __init__(self, client: object, no_worker_s: float) -> None:
        self.client = client
        self.no_worker_s = no_worker_s
        self.reason: str | None = None
        self.stop = threading.Event()
        self.before: set = set()

    def __enter__(self) -> ClusterWatch:
        self.before = set(self.client.futures)  # (a caller's own Client: its futures kept)
        threading.Thread(target=self._run, name="sunset-sim-cluster-watch", daemon=True).start()
        return self

    def __exit__(self, *exc_info) -> None:
        self.stop.set()

    def _run(self) -> None:
        alone_since = None
        while not self.stop.wait(1.0):
            try:
                workers = self.client.scheduler_info().get("workers", {})
                alone_since = None if workers else alone_since or time.monotonic()
                if alone_since is not None and time.monotonic() - alone_since > self.no_worker_s:
                    import distributed

                    self.reason = f"the cluster has had no worker for {self.no_worker_s:g} s"
                    ours = [k for k in list(self.client.futures) if k not in self.before]
                    self.client.cancel([distributed.Future(k, self.client) for k in ours])
                    return
            except Exception:  # noqa: BLE001 - the client closing: nothing more to watch
                return

    def failures(self, scheduler: str, results: Iterator) -> Iterator:
        """``results``, or a RunError of one line where the cluster failed the run."""
        try:
            yield from results
        except Exception as error:
            if self.reason is None and not type(error).__module__.startswith("distributed"):
                raise
            detail = " ".join(str(error).split()).split(". ")[0][:200]
            why = self.reason or f"{type(error).__name__}: {detail}"
            raise RunError(
                f"--scheduler {scheduler}: {why}; the run stopped (a dataset folder keeps its "
                "finished chunks: --resume)"
            ) from None


_JOBLIB_BACKEND = "sunset-sim-dask"


def joblib_dask_backend() -> str:
    """The name of joblib's Dask backend as registered here: joblib's own, except that a
    cluster of one worker thread still gets the tasks. joblib plays a call whose backend
    reports one job in the calling process instead (``Parallel``'s ``n_jobs == 1``
    shortcut), so on a one-thread cluster every chunk was played on the driver."""
    import joblib

    if _JOBLIB_BACKEND not in joblib.parallel.BACKENDS:
        from joblib._dask import DaskDistributedBackend

        class ClusterBackend(DaskDistributedBackend):
            def effective_n_jobs(self, n_jobs: int) -> int:
                return max(2, super().effective_n_jobs(n_jobs))

            async def _collect_failures_too(self):
                """joblib's, except that a task the cluster failed (KilledWorker: its
                worker died running it) also reaches the task's callback, as a task's own
                exception does: joblib only set it on a future nobody reads, and waited
                for it forever."""
                import asyncio

                while self._continue:
                    async for future, result in self.waiting_futures:
                        done = self._results.pop(future)
                        callback = self._callbacks.pop(future)
                        if future.status == "error":
                            error = result[1] if isinstance(result, tuple) else result
                            done.set_exception(error)
                            callback(error)  # (joblib raises it in the waiting call)
                        else:
                            done.set_result(result)
                            callback(result)
                    await asyncio.sleep(0.01)

        import inspect

        theirs = inspect.getsource(DaskDistributedBackend._collect)  # (joblib 1.6's)
        if all(f"self.{name}.pop(future)" in theirs for name in ("_results", "_callbacks")):
            ClusterBackend._collect = ClusterBackend._collect_failures_too  # type: ignore[method-assign]
        joblib.register_parallel_backend(_JOBLIB_BACKEND, ClusterBackend)
    return _JOBLIB_BACKEND
