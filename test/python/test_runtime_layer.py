"""The runtime is the bottom layer: it imports nothing from the compiler, loads and
calls object code with no MLIR bindings in the process, and owns the kernel ABI
(runtime/abi.py) and the glue IR every kernel object exports (runtime/entry_glue.py)."""

import gc
import json
import pkgutil
import subprocess
import sys
import weakref
from pathlib import Path

import llvmlite.binding as llvm
import numpy as np
import pytest

import runtime
from runtime import abi, entry_glue, threads
from runtime.abi import DYN, ArraySpec

ROOT = Path(__file__).resolve().parents[2]
RUNTIME_MODULES = sorted(f"runtime.{m.name}" for m in pkgutil.iter_modules(runtime.__path__))

# After the imports (or the script) given, print which compiler and MLIR modules are loaded.
REPORT = "import sys; print(sorted(m for m in sys.modules if m.split('.')[0] in ('compiler', 'torch_mlir')))"


def run_fresh(code: str, env: dict | None = None) -> str:
    """Run ``code`` in a new interpreter at the repository root; its stdout."""
    import os

    result = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PYTHONPATH": str(ROOT), **(env or {})},
    )
    assert result.returncode == 0, result.stderr
    return result.stdout


@pytest.mark.parametrize("module", RUNTIME_MODULES)
def test_every_runtime_module_imports_first_and_alone(module):
    loaded = run_fresh(f"import {module}\n{REPORT}").strip().splitlines()[-1]
    assert loaded == "[]", f"{module} imports {loaded}"


def test_no_runtime_source_mentions_the_compiler_package_in_an_import():
    for path in (ROOT / "runtime").glob("*.py"):
        for line in path.read_text().splitlines():
            words = line.split()
            if words[:1] in (["import"], ["from"]):
                assert not words[1].startswith("compiler"), f"{path.name}: {line.strip()}"


def test_the_compiler_shares_the_runtime_size_marker():
    from compiler.dialects import types

    assert types.DYN is DYN


# ---------------------------------------------------------------- cached object code, no compiler


def _whole_sum():
    from compiler.dialects.builder import FunctionBuilder
    from compiler.dialects.types import TensorType

    b = FunctionBuilder("total", [TensorType((None,), "f64")])
    (x,) = b.args
    return b.finish([b.op("sum", b.op("mul", x, x), axes=(0,), keepdims=False)])


def _elementwise():
    from compiler.dialects.builder import FunctionBuilder
    from compiler.dialects.types import TensorType

    b = FunctionBuilder("axpy", [TensorType((None, 3), "f32"), TensorType((None, 3), "f32")])
    x, y = b.args
    return b.finish([b.op("add", b.op("tanh", x), y)])


STANDALONE = (
    """
import json, sys
import numpy as np
from runtime import threads
from runtime.abi import ArraySpec
from runtime.kernel import Kernel, Signature, load_variant

saved = json.load(open(sys.argv[1]))
threads.PARALLEL_MIN_BYTES = 0  # every call fans out to the worker pool
spec = lambda specs: tuple(ArraySpec(tuple(shape), dtype) for shape, dtype in specs)
signature = Signature(saved["name"], spec(saved["inputs"]), spec(saved["outputs"]))
code = open(sys.argv[2], "rb").read()

def build(contiguous):
    assert all(contiguous), contiguous
    return load_variant(code, saved["meta"])

rng = np.random.default_rng(0)
if saved["name"] == "total":
    kernel = Kernel(signature, lambda key: [()], build)
    x = rng.standard_normal(100_003)
    (got,) = kernel(x)
    assert np.isclose(float(got), float((x * x).sum()), rtol=1e-12), (got, (x * x).sum())
else:
    kernel = Kernel(signature, lambda key: [key[0]], build)
    x, y = (rng.standard_normal((1001, 3)).astype(np.float32) for _ in range(2))
    (got,) = kernel(x, y)
    np.testing.assert_allclose(got, np.tanh(x) + y, rtol=1e-6, atol=1e-6)
assert kernel.parallel == saved["meta"]["parallel"]
print("parallel" if kernel.parallel else "serial")
"""
    + REPORT
)


@pytest.mark.parametrize("make", [_whole_sum, _elementwise], ids=["split-reduction", "elementwise"])
def test_cached_object_code_loads_and_runs_with_only_the_runtime(make, tmp_path):
    from compiler.backends.llvm_cpu import object_code, signature_of

    module = make()
    signature = signature_of(next(iter(module.body.operations)).operation)
    artifact = object_code(module, signature.name, (True,) * len(signature.inputs))
    assert artifact.meta["parallel"]

    def specs(arrays):
        return [[list(a.shape), a.dtype.str] for a in arrays]

    saved = {
        "name": signature.name,
        "inputs": specs(signature.inputs),
        "outputs": specs(signature.outputs),
        "meta": artifact.meta,
    }
    (tmp_path / "kernel.json").write_text(json.dumps(saved))
    (tmp_path / "kernel.o").write_bytes(artifact.payload)
    script = STANDALONE.replace("sys.argv[1]", repr(str(tmp_path / "kernel.json")))
    script = script.replace("sys.argv[2]", repr(str(tmp_path / "kernel.o")))
    out = run_fresh(script, env={"EMBER_NUM_THREADS": "3"}).split()
    assert out == ["parallel", "[]"]  # ran on the pool; no compiler, no torch_mlir


