; Ember's native worker pool: runs task(args, part, parts) for every part of a
; parallel kernel call, on the calling thread and its workers (see runtime/threads.py).
;
; Job hand-out per worker i (one cache line each): the caller stores the job number
; in want[i]; @sleepers and the seq_cst order of want and @sleepers (stored by one
; side, loaded by the other) rule out a lost wake-up. The parts are not assigned to
; threads: the caller and each woken worker claim the next unclaimed one from
; @ticket (the job number, 32 bits, above the job's part count and the next part, 16
; bits each) until none is left, and the caller returns when @done counts them all.
; Why: a worker woken late (its core busy with another library's spinning thread, as
; BLAS's are for ~0.1 s after each call) no longer holds up the caller, who runs the
; part itself; a late worker finds the job's parts gone (or a later job's number) and
; claims nothing. The count is in the ticket, not read beside it: a worker late for
; one job that read the next job's larger count while the ticket still named its own,
; finished job claimed a part past the end of it, ran the next job's task, and counted
; it in the next job's @done (a part run twice, or a caller waiting forever for a
; count it had passed).
;
; This file is valid IR as it stands (the default parameters, no spin hint).
; runtime/threads.py:pool_ir() fills in a process's parameters by rewriting exactly
; these lines, which it requires to be present once each:
;   "@max_workers = internal constant i64 <n>"   the initializer, to <n>
;   "@spin_ns = internal constant i64 <n>"       the initializer, to <n>
;   "  ; spin hint"                              the host's spin-wait instruction
; The slot arrays hold 256 workers (ids 0..255, 0 being the caller): max_workers
; is at most 255.

; Worker ids 1..@max_workers; the calling thread takes parts too.
@max_workers = internal constant i64 255
; A worker spins this long (ns) for the next job before it sleeps.
@spin_ns = internal constant i64 1000000

@busy = internal global i32 0
@job = internal global i64 0
@workers = internal global i64 0
@sleepers = internal global i64 0
@ready = internal global i1 false
@task = internal global ptr null
@args = internal global ptr null
@want = internal global [256 x [8 x i64]] zeroinitializer, align 64
@ticket = internal global [8 x i64] zeroinitializer, align 64
@done = internal global [8 x i64] zeroinitializer, align 64
; The job number when worker i was started: the first one it waits to see change.
@started_at = internal global [256 x [8 x i64]] zeroinitializer, align 64
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
declare void @llvm.x86.sse2.pause()
declare void @llvm.aarch64.hint(i32)

define internal void @spin_hint() {
  ; spin hint
  ret void
}

define internal i64 @now_ns() {
  %ts = alloca { i64, i64 }, align 8
  call i32 @clock_gettime(i32 1, ptr %ts)  ; CLOCK_MONOTONIC (Linux)
  %sec = load i64, ptr %ts, align 8
  %nsp = getelementptr { i64, i64 }, ptr %ts, i32 0, i32 1
  %nsec = load i64, ptr %nsp, align 8
  %secns = mul i64 %sec, 1000000000
  %t = add i64 %secns, %nsec
  ret i64 %t
}

; Wait until want[id] differs from %seen: spin for @spin_ns ns, then sleep.
define internal i64 @next_job(i64 %id, i64 %seen) {
entry:
  %wantp = getelementptr [256 x [8 x i64]], ptr @want, i64 0, i64 %id, i64 0
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
  %spin.ns = load i64, ptr @spin_ns, align 8
  %more = icmp slt i64 %spent, %spin.ns
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
}

define internal ptr @worker(ptr %arg) {
entry:
  %id = ptrtoint ptr %arg to i64
  %startp = getelementptr [256 x [8 x i64]], ptr @started_at, i64 0, i64 %id, i64 0
  %seen0 = load atomic i64, ptr %startp acquire, align 8
  br label %loop
loop:
  %seen = phi i64 [%seen0, %entry], [%g, %loop]
  %g = call i64 @next_job(i64 %id, i64 %seen)
  %task = load atomic ptr, ptr @task monotonic, align 8
  %args = load atomic ptr, ptr @args monotonic, align 8
  call void @run_parts(i64 %g, ptr %task, ptr %args)
  br label %loop
}

