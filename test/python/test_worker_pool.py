"""The native worker pool (runtime/threads.py) on its own, with Python callbacks as
tasks, and under parallel kernels: every part runs exactly once, helpers are other
threads, sleeping workers wake, a busy pool never blocks a second caller, and a
forked child gets workers of its own."""

import ctypes
import os
import threading
import time

import numpy as np
import pytest

from runtime import threads

TASK = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_int64, ctypes.c_int64)


class Recorder:
    """A task that records (part, parts, thread) of every call it gets."""

    def __init__(self, on_part=None):
        self.calls = []
        self._lock = threading.Lock()
        self._on_part = on_part
        self.task = TASK(self._run)

    def _run(self, _args, part, parts):
        with self._lock:
            self.calls.append((part, parts, threading.get_ident()))
        if self._on_part:
            self._on_part(part)

    @property
    def address(self):
        return ctypes.cast(self.task, ctypes.c_void_p).value

    def parts(self):
        return sorted(part for part, _, _ in self.calls)


def run_with_deadline(fn, seconds=60.0):
    """Run ``fn`` on a thread; fail (instead of hanging the suite) if it deadlocks."""
    errors = []

    def body():
        try:
            fn()
        except BaseException as e:  # pragma: no cover - reported below
            errors.append(e)

    t = threading.Thread(target=body, daemon=True)
    t.start()
    t.join(seconds)
    assert not t.is_alive(), "the pool did not finish the job (deadlock?)"
    assert errors == []


@pytest.fixture(scope="module")
def small_pool():
    """A private pool of three threads (the caller and two workers) whose workers sleep
    after 0.2 ms of spinning."""
    pool = threads.NativePool(max_workers=2, spin_ns=200_000)
    pool.set_threads(3)
    return pool


@pytest.mark.parametrize("parts", [1, 2, 3, 4, 7])
def test_every_part_runs_once_on_the_caller_or_the_workers(small_pool, parts):
    rec = Recorder()
    me = threading.get_ident()
    run_with_deadline(lambda: small_pool.run(rec.address, None, parts))
    assert rec.parts() == list(range(parts))
    assert {n for _, n, _ in rec.calls} == {parts}
    assert me not in {ident for _, _, ident in rec.calls}  # run_with_deadline's thread called
    assert len({ident for _, _, ident in rec.calls}) <= min(parts, 3)  # the caller and two workers


def test_slow_parts_are_shared_with_the_workers(small_pool):
    """Parts taking 50 ms each: the workers wake and claim parts long before the caller
    is through with its first one, so three parts run on three threads."""
    rec = Recorder(on_part=lambda part: time.sleep(0.05))
    run_with_deadline(lambda: small_pool.run(rec.address, None, 3))
    assert rec.parts() == [0, 1, 2]
    assert len({ident for _, _, ident in rec.calls}) == 3


def test_more_parts_than_threads_run_on_the_configured_threads_only():
    """Eight slow parts on a pool configured for two threads: the caller and one worker
    share them; no second worker starts to spin against them."""
    pool = threads.NativePool(max_workers=4, spin_ns=200_000)
    pool.set_threads(2)
    rec = Recorder(on_part=lambda part: time.sleep(0.01))
    run_with_deadline(lambda: pool.run(rec.address, None, 8))
    assert rec.parts() == list(range(8))
    assert len({ident for _, _, ident in rec.calls}) == 2


JOBS = 10000


def test_back_to_back_jobs_never_run_a_part_twice_or_of_another_job(small_pool):
    """Thousands of jobs in a row, each part recording its job: workers that wake late
    (or are still spinning on the previous job) must claim nothing of a finished job
    and never run a part of one job with another's task. Part counts go up and down: a
    late worker that read the next job's larger count against its own finished job's
    ticket once claimed a part past its end (a part run twice, or a caller that never
    saw its count: about one run in three of this test hung or failed then)."""
    counts = {}
    lock = threading.Lock()
    tasks = []
    for job in range(2):

        def run(_args, part, parts, job=job):
            with lock:
                counts[(job, part)] = counts.get((job, part), 0) + 1

        tasks.append(TASK(run))

    def jobs():
        for i in range(JOBS):
            small_pool.run(ctypes.cast(tasks[i % 2], ctypes.c_void_p).value, None, 1 + i % 4)

    run_with_deadline(jobs)
    want = {}
    for i in range(JOBS):
        for part in range(1 + i % 4):
            want[(i % 2, part)] = want.get((i % 2, part), 0) + 1
    assert counts == want


