"""The artifact cache: hits across processes, corrupt and stale entries rebuilt,
atomic writes under concurrency, the size bound (LRU eviction, other builds' entries
dropped), cache_info/clear_cache and ember-cache, and the logs of a cache hit."""

import hashlib
import json
import logging
import multiprocessing
import os
import subprocess
import sys
import textwrap
import threading
import time
import tomllib
from pathlib import Path

import numpy as np
import pytest

from compiler.backends import llvm_cpu
from compiler.backends.llvm_cpu import cache_key, compile_module
from compiler.dialects.builder import FunctionBuilder
from compiler.dialects.types import TensorType
from runtime import cache as cache_module
from runtime.cache import ARTIFACTS, MAGIC
from runtime.version import __version__

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
    assert len(list(cache_dir.rglob("*.ember"))) == 1


def entry_file(cache_dir) -> Path:
    (path,) = cache_dir.rglob("*.ember")
    return path


@pytest.mark.parametrize("damage", ["flip_payload", "truncate", "bad_magic", "other_key", "garbage_header"])
def test_damaged_entry_is_rebuilt_not_loaded(cache_dir, damage):
    compile_module(axpy_module())
    path = entry_file(cache_dir)
    data = bytearray(path.read_bytes())
    header_end = data.index(b"\n", len(MAGIC))
    payload_size = json.loads(data[len(MAGIC) : header_end])["size"]
    if damage == "flip_payload":
        data[header_end + 1 + payload_size // 2] ^= 0xFF
    elif damage == "truncate":
        data = data[: header_end + 1 + payload_size // 2]
    elif damage == "bad_magic":
        data[:4] = b"ELF!"
    elif damage == "other_key":
        header = json.loads(data[len(MAGIC) : header_end])
        header["key"] = "0" * 64
        data = MAGIC + json.dumps(header).encode() + data[header_end:]
    else:
        data[len(MAGIC) : header_end] = b"{not json"
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
    assert len(list(cache_dir.rglob("*.ember"))) == 2


def test_the_bindings_version_is_the_installed_distributions():
    from importlib.metadata import version

    from compiler.mlir import BINDINGS_DISTRIBUTION, bindings_version

    assert bindings_version() == f"{BINDINGS_DISTRIBUTION}-{version(BINDINGS_DISTRIBUTION)}"


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


# ------------------------------------------------------------------ the size bound


def fake_artifact(key: str, size: int = 10_000) -> cache_module.Artifact:
    """A payload derived from its key, so a reader can tell a whole entry from a mix."""
    block = hashlib.sha256(key.encode()).digest()
    return cache_module.Artifact((block * (size // len(block) + 1))[:size], {"parallel": False, "entry": key[:8]})


def fake_key(i: int | str) -> str:
    return hashlib.sha256(f"entry {i}".encode()).hexdigest()


def entries_on_disk(root: Path) -> set[str]:
    return {p.stem for p in root.rglob("*.ember")}


def total_on_disk(root: Path) -> int:
    return sum(p.stat().st_size for p in root.rglob("*.ember"))


@pytest.mark.parametrize(
    "text, expected",
    [
        ("1024", 1024),
        ("500M", 500 << 20),
        ("2G", 2 << 30),
        ("2g", 2 << 30),
        ("1.5K", 1536),
        ("64MiB", 64 << 20),
        ("10 MB", 10 << 20),
        ("1T", 1 << 40),
        ("0", None),
        ("none", None),
        ("unlimited", None),
    ],
)
def test_cache_max_sizes(text, expected):
    assert cache_module.parse_size(text) == expected


def test_cache_max_default_and_invalid(monkeypatch):
    monkeypatch.delenv("EMBER_CACHE_MAX", raising=False)
    assert cache_module.max_bytes() == cache_module.DEFAULT_MAX_BYTES == 1 << 30
    monkeypatch.setenv("EMBER_CACHE_MAX", "lots")
    with pytest.warns(RuntimeWarning, match="EMBER_CACHE_MAX.*'lots'.*default"):
        assert cache_module.max_bytes() == cache_module.DEFAULT_MAX_BYTES
    monkeypatch.setenv("EMBER_CACHE_MAX", "0")
    assert cache_module.max_bytes() is None  # no limit
    for bad in ("-5M", "5X", "M"):
        with pytest.raises(ValueError, match="not a size"):
            cache_module.parse_size(bad)


def test_least_recently_used_is_evicted_first(cache_dir, monkeypatch):
    cache = cache_module.ArtifactCache()
    a, b, c, d = (fake_key(i) for i in "abcd")
    for key in (a, b, c):
        cache.put(key, fake_artifact(key))
    size = cache.path(a).stat().st_size
    now = time.time()
    for age, key in ((300, a), (200, b), (100, c)):  # a is the oldest...
        os.utime(cache.path(key), (now - age, now - age))
    cache.clear_memory()
    assert cache.get(a).payload == fake_artifact(a).payload  # ...but used now, on disk
    assert cache.stats.disk_hits == 1
    # four entries are over the limit; evicting down to 90% of it leaves three
    monkeypatch.setenv("EMBER_CACHE_MAX", str(int(size * 3.6)))
    cache.put(d, fake_artifact(d))
    assert entries_on_disk(cache_dir) == {a, c, d}
    assert cache.stats.evicted == 1


def test_the_limit_is_honoured_after_every_write(cache_dir, monkeypatch):
    monkeypatch.setenv("EMBER_CACHE_MAX", "50K")
    cache = cache_module.ArtifactCache()
    for i in range(30):
        cache.put(fake_key(i), fake_artifact(fake_key(i)))
        assert total_on_disk(cache_dir) <= 50 * 1024
    assert 3 <= len(entries_on_disk(cache_dir)) <= 5
    assert fake_key(29) in entries_on_disk(cache_dir)  # the newest stays
    assert cache.stats.evicted == 30 - len(entries_on_disk(cache_dir))
    info = cache_module.cache_info()
    assert info.limit == 50 * 1024 and info.total_bytes == total_on_disk(cache_dir) <= info.limit


def test_unlimited_keeps_everything(cache_dir, monkeypatch):
    monkeypatch.setenv("EMBER_CACHE_MAX", "0")
    cache = cache_module.ArtifactCache()
    for i in range(20):
        cache.put(fake_key(i), fake_artifact(fake_key(i)))
    assert len(entries_on_disk(cache_dir)) == 20 and cache_module.cache_info().limit is None


def test_entries_of_other_builds_are_dropped(cache_dir, monkeypatch):
    cache = cache_module.ArtifactCache()
    old_key = fake_key("old build")
    cache.put(old_key, fake_artifact(old_key))
    old_dir = cache.path(old_key).parent
    assert old_dir.parent == cache_dir and old_dir.name.startswith(__version__ + "-")
    legacy = cache_dir / f"{fake_key('legacy')}.ember"  # the flat layout of older Embers
    legacy.write_bytes(b"EMBERART1\n{}\n")

    monkeypatch.setattr(cache_module, "source_fingerprint", lambda: "0123456789abcdef")  # Ember was edited
    cache.clear_memory()
    assert cache.get(old_key) is None  # another build's entry is never loaded
    new_key = fake_key("new build")
    cache.put(new_key, fake_artifact(new_key))
    assert cache.path(new_key).parent != old_dir
    # used within the last hour: another install of another version may still want them
    assert old_key in entries_on_disk(cache_dir) and legacy.exists()
    info = cache_module.cache_info()
    assert (info.entries, info.stale_entries) == (3, 2)

    long_ago = time.time() - cache_module.STALE_AFTER_S - 60
    for path in (cache_dir / old_dir.name / f"{old_key}.ember", legacy):
        os.utime(path, (long_ago, long_ago))
    other = fake_key("another")
    cache.put(other, fake_artifact(other))
    assert entries_on_disk(cache_dir) == {new_key, other}
    assert not old_dir.exists()  # its directory went with its last entry
    assert cache.stats.stale_removed == 2


def test_clear_stale_only_drops_other_builds_now(cache_dir, monkeypatch):
    cache = cache_module.ArtifactCache()
    old_key = fake_key("old")
    cache.put(old_key, fake_artifact(old_key))
    monkeypatch.setattr(cache_module, "source_fingerprint", lambda: "fedcba9876543210")
    new_key = fake_key("new")
    cache.put(new_key, fake_artifact(new_key))
    assert cache_module.clear_cache(stale_only=True) == 1
    assert entries_on_disk(cache_dir) == {new_key}


def test_cache_info_and_clear_cache(cache_dir):
    import compiler

    assert compiler.cache_info is cache_module.cache_info and compiler.clear_cache is cache_module.clear_cache
    compile_module(axpy_module())
    compile_module(axpy_module())
    info = compiler.cache_info()
    assert info.directory == cache_dir and info.entries == 1 and info.total_bytes == total_on_disk(cache_dir) > 0
    assert (info.hits, info.misses, info.stale_entries) == (1, 1, 0)
    assert info.limit == cache_module.max_bytes()
    assert "1 hits, 1 misses" in str(info) and str(cache_dir) in str(info)

    assert compiler.clear_cache() == 1
    assert entries_on_disk(cache_dir) == set()
    assert (compiler.cache_info().entries, compiler.cache_info().total_bytes) == (0, 0)
    (out,) = compile_module(axpy_module())(np.arange(3.0), np.ones(3))  # recompiled, not a memory hit
    assert out.tolist() == [1.0, 2.0, 5.0] and ARTIFACTS.stats.misses == 2


def test_cache_info_with_the_cache_off(monkeypatch):
    monkeypatch.setenv("EMBER_CACHE_DIR", "off")
    info = cache_module.cache_info()
    assert info.directory is None and info.entries == 0 and "off" in str(info)
    assert cache_module.clear_cache() == 0


def run_cli(cache: Path, *args: str, **env: str) -> subprocess.CompletedProcess:
    environment = dict(os.environ, EMBER_CACHE_DIR=str(cache), PYTHONPATH=str(REPO), **env)
    return subprocess.run(
        [sys.executable, "-m", "tools.ember_cache", *args], env=environment, capture_output=True, text=True, timeout=60
    )


def test_ember_cache_command(cache_dir):
    cache = cache_module.ArtifactCache()
    for i in range(3):
        cache.put(fake_key(i), fake_artifact(fake_key(i)))

    done = run_cli(cache_dir, "info", "--json", EMBER_CACHE_MAX="2G")
    assert done.returncode == 0, done.stderr
    info = json.loads(done.stdout)
    assert info == {
        "directory": str(cache_dir),
        "entries": 3,
        "total_bytes": total_on_disk(cache_dir),
        "limit": 2 << 30,
        "stale_entries": 0,
    }
    done = run_cli(cache_dir, "info")
    assert done.returncode == 0 and "entries:       3" in done.stdout and "1.0 GiB" in done.stdout
    done = run_cli(cache_dir, "info", EMBER_CACHE_MAX="huge")
    assert done.returncode == 0 and "EMBER_CACHE_MAX" in done.stderr and "Traceback" not in done.stderr

    done = run_cli(cache_dir, "clear")
    assert done.returncode == 0 and "removed 3 entries" in done.stdout
    assert entries_on_disk(cache_dir) == set()
    assert run_cli(cache_dir, "bogus").returncode == 2


def test_ember_cache_is_a_console_script():
    scripts = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["scripts"]
    assert scripts["ember-cache"] == "tools.ember_cache:main"
    assert "compiler" not in {name.split(".")[0] for name in _imports_of(REPO / "runtime" / "cache.py")}


def _imports_of(path: Path) -> set[str]:
    import ast

    names = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            names.add(node.module or "")
    return names


# ------------------------------------------------------------------ several processes at once


def _hammer(directory: str, limit: str, seed: int, rounds: int) -> tuple[list[str], int, int]:
    """One of several processes putting, getting, evicting and now and then clearing the
    same tiny cache; returns what went wrong (a mixed or wrong payload), its disk hits
    and its evictions."""
    import random

    os.environ["EMBER_CACHE_DIR"] = directory
    os.environ["EMBER_CACHE_MAX"] = limit
    rng = random.Random(seed)
    cache = cache_module.ArtifactCache()
    problems = []
    for _ in range(rounds):
        key = fake_key(rng.randrange(12))
        action = rng.random()
        if action < 0.5:
            cache.put(key, fake_artifact(key, rng.choice((6_000, 12_000))))
        elif action < 0.97:
            cache.clear_memory()
            hit = cache.get(key)
            if hit is not None and hit.payload != fake_artifact(key, len(hit.payload)).payload:
                problems.append(f"process {seed}: a wrong payload for {key[:8]}")
        else:
            cache_module.clear_cache()
    key = fake_key(f"last of {seed}")
    cache.put(key, fake_artifact(key))  # every process ends with a write (and its scan)
    if cache.stats.rejected:
        problems.append(f"process {seed}: {cache.stats.rejected} damaged entries found")
    return problems, cache.stats.disk_hits, cache.stats.evicted


def test_processes_sharing_a_tiny_cache(cache_dir):
    limit = 60 * 1024  # a handful of entries: eviction on most writes
    ctx = multiprocessing.get_context("spawn")
    with ctx.Pool(4) as pool:
        results = pool.starmap(_hammer, [(str(cache_dir), str(limit), seed, 150) for seed in range(4)])
    assert [p for problems, _, _ in results for p in problems] == []
    assert all(hits > 0 and evicted > 0 for _, hits, evicted in results)  # it was exercised
    assert total_on_disk(cache_dir) <= limit
    assert not [p for p in cache_dir.rglob("*") if p.name.endswith(".tmp")]
    reader = cache_module.ArtifactCache()
    for path in cache_dir.rglob("*.ember"):
        hit = reader.get(path.stem)
        assert hit is not None and hit.payload == fake_artifact(path.stem, len(hit.payload)).payload
    assert reader.stats.rejected == 0


# ------------------------------------------------------------------ the logs of a hit


def cached_logs(caplog, spec: str) -> str:
    import compiler

    compiler.set_logs(spec)
    for channel in ("ir", "output_code"):
        logging.getLogger(f"compiler.{channel}").propagate = True
    caplog.clear()
    with caplog.at_level(logging.INFO, logger="compiler"):
        (out,) = compile_module(axpy_module())(np.arange(3.0), np.ones(3))
    assert out.tolist() == [1.0, 2.0, 5.0]
    return caplog.text


@pytest.fixture
def logs_off_after():
    import compiler

    yield
    compiler.set_logs("")


def test_a_hit_prints_the_ir_and_llvm_ir_kept_with_the_artifact(cache_dir, caplog, logs_off_after):
    import compiler

    compile_module(axpy_module())  # cold, logs off
    compiler.reset()
    ARTIFACTS.clear_memory()
    text = cached_logs(caplog, "ir,output_code")
    assert ARTIFACTS.stats.disk_hits == 1 and ARTIFACTS.stats.misses == 1
    assert "IR of axpy after lower-to-loops (from the artifact cache)" in text
    assert "IR of axpy after loops-to-llvm (from the artifact cache)" in text and "llvm.func" in text
    assert "only the IR after each stage was kept" in text
    assert "LLVM IR axpy (from the artifact cache)" in text and "define " in text


def test_a_hit_prints_every_pass_when_compiled_with_the_ir_log(cache_dir, caplog, logs_off_after):
    cold = cached_logs(caplog, "ir")
    assert ARTIFACTS.stats.misses == 1 and "(from the artifact cache)" not in cold
    passes = [line.split("IR of axpy after ", 1)[1] for line in cold.splitlines() if "IR of axpy after " in line]
    assert len(passes) > 2
    ARTIFACTS.clear_memory()
    warm = cached_logs(caplog, "ir")
    assert ARTIFACTS.stats.disk_hits == 1
    assert [line.split("IR of axpy after ", 1)[1] for line in warm.splitlines() if "IR of axpy after " in line] == [
        f"{p} (from the artifact cache)" for p in passes
    ]
    assert "only the IR after each stage" not in warm and "LLVM IR" not in warm


def test_a_hit_with_logs_off_reads_no_texts(cache_dir, monkeypatch):
    compile_module(axpy_module())
    ARTIFACTS.clear_memory()

    def no_texts(key):
        raise AssertionError("texts read with the logs off")

    monkeypatch.setattr(ARTIFACTS, "texts", no_texts)
    (out,) = compile_module(axpy_module())(np.arange(2.0), np.ones(2))
    assert out.tolist() == [1.0, 2.0] and ARTIFACTS.stats.disk_hits == 1


def test_damaged_texts_cost_only_the_log(cache_dir, caplog, logs_off_after):
    compile_module(axpy_module())
    path = entry_file(cache_dir)
    data = bytearray(path.read_bytes())
    data[-10] ^= 0xFF  # in the texts, after the payload
    path.write_bytes(bytes(data))
    ARTIFACTS.clear_memory()
    text = cached_logs(caplog, "output_code")
    assert ARTIFACTS.stats.disk_hits == 1 and ARTIFACTS.stats.rejected == 0
    assert "LLVM IR axpy: not kept with its artifact (from the artifact cache)" in text
