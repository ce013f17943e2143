; Kernel temporaries: malloc/free with a small cache of large blocks (runtime/temporaries.py).
;
; Every block carries a 64-byte header holding its requested size, so ember_temp_free
; knows it. Blocks of at least THRESHOLD bytes are kept on free, in up to SLOTS slots
; and LIMIT bytes in all, and handed out again to a request of the same size: a kernel
; called in a loop allocates the same temporaries every call, and a fresh large block
; is a fresh mmap, whose first touch costs page faults and zeroing. A block freed into
; a full cache takes the place of the one freed longest ago (each slot's stamp is when
; it was filled): the kernels running now keep their blocks, where a cache filled by
; earlier kernels had refused every new size (a program of many kernels then paid
; fresh memory on every call of the later ones). Blocks of at least
; HUGE bytes get madvise(MADV_HUGEPAGE) on their page-aligned interior, as NumPy asks
; for its own arrays. A spin lock guards the slots: kernels on worker threads allocate too.
; ember_temp_trim gives every cached block back to the system (compiler.reset(), and a
; failed malloc before it is tried again).
;
; THRESHOLD, HUGE, SLOTS and LIMIT are filled in by runtime/temporaries.py.

@lock = internal global i32 0
@sizes = internal global [SLOTS x i64] zeroinitializer
@blocks = internal global [SLOTS x ptr] zeroinitializer
@cached = internal global i64 0
@stamps = internal global [SLOTS x i64] zeroinitializer
@clock = internal global i64 0

declare ptr @malloc(i64)
declare void @free(ptr)
declare i32 @madvise(ptr, i64, i32)

define internal void @acquire() {
entry:
  br label %try
try:
  %r = cmpxchg ptr @lock, i32 0, i32 1 acquire monotonic
  %ok = extractvalue { i32, i1 } %r, 1
  br i1 %ok, label %done, label %try
done:
  ret void
}

define internal void @release() {
entry:
  store atomic i32 0, ptr @lock release, align 4
  ret void
}

; A cached block of exactly %n bytes (its header), or null.
define internal ptr @take(i64 %n) {
entry:
  call void @acquire()
  br label %scan
scan:
  %i = phi i64 [ 0, %entry ], [ %next, %miss ]
  %end = icmp eq i64 %i, SLOTS
  br i1 %end, label %none, label %check
check:
  %sp = getelementptr [SLOTS x i64], ptr @sizes, i64 0, i64 %i
  %s = load i64, ptr %sp
  %hit = icmp eq i64 %s, %n
  br i1 %hit, label %found, label %miss
miss:
  %next = add i64 %i, 1
  br label %scan
found:
  %bp = getelementptr [SLOTS x ptr], ptr @blocks, i64 0, i64 %i
  %b = load ptr, ptr %bp
  store i64 0, ptr %sp
  store ptr null, ptr %bp
  %c = load i64, ptr @cached
  %c2 = sub i64 %c, %n
  store i64 %c2, ptr @cached
  call void @release()
  ret ptr %b
none:
  call void @release()
  ret ptr null
}

define internal void @advise(ptr %p, i64 %n) {
entry:
  %a = ptrtoint ptr %p to i64
  %up = add i64 %a, 4095
  %start = and i64 %up, -4096
  %last = add i64 %a, %n
  %end = and i64 %last, -4096
  %len = sub i64 %end, %start
  %sp = inttoptr i64 %start to ptr
  %r = call i32 @madvise(ptr %sp, i64 %len, i32 14)
  ret void
}

define ptr @ember_temp_alloc(i64 %n) {
entry:
  %big = icmp uge i64 %n, THRESHOLD
  br i1 %big, label %lookup, label %fresh
lookup:
  %cached_block = call ptr @take(i64 %n)
  %have = icmp ne ptr %cached_block, null
  br i1 %have, label %give, label %fresh
fresh:
  %total = add i64 %n, 64
  %p0 = call ptr @malloc(i64 %total)
  %failed = icmp eq ptr %p0, null
  br i1 %failed, label %retry, label %record
retry:
  %freed = call i64 @ember_temp_trim()
  %p1 = call ptr @malloc(i64 %total)
  %still = icmp eq ptr %p1, null
  br i1 %still, label %out_of_memory, label %record
record:
  %p = phi ptr [ %p0, %fresh ], [ %p1, %retry ]
  store i64 %n, ptr %p
  %huge = icmp uge i64 %n, HUGE
  br i1 %huge, label %hint, label %give_fresh
hint:
  call void @advise(ptr %p, i64 %total)
  br label %give_fresh
give_fresh:
  %u = getelementptr i8, ptr %p, i64 64
  ret ptr %u
give:
  %v = getelementptr i8, ptr %cached_block, i64 64
  ret ptr %v
out_of_memory:
  ret ptr null
}

