"""The worker threads that run a kernel's parts (see compiler/passes/parallel.py).

A parallel kernel is split into ``parts`` calls over contiguous blocks of its tiles.
Handing those calls to Python threads (a ``ThreadPoolExecutor``) cost ~50 µs per
kernel call — futures, a condition variable, the GIL taken back by each worker — which
is 7% of a 4096x1024 layernorm on two cores. So the pool is native code: this module
writes it in LLVM IR and JIT-compiles it once per process. Its workers spin for a
while after each job (the next kernel call usually follows within microseconds),
then sleep on a condition variable; a call hands out the job by storing one word per
worker and runs part 0 itself, all without the GIL (ctypes released it).

Each parallel kernel object gets ``ember_launch_<name>`` (see ``runtime/abi.py``),
which packs its array pointers and calls ``ember_pool_run(task, args, parts)``;
the JIT resolves that symbol to this pool (``register_symbols``). The pool runs one
job at a time: a call that finds it busy (another Python thread's kernel) runs its
parts one after another on its own thread, so concurrent callers never wait on each
other's work. After ``fork`` the child has none of the parent's workers; it starts
its own on first use.

Small problems run as one part: the hand-off costs about 0.2 µs, but below
``PARALLEL_MIN_BYTES`` a kernel has too few tiles to share (``ember-tile`` sizes tiles
at 256 KiB of operands; ``python benchmarks/parallel_split.py`` on two cores:
``tanh(x*x)`` on 256 KiB runs no faster in two parts, on 384 KiB 1.46x faster).
"""

from __future__ import annotations

import ctypes
import functools
import os

import llvmlite.binding as llvm

from compiler import config

PARALLEL_MIN_BYTES = 384 << 10  # one and a half tiles of ember-tile's default size
MAX_WORKERS = 255  # worker ids 1..MAX_WORKERS; part 0 runs on the calling thread
SPIN_NS = 1_000_000  # a worker spins this long for the next job before it sleeps
CLOCK_MONOTONIC = 1  # Linux


def num_threads() -> int:
    """``compiler.config.num_threads`` if set, else ``EMBER_NUM_THREADS``, else the
    cores this process may run on."""
    if config.num_threads is not None:
        return max(1, int(config.num_threads))
    value = os.environ.get("EMBER_NUM_THREADS")
    if value:
        try:
            return max(1, int(value))
        except ValueError:
            raise ValueError(f"EMBER_NUM_THREADS must be an integer, got {value!r}") from None
    return _cores()


@functools.cache
def _cores() -> int:
    """The cores this process may run on, read once: ``num_threads`` runs on every
    parallel kernel call, and the affinity mask is a system call."""
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return os.cpu_count() or 1


def parts_for(arrays) -> int:
    """How many parts one call splits into: all threads, unless the data is small."""
    return num_threads() if sum(a.nbytes for a in arrays) >= PARALLEL_MIN_BYTES else 1


def _pause(triple: str) -> str:
    """The spin-wait hint of the host, as an LLVM call (none where there is none)."""
    if triple.startswith(("x86_64", "i686", "i386")):
        return "call void @llvm.x86.sse2.pause()"
    if triple.startswith(("aarch64", "arm64")):
        return "call void @llvm.aarch64.hint(i32 1)"
    return ""