def test_an_objects_defined_symbols_are_read_from_its_symbol_table():
    from compiler.backends.llvm_cpu import object_code
    from runtime.object_symbols import defined_symbols

    names = defined_symbols(object_code(_elementwise(), "axpy", (True, True)).payload)
    assert abi.entry_name("axpy") in names and abi.launch_name("axpy") in names
    assert "malloc" not in names and abi.POOL_RUN not in names  # called, not defined
    assert len(names) == len(set(names))
    with pytest.raises(ValueError, match="ELF"):
        defined_symbols(b"MZ not an ELF object")


def test_a_loaded_object_is_freed_with_its_last_user():
    from compiler.backends.llvm_cpu import object_code
    from runtime import threads
    from runtime.loader import LoadedObject

    module = _elementwise()
    threads.register_symbols()  # its launcher runs on the pool (load_variant does this from the metadata)
    loaded = LoadedObject(object_code(module, "axpy", (True, True)).payload)
    assert loaded.address(abi.entry_name("axpy")) == loaded.address(abi.entry_name("axpy"))
    ref = weakref.ref(loaded)
    del loaded
    gc.collect()
    assert ref() is None


# ---------------------------------------------------------------- thread count


def test_config_num_threads_sets_the_runtimes_parts(monkeypatch):
    from compiler import config

    monkeypatch.setenv("EMBER_NUM_THREADS", "2")
    monkeypatch.setattr(threads, "PARALLEL_MIN_BYTES", 0)
    monkeypatch.setattr(config, "num_threads", 4)
    assert config.num_threads == 4 and threads.configured_threads() == 4
    assert threads.parts_for((np.ones(10),)) == 4
    config.num_threads = 0  # at least one part
    assert threads.parts_for((np.ones(10),)) == 1
    config.num_threads = None
    assert threads.configured_threads() is None and threads.parts_for((np.ones(10),)) == 2
    assert config.recompile_limit == 8  # the module's other settings are plain attributes still


def test_a_parallel_kernel_splits_into_config_num_threads_parts(monkeypatch):
    """The launcher hands the pool ``parts_for``'s count: a Python task on the pool
    standing in for the kernel's sees the parts config.num_threads asks for."""
    import ctypes

    from compiler import config

    monkeypatch.setattr(threads, "PARALLEL_MIN_BYTES", 0)
    seen = []
    task = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_int64, ctypes.c_int64)(
        lambda _args, part, parts: seen.append((part, parts))
    )
    for n in (1, 3):
        monkeypatch.setattr(config, "num_threads", n)
        seen.clear()
        threads.pool().run(ctypes.cast(task, ctypes.c_void_p).value, None, threads.parts_for((np.ones(4),)))
        assert sorted(seen) == [(p, n) for p in range(n)]


# ---------------------------------------------------------------- glue IR


def _verified(text: str) -> llvm.ModuleRef:
    module = llvm.parse_assembly(text)
    module.verify()
    return module


@pytest.mark.parametrize("rank", [0, 1, 2, 3])
@pytest.mark.parametrize("parallel,scratch", [(False, False), (True, False), (True, True)])
def test_glue_ir_verifies(rank, parallel, scratch):
    arrays = [ArraySpec((DYN,) * rank, "float32"), ArraySpec((4,) * rank, "int64"), ArraySpec((2,) * rank, "bool")]
    buffers = abi.scratch_buffers([abi.MAX_PARTS, 1], arrays[-1]) if scratch else ()
    glue = entry_glue.kernel_glue("k", arrays, parallel, buffers)
    module = _verified(str(glue))
    names = {fn.name for fn in module.functions if not fn.is_declaration}
    want = {abi.entry_name("k")} | ({abi.launch_name("k"), abi.task_name("k")} if parallel else set())
    want |= {abi.fastcall_name("k")} if not parallel and not scratch else set()  # a builtin for one-thread kernels
    assert names == want
    entry = module.get_function(abi.entry_name("k"))
    assert len(list(entry.arguments)) == len(arrays) + len(buffers) + (2 if parallel else 0)
    if parallel:
        launch = module.get_function(abi.launch_name("k"))
        assert len(list(launch.arguments)) == len(arrays) + 1  # the arrays, then parts