define internal i64 @empty_slot() {
entry:
  br label %scan
scan:
  %i = phi i64 [ 0, %entry ], [ %next, %taken ]
  %end = icmp eq i64 %i, SLOTS
  br i1 %end, label %done, label %check
check:
  %sp = getelementptr [SLOTS x i64], ptr @sizes, i64 0, i64 %i
  %s = load i64, ptr %sp
  %empty = icmp eq i64 %s, 0
  br i1 %empty, label %done, label %taken
taken:
  %next = add i64 %i, 1
  br label %scan
done:
  ret i64 %i
}

define internal void @evict_oldest() {
entry:
  br label %scan
scan:
  %i = phi i64 [ 0, %entry ], [ %next, %step ]
  %best = phi i64 [ SLOTS, %entry ], [ %best2, %step ]
  %best_stamp = phi i64 [ -1, %entry ], [ %best_stamp2, %step ]
  %end = icmp eq i64 %i, SLOTS
  br i1 %end, label %evict, label %check
check:
  %sp = getelementptr [SLOTS x i64], ptr @sizes, i64 0, i64 %i
  %s = load i64, ptr %sp
  %tp = getelementptr [SLOTS x i64], ptr @stamps, i64 0, i64 %i
  %t = load i64, ptr %tp
  %used = icmp ne i64 %s, 0
  %older = icmp ult i64 %t, %best_stamp
  %better = and i1 %used, %older
  %best2 = select i1 %better, i64 %i, i64 %best
  %best_stamp2 = select i1 %better, i64 %t, i64 %best_stamp
  br label %step
step:
  %next = add i64 %i, 1
  br label %scan
evict:
  %none = icmp eq i64 %best, SLOTS
  br i1 %none, label %done, label %give_back
give_back:
  %bsp = getelementptr [SLOTS x i64], ptr @sizes, i64 0, i64 %best
  %size = load i64, ptr %bsp
  %bp = getelementptr [SLOTS x ptr], ptr @blocks, i64 0, i64 %best
  %b = load ptr, ptr %bp
  call void @free(ptr %b)
  store i64 0, ptr %bsp
  store ptr null, ptr %bp
  %c = load i64, ptr @cached
  %c2 = sub i64 %c, %size
  store i64 %c2, ptr @cached
  br label %done
done:
  ret void
}

define void @ember_temp_free(ptr %q) {
entry:
  %isnull = icmp eq ptr %q, null
  br i1 %isnull, label %out, label %header
header:
  %p = getelementptr i8, ptr %q, i64 -64
  %n = load i64, ptr %p
  %big = icmp uge i64 %n, THRESHOLD
  br i1 %big, label %keep, label %drop
keep:
  call void @acquire()
  %too_big = icmp ugt i64 %n, LIMIT
  br i1 %too_big, label %full, label %room
room:
  %c = load i64, ptr @cached
  %c2 = add i64 %c, %n
  %fits = icmp ule i64 %c2, LIMIT
  %slot = call i64 @empty_slot()
  %has_slot = icmp ult i64 %slot, SLOTS
  %ok = and i1 %fits, %has_slot
  br i1 %ok, label %store, label %evict
evict:
  call void @evict_oldest()
  br label %room
store:
  %sp = getelementptr [SLOTS x i64], ptr @sizes, i64 0, i64 %slot
  %bp = getelementptr [SLOTS x ptr], ptr @blocks, i64 0, i64 %slot
  %tp = getelementptr [SLOTS x i64], ptr @stamps, i64 0, i64 %slot
  store i64 %n, ptr %sp
  store ptr %p, ptr %bp
  %t = load i64, ptr @clock
  %t2 = add i64 %t, 1
  store i64 %t2, ptr @clock
  store i64 %t2, ptr %tp
  store i64 %c2, ptr @cached
  call void @release()
  ret void
full:
  call void @release()
  br label %drop
drop:
  call void @free(ptr %p)
  br label %out
out:
  ret void
}

define i64 @ember_temp_trim() {
entry:
  call void @acquire()
  br label %scan
scan:
  %i = phi i64 [ 0, %entry ], [ %next, %step ]
  %end = icmp eq i64 %i, SLOTS
  br i1 %end, label %done, label %check
check:
  %sp = getelementptr [SLOTS x i64], ptr @sizes, i64 0, i64 %i
  %s = load i64, ptr %sp
  %used = icmp ne i64 %s, 0
  br i1 %used, label %give_back, label %step
give_back:
  %bp = getelementptr [SLOTS x ptr], ptr @blocks, i64 0, i64 %i
  %b = load ptr, ptr %bp
  call void @free(ptr %b)
  store i64 0, ptr %sp
  store ptr null, ptr %bp
  br label %step
step:
  %next = add i64 %i, 1
  br label %scan
done:
  %c = load i64, ptr @cached
  store i64 0, ptr @cached
  call void @release()
  ret i64 %c
}

define i64 @ember_temp_cached() {
entry:
  %c = load atomic i64, ptr @cached monotonic, align 8
  ret i64 %c
}