def pool_ir(triple: str, max_workers: int = MAX_WORKERS, spin_ns: int = SPIN_NS) -> str:
    """The pool in LLVM IR. Job hand-out per worker ``i`` (one cache line each):
    the caller stores the job number in ``want[i]``; the worker runs part ``i`` and
    stores it in ``ack[i]``. ``sleepers`` and the seq_cst order of ``want`` and
    ``sleepers`` (stored by one side, loaded by the other) rule out a lost wake-up."""
    pause = _pause(triple)
    slots = f"[{max_workers + 1} x [8 x i64]]"
    declare_pause = {"x86": "declare void @llvm.x86.sse2.pause()",
                     "aarch64": "declare void @llvm.aarch64.hint(i32)"}
    declares = "\n".join(d for key, d in declare_pause.items() if f"llvm.{key}" in pause)
    return f"""
@busy = internal global i32 0
@job = internal global i64 0
@workers = internal global i64 0
@sleepers = internal global i64 0
@ready = internal global i1 false
@task = internal global ptr null
@args = internal global ptr null
@parts = internal global i64 0
@want = internal global {slots} zeroinitializer, align 64
@ack = internal global {slots} zeroinitializer, align 64
@mutex = internal global [128 x i8] zeroinitializer, align 64
@cond = internal global [128 x i8] zeroinitializer, align 64

declare i32 @pthread_create(ptr, ptr, ptr, ptr)
declare i32 @pthread_detach(i64)
declare i32 @pthread_mutex_init(ptr, ptr)
declare i32 @pthread_mutex_lock(ptr)
declare i32 @pthread_mutex_unlock(ptr)
declare i32 @pthread_cond_init(ptr, ptr)
declare i32 @pthread_cond_wait(ptr, ptr)
declare i32 @pthread_cond_broadcast(ptr)
declare i32 @clock_gettime(i32, ptr)
declare i32 @sched_yield()
{declares}

define internal void @spin_hint() {{
  {pause}
  ret void
}}

define internal i64 @now_ns() {{
  %ts = alloca {{ i64, i64 }}, align 8
  call i32 @clock_gettime(i32 {CLOCK_MONOTONIC}, ptr %ts)
  %sec = load i64, ptr %ts, align 8
  %nsp = getelementptr {{ i64, i64 }}, ptr %ts, i32 0, i32 1
  %nsec = load i64, ptr %nsp, align 8
  %secns = mul i64 %sec, 1000000000
  %t = add i64 %secns, %nsec
  ret i64 %t
}}

; Wait until want[id] differs from %seen: spin for {spin_ns} ns, then sleep.
define internal i64 @next_job(i64 %id, i64 %seen) {{
entry:
  %wantp = getelementptr {slots}, ptr @want, i64 0, i64 %id, i64 0
  %start = call i64 @now_ns()
  br label %spin
spin:
  %i = phi i64 [0, %entry], [%i1, %pause], [%i1, %clock], [0, %woken]
  %start.s = phi i64 [%start, %entry], [%start.s, %pause], [%start.s, %clock], [%start.w, %woken]
  %g = load atomic i64, ptr %wantp seq_cst, align 8
  %new = icmp ne i64 %g, %seen
  br i1 %new, label %found, label %pause
pause:
  call void @spin_hint()
  %i1 = add i64 %i, 1
  %sample = and i64 %i1, 255
  %check = icmp eq i64 %sample, 0
  br i1 %check, label %clock, label %spin
clock:
  call i32 @sched_yield()
  %t = call i64 @now_ns()
  %spent = sub i64 %t, %start.s
  %more = icmp slt i64 %spent, {spin_ns}
  br i1 %more, label %spin, label %sleep
sleep:
  call i32 @pthread_mutex_lock(ptr @mutex)
  atomicrmw add ptr @sleepers, i64 1 seq_cst
  br label %recheck
recheck:
  %g2 = load atomic i64, ptr %wantp seq_cst, align 8
  %same = icmp eq i64 %g2, %seen
  br i1 %same, label %wait, label %woken
wait:
  call i32 @pthread_cond_wait(ptr @cond, ptr @mutex)
  br label %recheck
woken:
  atomicrmw sub ptr @sleepers, i64 1 seq_cst
  call i32 @pthread_mutex_unlock(ptr @mutex)
  %start.w = call i64 @now_ns()
  br label %spin
found:
  ret i64 %g
}}

define internal ptr @worker(ptr %arg) {{
entry:
  %id = ptrtoint ptr %arg to i64
  %ackp = getelementptr {slots}, ptr @ack, i64 0, i64 %id, i64 0
  %seen0 = load atomic i64, ptr %ackp acquire, align 8
  br label %loop
loop:
  %seen = phi i64 [%seen0, %entry], [%g, %loop]
  %g = call i64 @next_job(i64 %id, i64 %seen)
  %task = load ptr, ptr @task, align 8
  %args = load ptr, ptr @args, align 8
  %parts = load i64, ptr @parts, align 8
  call void %task(ptr %args, i64 %id, i64 %parts)
  store atomic i64 %g, ptr %ackp release, align 8
  br label %loop
}}

; Start workers until there are %n (at most {max_workers}); returns how many there are.
define internal i64 @ensure_workers(i64 %n) {{
entry:
  %ready = load i1, ptr @ready, align 1
  br i1 %ready, label %grow, label %init
init:
  call i32 @pthread_mutex_init(ptr @mutex, ptr null)
  call i32 @pthread_cond_init(ptr @cond, ptr null)
  store i1 true, ptr @ready, align 1
  br label %grow
grow:
  %small = icmp slt i64 %n, {max_workers}
  %limit = select i1 %small, i64 %n, i64 {max_workers}
  %tid = alloca i64, align 8
  br label %check
check:
  %w = load i64, ptr @workers, align 8
  %enough = icmp sge i64 %w, %limit
  br i1 %enough, label %done, label %spawn
spawn:
  %id = add i64 %w, 1
  %j = load i64, ptr @job, align 8
  %wantp = getelementptr {slots}, ptr @want, i64 0, i64 %id, i64 0
  %ackp = getelementptr {slots}, ptr @ack, i64 0, i64 %id, i64 0
  store i64 %j, ptr %wantp, align 8
  store i64 %j, ptr %ackp, align 8
  %arg = inttoptr i64 %id to ptr
  %rc = call i32 @pthread_create(ptr %tid, ptr null, ptr @worker, ptr %arg)
  %failed = icmp ne i32 %rc, 0
  br i1 %failed, label %done, label %started
started:
  %handle = load i64, ptr %tid, align 8
  call i32 @pthread_detach(i64 %handle)
  store i64 %id, ptr @workers, align 8
  br label %check
done:
  %have = load i64, ptr @workers, align 8
  ret i64 %have
}}

define internal void @run_serial(ptr %task, ptr %args, i64 %from, i64 %parts) {{
entry:
  %none = icmp sge i64 %from, %parts
  br i1 %none, label %exit, label %body
body:
  %p = phi i64 [%from, %entry], [%p1, %body]
  call void %task(ptr %args, i64 %p, i64 %parts)
  %p1 = add i64 %p, 1
  %more = icmp slt i64 %p1, %parts
  br i1 %more, label %body, label %exit
exit:
  ret void
}}

; task(args, part, parts) for every part in [0, parts); part 0 on this thread.
define void @ember_pool_run(ptr %task, ptr %args, i64 %parts) {{
entry:
  %split = icmp sgt i64 %parts, 1
  br i1 %split, label %claim, label %alone
alone:
  call void %task(ptr %args, i64 0, i64 1)
  ret void
claim:
  %pair = cmpxchg ptr @busy, i32 0, i32 1 acquire monotonic
  %mine = extractvalue {{ i32, i1 }} %pair, 1
  br i1 %mine, label %handout, label %serial
serial:
  call void @run_serial(ptr %task, ptr %args, i64 0, i64 %parts)
  ret void
handout:
  %others = sub i64 %parts, 1
  %have = call i64 @ensure_workers(i64 %others)
  %fewer = icmp slt i64 %have, %others
  %helpers = select i1 %fewer, i64 %have, i64 %others
  store ptr %task, ptr @task, align 8
  store ptr %args, ptr @args, align 8
  store i64 %parts, ptr @parts, align 8
  %j0 = atomicrmw add ptr @job, i64 1 seq_cst
  %j = add i64 %j0, 1
  br label %signal
signal:
  %i = phi i64 [1, %handout], [%i1, %signal]
  %wantp = getelementptr {slots}, ptr @want, i64 0, i64 %i, i64 0
  store atomic i64 %j, ptr %wantp seq_cst, align 8
  %i1 = add i64 %i, 1
  %more = icmp sle i64 %i1, %helpers
  br i1 %more, label %signal, label %wake
wake:
  %asleep = load atomic i64, ptr @sleepers seq_cst, align 8
  %any = icmp ne i64 %asleep, 0
  br i1 %any, label %broadcast, label %work
broadcast:
  call i32 @pthread_mutex_lock(ptr @mutex)
  call i32 @pthread_cond_broadcast(ptr @cond)
  call i32 @pthread_mutex_unlock(ptr @mutex)
  br label %work
work:
  call void %task(ptr %args, i64 0, i64 %parts)
  %rest = add i64 %helpers, 1
  call void @run_serial(ptr %task, ptr %args, i64 %rest, i64 %parts)
  br label %join
join:
  %k = phi i64 [1, %work], [%k1, %joined]
  %ackp = getelementptr {slots}, ptr @ack, i64 0, i64 %k, i64 0
  br label %poll
poll:
  %n = phi i64 [0, %join], [%n1, %spin], [0, %yield]
  %a = load atomic i64, ptr %ackp acquire, align 8
  %finished = icmp eq i64 %a, %j
  br i1 %finished, label %joined, label %spin
spin:
  call void @spin_hint()
  %n1 = add i64 %n, 1
  %often = icmp ult i64 %n1, 256
  br i1 %often, label %poll, label %yield
yield:
  call i32 @sched_yield()  ; more threads than cores: let the one we wait for run
  br label %poll
joined:
  %k1 = add i64 %k, 1
  %left = icmp sle i64 %k1, %helpers
  br i1 %left, label %join, label %release
release:
  store atomic i32 0, ptr @busy release, align 4
  ret void
}}

; In a child after fork: the parent's workers do not exist here.
define void @ember_pool_after_fork() {{
  store i32 0, ptr @busy, align 4
  store i64 0, ptr @workers, align 8
  store i64 0, ptr @sleepers, align 8
  store i1 false, ptr @ready, align 1
  ret void
}}
"""