def test_sleeping_workers_wake_for_the_next_job(small_pool):
    def jobs():
        for i in range(30):
            time.sleep(0.001 if i % 2 else 0.0)  # longer than the spin: workers went to sleep
            rec = Recorder()
            small_pool.run(rec.address, None, 3)
            assert rec.parts() == [0, 1, 2]

    run_with_deadline(jobs)


def test_a_busy_pool_runs_a_second_callers_parts_on_its_own_thread(small_pool):
    """While part 0 of job A runs (the pool is busy), another thread's job B must not
    wait for A: it runs all of its parts on its own thread."""
    inner = Recorder()
    seen = {}

    def during_a(part):
        if part == 0:
            t = threading.Thread(
                target=lambda: (small_pool.run(inner.address, None, 3), seen.setdefault("b", threading.get_ident()))
            )
            t.start()
            t.join(30)
            seen["b_done"] = not t.is_alive()

    outer = Recorder(on_part=during_a)
    run_with_deadline(lambda: small_pool.run(outer.address, None, 3))
    assert seen["b_done"] and outer.parts() == [0, 1, 2] and inner.parts() == [0, 1, 2]
    assert {ident for _, _, ident in inner.calls} == {seen["b"]}


def test_many_callers_at_once_each_get_every_part(small_pool):
    results = []

    def caller():
        for _ in range(40):
            rec = Recorder()
            small_pool.run(rec.address, None, 4)
            results.append(rec.parts())

    callers = [threading.Thread(target=caller) for _ in range(4)]
    run_with_deadline(lambda: ([t.start() for t in callers], [t.join() for t in callers]))
    assert len(results) == 160 and all(r == [0, 1, 2, 3] for r in results)


def _layernorm_kernel():
    from benchmarks.workloads import WORKLOADS
    from compiler.backends.llvm_cpu import compile_module

    w = next(w for w in WORKLOADS if w.name == "layernorm")
    return w, compile_module(w.module("tiny"))


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork")
def test_a_forked_child_runs_parallel_kernels_on_workers_of_its_own(monkeypatch):
    monkeypatch.setattr(threads, "PARALLEL_MIN_BYTES", 0)
    monkeypatch.setenv("EMBER_NUM_THREADS", "3")
    w, kernel = _layernorm_kernel()
    assert kernel.parallel
    x, gamma, beta = w.inputs(np.random.default_rng(0), "tiny")
    want = w.numpy(x, gamma, beta)
    np.testing.assert_allclose(kernel(x, gamma, beta)[0], want, rtol=1e-4, atol=1e-4)  # parent's workers exist
    pid = os.fork()
    if pid == 0:  # child: exit 0 only if the kernel ran (and did not hang) and agreed
        ok = all(np.allclose(kernel(x, gamma, beta)[0], want, rtol=1e-4, atol=1e-4) for _ in range(5))
        os._exit(0 if ok else 1)
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            assert os.waitstatus_to_exitcode(status) == 0
            return
        time.sleep(0.01)
    os.kill(pid, 9)
    os.waitpid(pid, 0)
    pytest.fail("the forked child's parallel kernel hung")


def test_a_pool_outlives_every_python_reference():
    """Its workers keep running its code, so dropping the pool must not free that code."""
    import gc
    import weakref

    pools = [threads.NativePool(max_workers=1, spin_ns=0)]
    rec = Recorder()
    run_with_deadline(lambda: pools[0].run(rec.address, None, 2))
    ref = weakref.ref(pools[0])
    pools.clear()
    gc.collect()
    assert ref() is not None and rec.parts() == [0, 1]