; Claim and run parts of job %j (its low 32 bits, as @ticket holds them) while the
; ticket still names that job and parts are left, counting each one run in @done.
; The claiming compare-and-swap also orders the loads of @task and @args before it:
; the job cannot finish (nor its caller store the next one's) before this part is done.
define internal void @run_parts(i64 %j, ptr %task, ptr %args) {
entry:
  %jm = and i64 %j, 4294967295
  br label %claim
claim:
  %t = load atomic i64, ptr @ticket acquire, align 64
  %tj = lshr i64 %t, 32
  %tn = lshr i64 %t, 16
  %parts = and i64 %tn, 65535
  %p = and i64 %t, 65535
  %same = icmp eq i64 %tj, %jm
  %left = icmp ult i64 %p, %parts
  %go = and i1 %same, %left
  br i1 %go, label %try, label %exit
try:
  %t1 = add i64 %t, 1
  %r = cmpxchg ptr @ticket, i64 %t, i64 %t1 acq_rel acquire, align 64
  %ok = extractvalue { i64, i1 } %r, 1
  br i1 %ok, label %run, label %claim
run:
  call void %task(ptr %args, i64 %p, i64 %parts)
  atomicrmw add ptr @done, i64 1 release, align 64
  br label %claim
exit:
  ret void
}

; Start workers until there are %n (at most @max_workers); returns how many there are.
define internal i64 @ensure_workers(i64 %n) {
entry:
  %ready = load i1, ptr @ready, align 1
  br i1 %ready, label %grow, label %init
init:
  call i32 @pthread_mutex_init(ptr @mutex, ptr null)
  call i32 @pthread_cond_init(ptr @cond, ptr null)
  store i1 true, ptr @ready, align 1
  br label %grow
grow:
  %max = load i64, ptr @max_workers, align 8
  %small = icmp slt i64 %n, %max
  %limit = select i1 %small, i64 %n, i64 %max
  %tid = alloca i64, align 8
  br label %check
check:
  %w = load i64, ptr @workers, align 8
  %enough = icmp sge i64 %w, %limit
  br i1 %enough, label %done, label %spawn
spawn:
  %id = add i64 %w, 1
  %j = load i64, ptr @job, align 8
  %wantp = getelementptr [256 x [8 x i64]], ptr @want, i64 0, i64 %id, i64 0
  %startp = getelementptr [256 x [8 x i64]], ptr @started_at, i64 0, i64 %id, i64 0
  store i64 %j, ptr %wantp, align 8
  store i64 %j, ptr %startp, align 8
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
}

define internal void @run_serial(ptr %task, ptr %args, i64 %from, i64 %parts) {
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
}

; task(args, part, parts) for every part in [0, parts), on this thread and the workers.
define void @ember_pool_run(ptr %task, ptr %args, i64 %parts) {
entry:
  %split = icmp sgt i64 %parts, 1
  br i1 %split, label %sized, label %alone
alone:
  call void %task(ptr %args, i64 0, i64 1)
  ret void
sized:
  %fits = icmp ule i64 %parts, 65535  ; the ticket's part count (more run serially)
  br i1 %fits, label %claim, label %serial
claim:
  %pair = cmpxchg ptr @busy, i32 0, i32 1 acquire monotonic
  %mine = extractvalue { i32, i1 } %pair, 1
  br i1 %mine, label %handout, label %serial
serial:
  call void @run_serial(ptr %task, ptr %args, i64 0, i64 %parts)
  ret void
handout:
  ; helpers: one fewer than the configured threads (at least one), and than the parts. A
  ; forked loop has more parts than threads; more workers than cores would only spin
  ; against the caller (a 64x64 np.dot after one such loop: 5 -> 10 us a call).
  %threads = load atomic i64, ptr @configured_threads monotonic, align 8
  %few = icmp slt i64 %threads, 2
  %least = select i1 %few, i64 2, i64 %threads
  %over = icmp slt i64 %parts, %least
  %upto = select i1 %over, i64 %parts, i64 %least
  %others = sub i64 %upto, 1
  %have = call i64 @ensure_workers(i64 %others)
  %fewer = icmp slt i64 %have, %others
  %helpers = select i1 %fewer, i64 %have, i64 %others
  store atomic ptr %task, ptr @task monotonic, align 8
  store atomic ptr %args, ptr @args monotonic, align 8
  store atomic i64 0, ptr @done monotonic, align 64
  %j0 = atomicrmw add ptr @job, i64 1 seq_cst
  %j = add i64 %j0, 1
  %jm = and i64 %j, 4294967295
  %jhigh = shl i64 %jm, 32
  %count = shl i64 %parts, 16
  %first = or i64 %jhigh, %count
  store atomic i64 %first, ptr @ticket seq_cst, align 64
  br label %signal
signal:
  %i = phi i64 [1, %handout], [%i1, %signal]
  %wantp = getelementptr [256 x [8 x i64]], ptr @want, i64 0, i64 %i, i64 0
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
  call void @run_parts(i64 %j, ptr %task, ptr %args)
  br label %poll
poll:
  %n = phi i64 [0, %work], [%n1, %spin], [0, %yield]
  %d = load atomic i64, ptr @done acquire, align 64
  %finished = icmp eq i64 %d, %parts
  br i1 %finished, label %release, label %spin
spin:
  call void @spin_hint()
  %n1 = add i64 %n, 1
  %often = icmp ult i64 %n1, 256
  br i1 %often, label %poll, label %yield
yield:
  call i32 @sched_yield()  ; more threads than cores: let the one we wait for run
  br label %poll
release:
  store atomic i32 0, ptr @busy release, align 4
  ret void
}

; The threads configured in Python (runtime/threads.py sets it): what forked loops
; (compiler/passes/fork_loops.py, FORK_PARTS_PER_THREAD parts per thread) and the
; helpers that size their blocks by it split across.
@configured_threads = internal global i64 1, align 8

define i64 @ember_pool_threads() {
  %n = load atomic i64, ptr @configured_threads monotonic, align 8
  ret i64 %n
}

define void @ember_pool_set_threads(i64 %n) {
  store atomic i64 %n, ptr @configured_threads monotonic, align 8
  ret void
}

; In a child after fork: the parent's workers do not exist here.
define void @ember_pool_after_fork() {
  store i32 0, ptr @busy, align 4
  store i64 0, ptr @workers, align 8
  store i64 0, ptr @sleepers, align 8
  store i1 false, ptr @ready, align 1
  ret void
}