def test_glue_appends_to_kernel_ir_without_declaring_twice():
    """The kernel's own IR defines the C interface and may declare an intrinsic the
    launcher also calls; the appended glue must not declare either again."""
    arrays = [ArraySpec((DYN,), "float64"), ArraySpec((), "float64")]
    kernel_ir = f"""
declare void @llvm.memset.p0.i64(ptr, i8, i64, i1)
define void @{abi.c_interface_name("k")}(ptr %a, ptr %b, ptr %s, ptr %c, i64 %part, i64 %parts) {{
  ret void
}}
"""
    glue = entry_glue.kernel_glue("k", arrays, True, abi.scratch_buffers([abi.MAX_PARTS, 1], arrays[-1]))
    module = _verified(entry_glue.append_glue(kernel_ir, glue))
    assert {abi.launch_name("k"), abi.POOL_RUN} <= {fn.name for fn in module.functions}


def test_glue_replaces_the_kernels_declarations_of_what_it_defines():
    """A forked loop's kernel declares the fork the glue defines (quoted where its name
    needs it): those declarations go, every other line of the kernel's IR stays."""
    from llvmlite import ir as llir

    glue = llir.Module()
    for name in ("fork_a", "fork.b"):
        fn = llir.Function(glue, llir.FunctionType(llir.VoidType(), [llir.IntType(64)]), name)
        llir.IRBuilder(fn.append_basic_block("entry")).ret_void()
    kernel_ir = """declare void @fork_a(i64)
declare void @"fork.b"(i64)
declare void @other(i64)
define void @k(i64 %n) {
  call void @fork_a(i64 %n)
  call void @"fork.b"(i64 %n)
  call void @other(i64 %n)
  ret void
}
"""
    text = entry_glue.append_glue(kernel_ir, glue)
    module = _verified(text)
    defined = {fn.name for fn in module.functions if not fn.is_declaration}
    assert defined == {"k", "fork_a", "fork.b"}
    assert "declare void @other(i64)" in text and "declare void @fork_a" not in text
    assert 'declare void @"fork.b"' not in text


def test_scratch_buffers_follow_the_output_dtype():
    assert abi.scratch_buffers([256, 1], ArraySpec((), "float32")) == ((256, "<f4"), (1, "<i8"))


# ---------------------------------------------------------------- worker pool resource


@pytest.mark.parametrize("triple", ["x86_64-unknown-linux-gnu", "aarch64-unknown-linux-gnu", "riscv64-unknown-linux"])
def test_worker_pool_ir_verifies_for_each_spin_hint(triple):
    module = _verified(threads.pool_ir(triple, max_workers=3, spin_ns=5000))
    assert {abi.POOL_RUN, abi.POOL_AFTER_FORK} <= {fn.name for fn in module.functions}


def test_worker_pool_ir_rejects_more_workers_than_its_slots():
    with pytest.raises(ValueError, match="max_workers"):
        threads.pool_ir("x86_64-unknown-linux-gnu", max_workers=threads.MAX_WORKERS + 1)


def test_the_fastcall_entry_is_a_builtin_that_checks_layout_and_count():
    """A one-thread kernel's entry as a CPython builtin (runtime/fastcall.py): it runs
    for inputs of its variant's layout, answers RETRY for others, and raises TypeError
    for a wrong number of arguments instead of reading past them."""
    import compiler
    from runtime.fastcall import RETRY

    f = compiler.compile(lambda x, y: x * y + 1)
    x, y = np.arange(6.0), np.full(6, 2.0)
    np.testing.assert_array_equal(f(x, y), x * y + 1)
    kernel = f.entries[0].graph
    fast = kernel.call_from_guarded_entry.__globals__["fast"]
    out = np.zeros(6)
    assert fast(x, y, out) is x and np.array_equal(out, x * y + 1)
    out[:] = 0
    assert fast(np.arange(12.0)[::2], y, out) is RETRY and not out.any()  # not C-contiguous: not run
    with pytest.raises(TypeError):
        fast(x, y)
    np.testing.assert_array_equal(f(np.arange(12.0)[::2], y), np.arange(12.0)[::2] * y + 1)  # the general path


def test_sizes_that_never_go_symbolic_import_no_sympy():
    """sympy is imported on its first use (compiler/lazy_import.py): half a second of a
    new process's first compile that a function with fixed sizes does not need; a
    function whose sizes go symbolic imports it then."""
    script = (
        "import sys, numpy as np, compiler\n"
        "f = compiler.compile(lambda x, y: ((x - y) ** 2).sum() + x.reshape(-1, 2).sum(1)[0])\n"
        "print(float(f(np.ones(8), np.zeros(8))), 'sympy' in sys.modules)\n"
        "g = compiler.compile(lambda x: x * 2.0, dynamic=True)\n"
        "print(g(np.ones(5)).sum(), 'sympy' in sys.modules)\n"
    )
    out = run_fresh(script, env={"EMBER_CACHE_DIR": "off"}).split()
    assert out == ["10.0", "False", "10.0", "True"]  # a reshape's -1 of fixed sizes too
