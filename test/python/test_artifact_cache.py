"""The artifact cache: hits across processes, corrupt and stale entries rebuilt,
atomic writes under concurrency."""

import json
import os
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import numpy as np
import pytest

from compiler.backends import llvm_cpu
from compiler.backends.llvm_cpu import cache_key, compile_module
from compiler.dialects.builder import FunctionBuilder
from compiler.dialects.types import TensorType
from runtime import cache as cache_module
from runtime.cache import ARTIFACTS, MAGIC

REPO = Path(__file__).resolve().parents[2]

SCRIPT = textwrap.dedent("""
    import json, numpy as np
    from compiler.dialects.builder import FunctionBuilder
    from compiler.dialects.types import TensorType
    from compiler.backends.llvm_cpu import compile_module
    from runtime.cache import ARTIFACTS
    b = FunctionBuilder("axpy", [TensorType((None,), "f64")] * 2)
    x, y = b.args
    kernel = compile_module(b.finish([b.op("add", b.op("mul", x, x), y)]))
    (out,) = kernel(np.arange(4.0), np.ones(4))
    print(json.dumps({"stats": vars(ARTIFACTS.stats), "out": out.tolist()}))
""")


def axpy_module():
    b = FunctionBuilder("axpy", [TensorType((None,), "f64")] * 2)
    x, y = b.args
    return b.finish([b.op("add", b.op("mul", x, x), y)])


@pytest.fixture
def cache_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("EMBER_CACHE_DIR", str(tmp_path))
    ARTIFACTS.clear_memory()
    monkeypatch.setattr(ARTIFACTS, "stats", cache_module.CacheStats())
    yield tmp_path
    ARTIFACTS.clear_memory()


def run_process(cache: Path) -> dict:
    env = dict(os.environ, EMBER_CACHE_DIR=str(cache), PYTHONPATH=str(REPO))
    done = subprocess.run([sys.executable, "-c", SCRIPT], env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_second_process_loads_instead_of_compiling(cache_dir):
    first = run_process(cache_dir)
    second = run_process(cache_dir)
    assert first["stats"]["misses"] == 1 and first["stats"]["disk_hits"] == 0
    assert second["stats"]["disk_hits"] == 1 and second["stats"]["misses"] == 0
    assert first["out"] == second["out"] == [1.0, 2.0, 5.0, 10.0]
    assert len(list(cache_dir.glob("*.ember"))) == 1


def entry_file(cache_dir) -> Path:
    (path,) = cache_dir.glob("*.ember")
    return path


@pytest.mark.parametrize("damage", ["flip_payload", "truncate", "bad_magic", "other_key", "garbage_header"])
def test_damaged_entry_is_rebuilt_not_loaded(cache_dir, damage):
    compile_module(axpy_module())
    path = entry_file(cache_dir)
    data = bytearray(path.read_bytes())
    header_end = data.index(b"\n", len(MAGIC))
    if damage == "flip_payload":
        data[-100] ^= 0xFF
    elif damage == "truncate":
        data = data[: len(data) // 2]
    elif damage == "bad_magic":
        data[:4] = b"ELF!"
    elif damage == "other_key":
        header = json.loads(data[len(MAGIC):header_end])
        header["key"] = "0" * 64
        data = MAGIC + json.dumps(header).encode() + data[header_end:]
    else:
        data[len(MAGIC):header_end] = b"{not json"
    path.write_bytes(bytes(data))
    ARTIFACTS.clear_memory()

    (out,) = compile_module(axpy_module())(np.arange(3.0), np.ones(3))

    np.testing.assert_array_equal(out, [1.0, 2.0, 5.0])
    assert ARTIFACTS.stats.rejected == 1 and ARTIFACTS.stats.misses == 2
    assert entry_file(cache_dir).read_bytes().startswith(MAGIC)  # rebuilt and valid again
    ARTIFACTS.clear_memory()
    compile_module(axpy_module())
    assert ARTIFACTS.stats.disk_hits == 1


def test_a_version_change_invalidates(cache_dir, monkeypatch):
    module = axpy_module()
    before = cache_key(module, "axpy")
    compile_module(module)
    monkeypatch.setattr(llvm_cpu, "bindings_version", lambda: "torch-mlir-29990101")
    after = cache_key(module, "axpy")
    ARTIFACTS.clear_memory()
    compile_module(module)
    assert before != after
    assert ARTIFACTS.stats.misses == 2 and ARTIFACTS.stats.disk_hits == 0
    assert len(list(cache_dir.glob("*.ember"))) == 2


def test_an_edit_of_the_compiler_changes_every_key(monkeypatch):
    module = axpy_module()
    before = cache_key(module, "axpy")
    monkeypatch.setattr(cache_module, "source_fingerprint", lambda: "edited")
    assert cache_key(module, "axpy") != before


def test_memory_hit_within_a_process(cache_dir):
    compile_module(axpy_module())
    compile_module(axpy_module())
    assert ARTIFACTS.stats.misses == 1 and ARTIFACTS.stats.memory_hits == 1


def test_concurrent_writers_leave_one_whole_entry(cache_dir):
    module_text = str(axpy_module())
    errors = []

    def compile_fresh():
        try:
            from compiler.dialects import ember
            from compiler.mlir import ir
            with ember.new_context():
                module = ir.Module.parse(module_text)
                for _ in range(3):
                    ARTIFACTS.clear_memory()
                    (out,) = compile_module(module)(np.arange(3.0), np.ones(3))
                    assert out.tolist() == [1.0, 2.0, 5.0]
        except Exception as e:  # reported below, with the thread's own traceback text
            errors.append(repr(e))

    threads = [threading.Thread(target=compile_fresh) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert [p.name for p in cache_dir.iterdir() if p.name.endswith(".tmp")] == []
    assert entry_file(cache_dir).read_bytes().startswith(MAGIC)
    assert ARTIFACTS.stats.rejected == 0


def test_cache_off_writes_nothing(tmp_path, monkeypatch):
    monkeypatch.setenv("EMBER_CACHE_DIR", "off")
    monkeypatch.setenv("HOME", str(tmp_path))
    ARTIFACTS.clear_memory()
    (out,) = compile_module(axpy_module())(np.arange(2.0), np.ones(2))
    assert out.tolist() == [1.0, 2.0] and not list(tmp_path.rglob("*.ember"))
