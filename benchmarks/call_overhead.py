"""Call overhead and time to first result: Ember against NumPy, Numba, torch.compile (and JAX).

    python benchmarks/call_overhead.py            # ~1 minute (torch.compile's cold compile dominates)
    python benchmarks/call_overhead.py --quick    # few calls, few batches: smoke run, times not for reading
    python benchmarks/call_overhead.py --no-torch --no-numba

1. *Warm call*: ``lambda x, y: x + y`` on 8-element float32 arrays, microseconds per
   call (median over batches of ``--calls`` calls, after warm-up), with Ember's
   breakdown: the function's generated dispatcher (its ``__call__``: the newest
   entry's guards with the kernel's call path written into it), the entry alone, its
   guard code alone, the kernel object, its generated binder, and the kernel's entry
   alone (the fastcall builtin). Numba, torch.compile and JAX run in
   child processes of their own.
2. *First result*: the seed ``mse`` on 1000-element float32, each in a fresh process:
   ``compile(mse)`` through the first call returning, with an empty artifact cache and
   again with the disk cache warm (same cache directory, second process); import times
   separately. The same for Numba (``cache=True``) and torch.compile (its inductor
   cache pointed at a fresh directory too).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

N_WARM = 8  # elements of the warm-call arrays
N_COLD = 1000  # elements of the mse arrays


def add(x, y):
    return x + y


def mse(x, y):
    z = (x - y) ** 2
    return z.sum()


def warm_inputs(np):
    return np.arange(N_WARM, dtype=np.float32) * np.float32(0.5), np.full(N_WARM, 1.25, np.float32)


def cold_inputs(np):
    rng = np.random.default_rng(0)
    return rng.standard_normal(N_COLD).astype(np.float32), rng.standard_normal(N_COLD).astype(np.float32)


def mse_reference():
    import numpy as np

    x, y = cold_inputs(np)
    return float(((x.astype(np.float64) - y) ** 2).sum())


# ----------------------------------------------------------------------------- timing


def _loop(fn, args, n):
    """``n`` calls of ``fn``; specialised by arity so no ``*args`` packing is timed."""
    if len(args) == 2:
        a, b = args
        for _ in range(n):
            fn(a, b)
    elif len(args) == 3:
        a, b, c = args
        for _ in range(n):
            fn(a, b, c)
    else:
        for _ in range(n):
            fn(*args)


def _loop_inline_add(x, y, n):
    for _ in range(n):
        x + y


def per_call_stats(fn, args, calls: int, batches: int, inline_add: bool = False) -> dict:
    """Per-call microseconds after warm-up: {"us": median over ``batches`` of (batch time /
    ``calls``), "best": the fastest batch}."""
    run = (lambda n: _loop_inline_add(args[0], args[1], n)) if inline_add else (lambda n: _loop(fn, args, n))
    run(max(calls // 10, 10))  # warm-up
    times = []
    for _ in range(batches):
        t0 = time.perf_counter()
        run(calls)
        times.append((time.perf_counter() - t0) / calls)
    return {"us": statistics.median(times) * 1e6, "best": min(times) * 1e6}


# ----------------------------------------------------------------------------- Ember warm path


def ember_parts(compiled, x, y):
    """The pieces of a warm call of ``compiled`` (already called once on ``x, y``).

    Returns a dict of name -> (callable, args): the dispatcher (``compiled``'s generated
    ``__call__``, called without the instance), the entry, its guard code alone (the
    same guards generated into a function without the graph call, as eager entries are),
    the kernel object, its generated binder, and the foreign function with a
    preallocated output.
    """
    import numpy as np

    from compiler.frontend import entry_codegen

    entry = compiled.entries[0]
    run = entry.run
    kernel = entry.graph
    guards_only = entry_codegen.build_entry(
        compiled.__wrapped__, entry.guards, entry.guard_namespace, [], None, [], "True", {}, name="check"
    )
    layout = (x.flags.c_contiguous, y.flags.c_contiguous)
    variant, foreign = kernel.variant(layout)
    foreign = kernel._checked_call().__globals__.get("fast", foreign)  # the builtin the call path tries first
    out = np.empty(N_WARM, np.float32)
    return {
        "dispatcher": (type(compiled).__call__, (x, y)),
        "entry": (run, (x, y)),
        "guards": (guards_only, (x, y)),
        "kernel": (kernel, (x, y)),
        "binder": (kernel._checked_call(), (x, y)),
        "trusted binder": (kernel.call_from_guarded_entry, (x, y)),
        "foreign": (foreign, (x, y, out)),
        "_variant": variant,
        "_out": out,
    }


def warm_ember(calls: int, batches: int) -> dict:
    """Rows of the warm-call table measured in this process (NumPy, a no-op and Ember)."""
    import numpy as np

    import compiler

    x, y = warm_inputs(np)
    want = x + y
    rows = {}
    rows["python no-op lambda x, y: None"] = per_call_stats(lambda a, b: None, (x, y), calls, batches)
    rows["numpy x + y (inline, no call)"] = per_call_stats(None, (x, y), calls, batches, inline_add=True)
    rows["numpy np.add(x, y)"] = per_call_stats(np.add, (x, y), calls, batches)

    f = compiler.compile(lambda x, y: x + y)
    got = f(x, y)
    ok = isinstance(got, np.ndarray) and got.dtype == np.float32 and np.array_equal(got, want)
    rows["ember compile(lambda)(x, y)"] = dict(per_call_stats(f, (x, y), calls, batches), ok=ok)
    parts = ember_parts(f, x, y)
    labels = {
        "dispatcher": "  dispatcher alone (generated __call__)",
        "entry": "  entry.run (guards+kernel+return)",
        "guards": "  guard code alone",
        "kernel": "  GRAPH(x, y): Kernel.__call__",
        "binder": "  Kernel._checked_call(): generated binder",
        "trusted binder": "  entry's binder (guards did the checks)",
        "foreign": "  kernel's entry alone (out preallocated)",
    }
    for key, label in labels.items():
        fn, args = parts[key]
        result = fn(*args)
        if key == "guards":
            good = result is True
        elif key == "foreign":
            good = np.array_equal(parts["_out"], want)
        elif key in ("entry", "dispatcher"):
            good = np.array_equal(result, want)
        else:
            good = np.array_equal(result[0], want)
        rows[label] = dict(per_call_stats(fn, args, calls, batches), ok=bool(good))
    rows["  np.empty(8, float32) (binder's output)"] = per_call_stats(np.empty, (N_WARM, np.float32), calls, batches)
    rows["_parallel"] = parts["_variant"].parallel
    rows["_dispatcher_source"] = type(f).__call__.__ember_source__
    rows["_binder_source"] = parts["binder"][0].__ember_source__
    return rows


# ----------------------------------------------------------------------------- child processes


def worker_warm(kind: str, calls: int, batches: int) -> dict:
    import numpy as np

    x, y = warm_inputs(np)
    want = x + y
    if kind == "numba":
        import numba

        fn = numba.njit(add)
        args, version = (x, y), numba.__version__
        unwrap = lambda r: r  # noqa: E731
    elif kind == "torch":
        import torch

        fn = torch.compile(lambda x, y: x + y)
        args, version = (torch.from_numpy(x), torch.from_numpy(y)), torch.__version__
        unwrap = lambda r: r.numpy()  # noqa: E731
    else:
        import jax
        import jax.numpy as jnp

        jitted = jax.jit(lambda x, y: x + y)
        fn = lambda a, b: jitted(a, b).block_until_ready()  # noqa: E731
        args, version = (jnp.asarray(x), jnp.asarray(y)), jax.__version__
        unwrap = lambda r: np.asarray(r)  # noqa: E731
    got = unwrap(fn(*args))
    ok = bool(np.allclose(got, want) and got.dtype == np.float32)
    return dict(per_call_stats(fn, args, calls, batches), version=version, ok=ok)


def worker_cold(kind: str) -> dict:
    """One fresh process: import times, then compile(mse) through the first result."""
    t0 = time.perf_counter()
    import numpy as np

    t_numpy = time.perf_counter() - t0
    x, y = cold_inputs(np)
    info = {"import_numpy_s": t_numpy}
    t0 = time.perf_counter()
    if kind == "ember":
        import compiler

        info["import_s"] = time.perf_counter() - t0
        t0 = time.perf_counter()
        f = compiler.compile(mse)
        result = float(f(x, y))
        info["first_s"] = time.perf_counter() - t0
        entry = f.entries[0]
        info["trace_s"] = entry.compile_times.get("trace")
        info["entry_total_s"] = entry.compile_times.get("total")
        from runtime.cache import ARTIFACTS

        stats = getattr(ARTIFACTS, "stats", None)
        info["cache_misses"], info["cache_disk_hits"] = (stats.misses, stats.disk_hits) if stats else (None, None)
        info["cache"] = f"cache: {stats.misses} miss, {stats.disk_hits} disk hit" if stats else ""
        info["cache_files"] = sum(len(files) for _, _, files in os.walk(os.environ["EMBER_CACHE_DIR"]))
    elif kind == "numba":
        import numba

        info["import_s"] = time.perf_counter() - t0
        t0 = time.perf_counter()
        f = numba.njit(cache=True)(mse)
        result = float(f(x, y))
        info["first_s"] = time.perf_counter() - t0
    else:
        import torch

        info["import_s"] = time.perf_counter() - t0
        tx, ty = torch.from_numpy(x), torch.from_numpy(y)
        t0 = time.perf_counter()
        f = torch.compile(mse)
        result = float(f(tx, ty))
        info["first_s"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    f(*((tx, ty) if kind == "torch" else (x, y)))
    info["second_s"] = time.perf_counter() - t0
    info["result"] = result
    return info


def run_child(argv: list[str], env: dict | None = None, timeout: float = 600) -> dict:
    """Run this script with ``argv`` in a fresh interpreter; its last JSON line, or an error."""
    cmd = [sys.executable, os.path.abspath(__file__)] + argv
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=timeout, cwd=ROOT)
    except subprocess.TimeoutExpired:
        return {"error": f"timed out after {timeout:.0f} s"}
    for line in reversed(proc.stdout.splitlines()):
        try:
            return json.loads(line)
        except ValueError:
            continue
    tail = (proc.stderr.strip().splitlines() or ["?"])[-1][:200]
    return {"error": f"exit {proc.returncode}: {tail}"}


def have(module: str) -> bool:
    import importlib.util

    return importlib.util.find_spec(module) is not None


def cold_pair(kind: str, env_var: str | None) -> tuple[dict, dict]:
    """(empty cache, warm disk cache): two fresh processes sharing one new cache directory."""
    tmp = tempfile.mkdtemp(prefix=f"ember-cold-{kind}-")
    env = dict(os.environ)
    if env_var:
        env[env_var] = tmp
    if kind == "numba":  # the numba cache lives next to __pycache__ unless redirected
        env["NUMBA_CACHE_DIR"] = tmp
    if kind == "torch":
        env["TORCHINDUCTOR_CACHE_DIR"] = tmp
    try:
        cold = run_child(["--worker", f"cold-{kind}"], env)
        warm = run_child(["--worker", f"cold-{kind}"], env)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return cold, warm


# ----------------------------------------------------------------------------- report


def fmt_us(us):
    return f"{us:8.3f}" if us is not None else "     n/a"


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--quick", action="store_true", help="200 calls x 3 batches; smoke run (times not for reading)")
    p.add_argument("--calls", type=int, default=None, help="calls per batch (default 20000)")
    p.add_argument("--batches", type=int, default=None, help="batches; the median is reported (default 7)")
    p.add_argument("--no-numba", action="store_true")
    p.add_argument("--no-torch", action="store_true")
    p.add_argument("--no-cold", action="store_true", help="skip the first-result section")
    p.add_argument("--show-source", action="store_true", help="print the dispatcher's and binder's generated code")
    p.add_argument("--worker", help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    calls = args.calls or (200 if args.quick else 20000)
    batches = args.batches or (3 if args.quick else 7)

    if args.worker:
        kind = args.worker
        out = worker_cold(kind[5:]) if kind.startswith("cold-") else worker_warm(kind[5:], calls, batches)
        print(json.dumps(out), flush=True)
        return 0

    import numpy as np

    failures = []
    print(
        f"Python {sys.version.split()[0]}, NumPy {np.__version__}, {os.cpu_count()} CPUs, "
        f"load {os.getloadavg()[0]:.2f}; {batches} batches x {calls} calls, median"
    )
    print()
    print(f"1. Warm call, lambda x, y: x + y on {N_WARM}-element float32 (target: Ember < 10 us)")
    rows = warm_ember(calls, batches)
    extra = []
    for kind, flag in (("numba", args.no_numba), ("torch", args.no_torch), ("jax", False)):
        label = {
            "numba": "numba @njit(x, y)",
            "torch": "torch.compile(lambda)(tx, ty)",
            "jax": "jax.jit(lambda)(x, y)",
        }[kind]
        if flag:
            continue
        if not have(kind):
            extra.append((label, {"us": None, "note": "not installed"}))
            continue
        r = run_child(["--worker", f"warm-{kind}", "--calls", str(calls), "--batches", str(batches)])
        if "error" in r:
            extra.append((label, {"us": None, "note": "ERR " + r["error"]}))
            failures.append(f"{label}: {r['error']}")
        else:
            extra.append(
                (f"{label} [{r['version']}]", {"us": r["us"], "best": r["best"], "ok": r["ok"], "note": "own process"})
            )
    ember_us = rows["ember compile(lambda)(x, y)"]["us"]
    numpy_us = rows["numpy x + y (inline, no call)"]["us"]
    table = [(k, v) for k, v in rows.items() if not k.startswith("_")]
    main_rows = [r for r in table if not r[0].startswith("  ")]
    breakdown = [r for r in table if r[0].startswith("  ")]
    width = 46
    print(f"  {'':{width}} {'us/call':>8} {'best':>8}  {'x numpy':>7}  note")

    def line(label, r):
        us = r.get("us")
        ratio = f"{us / numpy_us:7.1f}" if us is not None and numpy_us else "    n/a"
        note = r.get("note", "")
        if r.get("ok") is False:
            note = (note + " WRONG RESULT").strip()
            failures.append(f"{label.strip()}: wrong result")
        print(f"  {label:{width}} {fmt_us(us)} {fmt_us(r.get('best'))}  {ratio}  {note}")

    for label, r in main_rows + extra:
        line(label, r)
    print(f"  Ember breakdown (kernel variant parallel: {rows['_parallel']}):")
    for label, r in breakdown:
        line(label, r)
    dispatcher_us = rows["  dispatcher alone (generated __call__)"]["us"]
    binder_us = rows["  Kernel._checked_call(): generated binder"]["us"]
    foreign_us = rows["  kernel's entry alone (out preallocated)"]["us"]
    print(
        f"    => calling through the instance ~ {ember_us - dispatcher_us:.3f} us; "
        f"guards ~ {rows['  guard code alone']['us']:.3f} us incl. one Python call; "
        f"binder Python ~ {binder_us - foreign_us:.3f} us; kernel entry {foreign_us:.3f} us"
    )
    if args.show_source:
        print("\n" + rows["_dispatcher_source"] + "\n" + rows["_binder_source"])

    if not args.no_cold:
        print()
        print(f"2. First result of mse on {N_COLD}-element float32, fresh processes (target: Ember < 0.3 s)")
        want = mse_reference()
        kinds = [("ember", "EMBER_CACHE_DIR")]
        if not args.no_numba and have("numba"):
            kinds.append(("numba", None))
        if not args.no_torch and have("torch"):
            kinds.append(("torch", None))
        print(f"  {'':22} {'import s':>9} {'first call s':>13} {'2nd call ms':>12}  note")
        for kind, var in kinds:
            cold, warm = cold_pair(kind, var)
            for cache, r in (("empty cache", cold), ("warm disk cache", warm)):
                label = f"{kind}, {cache}"
                if "error" in r:
                    print(f"  {label:22} ERR {r['error']}")
                    failures.append(f"{label}: {r['error']}")
                    continue
                rel = abs(r["result"] - want) / abs(want)
                note = "" if rel < 1e-4 else f"WRONG RESULT (rel err {rel:.2e})"
                if note:
                    failures.append(f"{label}: {note}")
                if kind == "ember" and r.get("trace_s") is not None:
                    note = (
                        f"trace {r['trace_s'] * 1e3:.0f} ms, trace+compile {r['entry_total_s'] * 1e3:.0f} ms; "
                        f"{r['cache']}, {r['cache_files']} file(s) in dir after " + note
                    ).strip()
                print(f"  {label:22} {r['import_s']:9.3f} {r['first_s']:13.3f} {r['second_s'] * 1e3:12.3f}  {note}")
        print(
            "  (import s: the package alone, NumPy already imported; first call s: compile(fn) through the "
            "first call returning)"
        )

    if failures:
        print()
        for f in failures:
            print(f"!! {f}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
