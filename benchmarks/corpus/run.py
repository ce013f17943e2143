"""Run the corpus: every program checked against NumPy, then timed.

    python benchmarks/corpus/run.py                    # bench sizes (a few minutes)
    python benchmarks/corpus/run.py --quick            # small sizes, few calls: smoke run
    python benchmarks/corpus/run.py --only gemm,lu     # some programs
    python benchmarks/corpus/run.py --no-numba         # skip the Numba column

For each program: its inputs are made, NumPy runs the kernel on a copy, Ember
(``compiler.compile(kernel)``) on another (the first call is timed: trace, compile and
run, with an empty artifact cache), and the return value and every argument array are
compared with NumPy's (dtypes, shapes, values; exact for integers and bools).
``compiler.explain`` then says what Ember made of it: ``compiled`` (one graph, no
break), ``N breaks`` or ``fallback`` (the whole call in CPython), with the reasons.
Warm calls of NumPy, Ember and Numba (``numba.njit`` of the same function, when
installed) are timed on fresh copies of the inputs: the median of several calls, NumPy
and Ember in three turns taken in alternation, the best turn of each (as
``benchmarks/run.py``): a phase of the machine during one burst (its memory bandwidth
halves at times) had made single runs report fork-heavy programs 2-3x slower than NumPy
(fft_radix2 0.47x, fdtd_2d 0.74x; 1.45x and 1.8x in the other runs).
Ratios are NumPy's time / that time (higher is faster).

The summary counts the statuses, gives the geometric mean of the ratios and lists
the distinct break and fallback reasons: what the compiler should learn next.
Exit status 1 when a program gives a wrong answer (``WRONG``) or raises (``ERROR``).
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import sys
import tempfile
import time
import warnings
from collections import Counter, defaultdict
from dataclasses import dataclass, field

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
if HERE in sys.path:  # run as a script: keep this folder's modules from shadowing others
    sys.path.remove(HERE)
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

import numpy as np  # noqa: E402

from benchmarks.corpus import PROGRAMS, Program, check_call, compare, fresh, geomean  # noqa: E402


@dataclass
class Row:
    program: Program
    status: str = ""  # compiled / N breaks / fallback / WRONG / ERROR / skipped
    reasons: list = field(default_factory=list)  # (reason text, location)
    details: list = field(default_factory=list)  # mismatches or the error
    first_ms: float = float("nan")
    numpy_ms: float = float("nan")
    ember_ms: float = float("nan")
    numba_ms: float = float("nan")
    numba_note: str = ""  # why there is no Numba time

    @property
    def ratio(self) -> float:
        return self.numpy_ms / self.ember_ms

    @property
    def numba_ratio(self) -> float:
        return self.numpy_ms / self.numba_ms

    @property
    def kind(self) -> str:
        return "breaks" if self.status.endswith("break") or self.status.endswith("breaks") else self.status


def median_ms(fn, args: tuple, target_s: float, min_calls: int = 3, max_calls: int = 200) -> float:
    """Median time of calls of ``fn`` on fresh copies of ``args`` (copied outside the timing)."""
    times = []
    spent = 0.0
    while len(times) < min_calls or (spent < target_s and len(times) < max_calls):
        copies = fresh(args)
        start = time.perf_counter()
        fn(*copies)
        elapsed = time.perf_counter() - start
        times.append(elapsed)
        spent += elapsed
    return statistics.median(times) * 1e3


# seconds between two turns: OpenBLAS's threads spin about 0.1 s after a call (NumPy's
# matmul), and the next turn's calls would share the cores with them (the corpus's
# covariance, Ember after NumPy without the pause: 9.4 -> 18 ms)
SETTLE_S = 0.12


def interleaved_ms(fns: list, args: tuple, target_s: float, turns: int = 3, settle_s: float = SETTLE_S) -> list[float]:
    """``median_ms`` of each of ``fns`` in ``turns`` turns taken in alternation, the best
    turn of each (the target shared out among the turns), each turn after ``settle_s``
    of idle."""
    best = [float("inf")] * len(fns)
    for _ in range(turns):
        for i, fn in enumerate(fns):
            time.sleep(settle_s)
            best[i] = min(best[i], median_ms(fn, args, target_s / turns, min_calls=1))
    return best


def explain_status(compiler, kernel, args: tuple) -> tuple[str, list]:
    out = compiler.explain(kernel)(*fresh(args))
    reasons = [(r.reason, _short_location(r.location)) for r in out.break_reasons]
    if out.graph_count == 0:
        return "fallback", reasons or [("no graph was compiled", "")]
    if out.graph_break_count == 0:
        return "compiled", reasons
    n = out.graph_break_count
    return f"{n} break" + ("s" if n > 1 else ""), reasons


def _short_location(location: str) -> str:
    return location.replace(ROOT + os.sep, "")


def reason_key(reason: str) -> str:
    """A break reason without what is particular to one program: file:line locations
    and the quoted source line."""
    reason = re.sub(r" at \S+:\d+", "", reason)  # "... at file.py:12"
    reason = re.sub(r" at line \d+", " at line N", reason)  # "the loop starting at line 12"
    reason = re.sub(r"\s*\(`[^`]*`\)", "", reason)  # the quoted source line
    reason = re.sub(r"^`[^`]*` runs in Python: ", "", reason)  # the source line a break names
    reason = re.sub(r"L\['[^']*'\]", "L[...]", reason)  # the names of locals
    return reason.strip()


def run_program(p: Program, size: str, target_s: float, numba_jit, compiler) -> Row:
    row = Row(p)
    missing = p.missing()
    if missing:
        row.status = "skipped"
        row.details = [f"needs {', '.join(missing)} (not installed)"]
        return row
    args = p.inputs(size)
    want = (p.kernel(*(copies := fresh(args))), copies)
    compiled = compiler.compile(p.kernel)
    try:
        copies = fresh(args)
        start = time.perf_counter()
        result = compiled(*copies)
        row.first_ms = (time.perf_counter() - start) * 1e3
        got = (result, copies)
    except Exception as e:  # Ember must never raise where NumPy does not
        row.status = "ERROR"
        row.details = [f"{type(e).__name__}: {e}"]
        return row
    problems = check_call(got, want)
    try:
        status, row.reasons = explain_status(compiler, p.kernel, args)
    except Exception as e:
        status, row.reasons = "ERROR", [(f"explain raised {type(e).__name__}: {e}", "")]
    if problems:
        row.status = "WRONG"
        row.details = problems + [f"(Ember's status: {status})"]
        return row
    row.status = status
    row.numpy_ms, row.ember_ms = interleaved_ms([p.kernel, compiled], args, target_s)
    if numba_jit is not None:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                jitted = numba_jit(p.kernel)
                copies = fresh(args)
                nb = (jitted(*copies), copies)
        except Exception as e:
            row.numba_note = "unsupported"
            row.details.append(f"numba: {type(e).__name__}: {_numba_error(e)}")
            return row
        differences = _numba_differs(nb, want)
        if differences:
            row.numba_note = "differs"
            row.details.append(f"numba: {differences[0]}")
            return row
        row.numba_ms = median_ms(jitted, args, target_s)
    return row


def _numba_error(e: Exception) -> str:
    """The line of a Numba error that says what it could not type."""
    lines = [ln.strip() for ln in re.sub(r"\x1b\[[0-9;]*m", "", str(e)).splitlines() if ln.strip()]
    skip = ("Failed in nopython", "During:", "File ", "^", "- Resolution", "No implementation", "Resolution")
    useful = [ln for ln in lines if not ln.startswith(skip)]
    return (useful or lines or [""])[0][:110]


def _numba_differs(got: tuple, want: tuple) -> list[str]:
    """Numba's answer, judged on values: it gives Python scalars where NumPy gives NumPy's."""

    def loose(x):
        if isinstance(x, (bool, int, float, complex, np.generic)):
            return np.asarray(x).astype(np.result_type(x)).item()
        if isinstance(x, (tuple, list)):
            return tuple(loose(v) for v in x)
        return x

    (g, g_args), (w, w_args) = got, want
    return compare(loose(g), loose(w)) + check_call((None, g_args), (None, w_args))


def fmt_ms(ms: float) -> str:
    return "" if ms != ms else f"{ms:.3f}" if ms < 1 else f"{ms:.2f}" if ms < 100 else f"{ms:.0f}"


def fmt_ratio(x: float) -> str:
    return "" if x != x else f"{x:.2f}x"


def print_row(row: Row) -> None:
    numba = row.numba_note or fmt_ratio(row.numba_ratio)
    print(
        f"{row.program.name:<20}{row.program.category:<10}{row.status:<12}{fmt_ms(row.first_ms):>10}"
        f"{fmt_ms(row.numpy_ms):>10}{fmt_ms(row.ember_ms):>10}{fmt_ratio(row.ratio):>9}{numba:>12}",
        flush=True,
    )
    for reason, location in row.reasons:
        print(f"      - {reason}" + (f"  [{location}]" if location else ""))
    for detail in row.details:
        print(f"      ! {detail}" if row.status in ("WRONG", "ERROR") else f"      . {detail}")


def summary(rows: list[Row], numba: bool) -> int:
    ran = [r for r in rows if r.status != "skipped"]
    kinds = Counter(r.kind for r in rows)
    print("\nSummary")
    print(f"  programs: {len(rows)} ({len(ran)} run, {kinds['skipped']} skipped)")
    for kind, label in [
        ("compiled", "compiled (one graph, no break)"),
        ("breaks", "with graph breaks"),
        ("fallback", "fallback (whole call in CPython)"),
        ("WRONG", "WRONG (differs from NumPy)"),
        ("ERROR", "ERROR (raised)"),
    ]:
        print(f"  {label:<36}{kinds[kind]:>4}")
    if ran:
        print(f"  compiled without breaks: {100.0 * kinds['compiled'] / len(ran):.1f}% of the programs run")
    timed = [r for r in ran if r.ember_ms == r.ember_ms]
    if timed:
        print(
            f"  Ember vs NumPy, geometric mean of warm ratios: {geomean(r.ratio for r in timed):.2f}x "
            f"over {len(timed)} programs"
        )
        for kind in ("compiled", "breaks", "fallback"):
            sub = [r for r in timed if r.kind == kind]
            if sub:
                print(f"    {kind:<10} {geomean(r.ratio for r in sub):.2f}x over {len(sub)}")
    if numba:
        by_numba = [r for r in timed if r.numba_ms == r.numba_ms]
        if by_numba:
            print(
                f"  Numba vs NumPy, geometric mean: {geomean(r.numba_ratio for r in by_numba):.2f}x over the "
                f"{len(by_numba)} programs Numba ran (Ember on the same: {geomean(r.ratio for r in by_numba):.2f}x); "
                f"unsupported by Numba: {sum(r.numba_note == 'unsupported' for r in timed)}, "
                f"different result: {sum(r.numba_note == 'differs' for r in timed)}"
            )
    by_reason = defaultdict(list)
    for r in rows:
        for reason, _ in r.reasons:
            key = reason_key(reason)
            if r.program.name not in by_reason[key]:
                by_reason[key].append(r.program.name)
    if by_reason:
        print("\nDistinct break / fallback reasons (programs):")
        for key, names in sorted(by_reason.items(), key=lambda kv: (-len(kv[1]), kv[0])):
            print(f"  {len(names):>3}  {key}\n         {', '.join(names)}")
    bad = [r for r in rows if r.status in ("WRONG", "ERROR")]
    if bad:
        print("\n!! Wrong answers or errors (compiler bugs):")
        for r in bad:
            print(f"!! {r.program.name}: {r.status}: {'; '.join(r.details)}")
    return 1 if bad else 0


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--quick", action="store_true", help="small sizes, few calls: smoke run, times not for reading")
    p.add_argument("--only", default="", help="comma-separated program names")
    p.add_argument("--no-numba", action="store_true", help="skip the Numba column")
    p.add_argument("--target", type=float, default=None, help="seconds of calls per timed column (0.2; quick 0.01)")
    args = p.parse_args(argv)
    size = "small" if args.quick else "bench"
    target = args.target if args.target is not None else (0.01 if args.quick else 0.2)

    programs = PROGRAMS
    if args.only:
        wanted = [n.strip() for n in args.only.split(",") if n.strip()]
        unknown = sorted(set(wanted) - {q.name for q in PROGRAMS})
        if unknown:
            p.error(f"unknown program(s): {', '.join(unknown)}; known: {', '.join(q.name for q in PROGRAMS)}")
        programs = [q for q in PROGRAMS if q.name in wanted]

    numba_jit = None
    if not args.no_numba:
        try:
            from numba import njit

            numba_jit = njit(cache=False)
        except ImportError:
            print("numba is not installed: no Numba column (pip install -e '.[bench]')")

    # an empty artifact cache, so that the first call pays the real compile
    os.environ["EMBER_CACHE_DIR"] = tempfile.mkdtemp(prefix="ember-corpus-cache-")
    import compiler

    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"corpus: {len(programs)} programs, {size} sizes, load average {load:.2f}, cpus {os.cpu_count()}")
    header = (
        f"{'program':<20}{'category':<10}{'status':<12}{'first ms':>10}{'numpy ms':>10}{'ember ms':>10}"
        f"{'ratio':>9}{'numba':>12}"
    )
    print(header + "\n" + "-" * len(header))
    rows = []
    start = time.perf_counter()
    for program in programs:
        row = run_program(program, size, target, numba_jit, compiler)
        print_row(row)
        rows.append(row)
    print(
        f"\nfirst ms: Ember's first call (trace + compile + run); ratio: NumPy ms / Ember ms (warm, higher is "
        f"faster); numba: NumPy ms / Numba ms. {time.perf_counter() - start:.0f} s in all."
    )
    return summary(rows, numba_jit is not None)


if __name__ == "__main__":
    sys.exit(main())