class NativePool:
    """One compiled pool: ``run(task, args, parts)`` calls the C function
    ``task(args, part, parts)`` once for every part, part 0 on the calling thread.

    A pool is never freed: its workers run (or sleep) in its code until the process
    exits, so its engine must outlive every reference Python holds, interpreter
    shutdown included — each pool keeps one extra reference to itself."""

    def __init__(self, max_workers: int = MAX_WORKERS, spin_ns: int = SPIN_NS):
        from compiler.backends.llvm_cpu.codegen import host_target, target_machine

        # Unoptimized, and code generation at -O0: 4 ms instead of 35 ms at -O2, paid by
        # every process that runs a parallel kernel; the pool's paths are a few dozen
        # instructions either way (benchmarks/parallel_split.py's 1-element row).
        machine = target_machine(0)
        module = llvm.parse_assembly(pool_ir(host_target().triple, max_workers, spin_ns))
        module.triple, module.data_layout = machine.triple, str(machine.target_data)
        module.verify()
        self._engine = llvm.create_mcjit_compiler(module, machine)
        self._engine.finalize_object()
        self.run_address = self._engine.get_function_address("ember_pool_run")
        self.run = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int64)(self.run_address)
        self.after_fork = ctypes.CFUNCTYPE(None)(self._engine.get_function_address("ember_pool_after_fork"))
        os.register_at_fork(after_in_child=self.after_fork)
        ctypes.pythonapi.Py_IncRef(ctypes.py_object(self))


@functools.cache
def pool() -> NativePool:
    """The process's pool, which every parallel kernel uses."""
    return NativePool()


@functools.cache
def register_symbols() -> None:
    """Make ``ember_pool_run`` resolvable by the JIT for parallel kernels' objects."""
    llvm.add_symbol("ember_pool_run", pool().run_address)
