"""Worker processes for ``DataLoader(num_workers > 0)``.

Each pass hands index batches to the workers in turn (worker ``k`` gets tasks ``k``,
``k + n``, ... while all are active), keeping ``prefetch_factor`` tasks per worker in
flight, and yields results in task order whatever order they arrive in.  A worker seeds
itself as PyTorch's do: ``base_seed + worker_id`` for Python's ``random`` and for this
runtime's generator, and NumPy's ``SeedSequence([worker_id, base_seed low 32 bits, high
bits, 0])`` for ``numpy.random``; ``get_worker_info()`` describes the worker inside it.
An exception in a worker is raised again in the main process with the worker's traceback;
an iterable dataset that runs out in one worker retires that worker only.
"""

from __future__ import annotations

import itertools
import multiprocessing as mp
import os
import pickle
import queue
import random
import traceback
from dataclasses import dataclass
from multiprocessing.reduction import ForkingPickler
from typing import Any

import numpy as np

from .. import random as rng
from .loader import BaseIter, DataLoader, Fetcher

__all__ = ["MultiProcessIter", "WorkerInfo", "get_worker_info"]

_POLL_S = 0.5


@dataclass(frozen=True)
class WorkerInfo:
    """What a worker process knows about itself (``get_worker_info()`` inside a worker)."""

    id: int
    num_workers: int
    seed: int
    dataset: Any


_worker_info: WorkerInfo | None = None


def get_worker_info() -> WorkerInfo | None:
    """This worker's ``WorkerInfo``; ``None`` in the main process."""
    return _worker_info


class _Exhausted:
    """A worker's note that its copy of an iterable dataset has run out."""

    def __init__(self, worker_id: int) -> None:
        self.worker_id = worker_id


class _Resume:
    """Start the dataset afresh (a persistent worker's next pass)."""


class WorkerError:
    """An exception caught in a worker, carried to the main process as type and text."""

    def __init__(self, exc: BaseException, where: str) -> None:
        self.exc_type: type = type(exc)
        try:
            pickle.dumps(self.exc_type)
        except Exception:  # a class the main process could not find: report it as text
            self.exc_type = RuntimeError
        self.text = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
        self.where = where

    def reraise(self) -> None:
        msg = f"Caught {self.exc_type.__name__} {self.where}.\nOriginal {self.text}"
        try:
            err = self.exc_type(msg)
        except Exception:  # an exception type that wants other arguments
            raise RuntimeError(msg) from None
        raise err


def _worker_loop(spec: tuple[Any, ...], init_fn: Any, index_queue: Any, data_queue: Any,
                 worker_id: int, num_workers: int, base_seed: int) -> None:
    """The body of one worker process: seed, initialise, then serve tasks until ``None``.

    ``spec`` holds the ``Fetcher`` arguments (dataset first), ``init_fn`` the loader's
    ``worker_init_fn``."""
    global _worker_info
    seed = base_seed + worker_id
    random.seed(seed)
    rng.manual_seed(seed)
    np.random.seed(np.random.SeedSequence(
        [worker_id, base_seed & 0xFFFFFFFF, base_seed >> 32, 0]).generate_state(4))
    _worker_info = WorkerInfo(worker_id, num_workers, seed, spec[0])
    failure = None
    try:
        if init_fn is not None:
            init_fn(worker_id)
        fetcher = Fetcher(*spec)
    except Exception as exc:  # reported with the first task
        failure = WorkerError(exc, f"in DataLoader worker process {worker_id}")
    exhausted = False
    parent = os.getppid()
    while True:
        try:
            task = index_queue.get(timeout=_POLL_S)
        except queue.Empty:
            if os.getppid() != parent:  # the main process is gone
                break
            continue
        if task is None:
            break
        if isinstance(task, _Resume):
            exhausted = False
            fetcher = Fetcher(*spec)
            continue
        if exhausted:
            continue
        pass_id, idx, index = task
        if failure is not None:
            data: Any = failure
        else:
            try:
                data = fetcher.fetch(index)
            except StopIteration as exc:
                if fetcher.iterable:
                    exhausted = True
                    data = _Exhausted(worker_id)
                else:
                    data = WorkerError(exc, f"in DataLoader worker process {worker_id}")
            except Exception as exc:
                data = WorkerError(exc, f"in DataLoader worker process {worker_id}")
        data_queue.put((pass_id, idx, _pack(data, worker_id)))
    data_queue.cancel_join_thread()


def _pack(data: Any, worker_id: int) -> bytes:
    """``data`` pickled here, so that a batch that cannot be pickled becomes an error the
    main process sees instead of a message lost in the queue's feeder thread."""
    try:
        return bytes(ForkingPickler.dumps(data))
    except Exception as exc:
        return bytes(ForkingPickler.dumps(WorkerError(exc, f"in DataLoader worker process "
                                                           f"{worker_id}")))


class MultiProcessIter(BaseIter):
    """A pass over the loader with worker processes (see the module docstring)."""

    def __init__(self, loader: DataLoader) -> None:
        super().__init__(loader)
        ctx = loader.multiprocessing_context or mp.get_context()
        self._n = loader.num_workers
        self._prefetch = loader.prefetch_factor or 2
        self._timeout = loader.timeout
        self._data_queue = ctx.Queue()
        self._index_queues = []
        self._workers = []
        spec = (loader.dataset, loader._iterable, loader._auto_collation, loader.collate_fn,
                loader.drop_last)
        for wid in range(self._n):
            iq = ctx.Queue()
            iq.cancel_join_thread()
            args = (spec, loader.worker_init_fn, iq, self._data_queue, wid, self._n,
                    self._base_seed)
            w = ctx.Process(target=_worker_loop, args=args, daemon=True)
            w.start()
            self._index_queues.append(iq)
            self._workers.append(w)
        self._shut = False
        self._pass = 0
        self._start_pass(first=True)

    def _start_pass(self, first: bool) -> None:
        self._send_idx = 0
        self._rcvd_idx = 0
        self._tasks: dict[int, tuple[Any, ...]] = {}
        self._outstanding = 0
        self._active = [True] * self._n
        self._cycle = itertools.cycle(range(self._n))
        if not first:
            for iq in self._index_queues:
                iq.put(_Resume())
        for _ in range(self._prefetch * self._n):
            self._put_index()

    def reset(self) -> None:
        """Begin a new pass on the same workers (``persistent_workers=True``)."""
        self._sampler_iter = iter(self._loader._index_sampler)
        self._num_yielded = 0
        self._pass += 1  # results of an unfinished earlier pass are dropped on arrival
        self._start_pass(first=False)

    def _put_index(self) -> None:
        try:
            index = self._next_index()
        except StopIteration:
            return
        for _ in range(self._n):
            wid = next(self._cycle)
            if self._active[wid]:
                break
        else:
            return
        self._index_queues[wid].put((self._pass, self._send_idx, index))
        self._tasks[self._send_idx] = (wid,)
        self._send_idx += 1
        self._outstanding += 1

    def _get(self) -> tuple[int, int, bytes]:
        """The next result from any worker; raises if workers died or the timeout passed."""
        waited = 0.0
        while True:
            step = _POLL_S if self._timeout <= 0 else min(_POLL_S, self._timeout - waited)
            try:
                got: tuple[int, int, bytes] = self._data_queue.get(timeout=step)
                return got
            except queue.Empty:
                waited += step
                dead = [str(w.pid) for w in self._workers if not w.is_alive()]
                if dead:
                    self._shutdown(graceful=False)
                    raise RuntimeError(f"DataLoader worker (pid(s) {', '.join(dead)}) exited "
                                       f"unexpectedly") from None
                if 0 < self._timeout <= waited:
                    self._shutdown(graceful=False)
                    raise RuntimeError(f"DataLoader timed out after {self._timeout} "
                                       f"seconds") from None

    def _next_data(self) -> Any:
        while True:
            while self._rcvd_idx < self._send_idx:
                info = self._tasks[self._rcvd_idx]
                if len(info) == 2 or self._active[info[0]]:
                    break
                del self._tasks[self._rcvd_idx]
                self._rcvd_idx += 1
            else:
                if not self._loader.persistent_workers:
                    self._shutdown()
                raise StopIteration
            info = self._tasks[self._rcvd_idx]
            if len(info) == 2:
                del self._tasks[self._rcvd_idx]
                self._rcvd_idx += 1
                return self._process(info[1])
            pass_id, idx, blob = self._get()
            if pass_id != self._pass:
                continue
            data = pickle.loads(blob)
            self._outstanding -= 1
            if isinstance(data, _Exhausted):
                self._active[data.worker_id] = False
                self._put_index()
                continue
            if idx != self._rcvd_idx:
                self._tasks[idx] += (data,)
                continue
            del self._tasks[idx]
            self._rcvd_idx += 1
            return self._process(data)

    def _process(self, data: Any) -> Any:
        self._put_index()
        if isinstance(data, WorkerError):
            data.reraise()
        return data

    def _shutdown(self, graceful: bool = True) -> None:
        """Stop the workers: ask them (``None``) and wait, or, from ``__del__``, where the
        queues may already be closed by garbage collection, terminate them."""
        if self._shut:
            return
        self._shut = True
        if graceful:
            for iq in self._index_queues:
                iq.put(None)
        for w in self._workers:
            if not graceful:
                w.terminate()
            w.join(timeout=5.0)
            if w.is_alive():
                w.terminate()
        for q in (*self._index_queues, self._data_queue):
            q.cancel_join_thread()
            q.close()

    def __del__(self) -> None:
        if getattr(self, "_workers", None) is not None:
            self._shutdown(graceful=False)
