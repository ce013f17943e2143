"""The artifact cache: compiled object code in memory and on disk, bounded in size.

A graph compiled once should not be compiled again, in this process or the next.
Entries are keyed by the module text and everything the object code depends on:
Ember's own code (its version and a fingerprint of its sources, so an edited
compiler never loads stale code), the MLIR bindings, llvmlite and the host CPU.

Where: ``$EMBER_CACHE_DIR``, else ``$XDG_CACHE_HOME/ember``, else ``~/.cache/ember``;
``EMBER_CACHE_DIR=off`` disables the disk cache. Layout: one subdirectory per Ember
build, named ``<version>-<source fingerprint>``, one file per entry::

    <cache>/0.1.0-3f2a9c0d1e5b7a64/<key>.ember

An entry file is::

    EMBERART2\\n{"key", "version", "fingerprint", "size", "sha256", "meta", "texts"}\\n<payload><texts>

``payload`` is the object code (``size`` bytes, checked against ``sha256``). ``texts``,
if present, is a zlib-compressed JSON object holding what the ``ir`` and
``output_code`` logs printed when the entry was compiled (its own size and sha256
are in the header's ``texts``): it is read only when asked for (``texts(key)``, when
those logs are on), so a hit reads the small header and the payload and decodes
nothing else. A file whose magic, key, fingerprint or checksum does not match is
deleted and rebuilt, never loaded. Writers write a private temporary file and
``os.replace`` it into place, so a reader sees a whole entry or none, whatever runs
concurrently.

Bounded: ``EMBER_CACHE_MAX`` (bytes, or with a suffix ``K``, ``M``, ``G``, ``T`` --
powers of 1024; ``KB``/``KiB`` and the like mean the same; default ``1G``; ``0``,
``none`` or ``unlimited`` for no limit; an unreadable value warns once and the
default applies). Use is recorded in the file's mtime, bumped on every disk hit.
Writes are followed by a scan of the directory (about 3 us a file: 1 ms for 300;
amortized over several writes in big caches, see ``ArtifactCache.collect``); when the
total is over the limit the least recently used entries are removed, whatever their
build, down to 90% of it. Entries of other Ember builds (other subdirectories; the
flat ``<cache>/<key>.ember`` files of older Embers) are dropped by that scan once
unused for ``STALE_AFTER_S`` (an hour): not at once, so two installs of different
versions sharing one cache (as virtual environments share ``~/.cache``) do not
delete each other's entries on every compile. ``clear_cache(stale_only=True)``
(``ember-cache clear --stale``) drops them now.

``cache_info()``, ``clear_cache()`` (re-exported as ``compiler.cache_info`` and
``compiler.clear_cache``) and the ``ember-cache info|clear`` command show and clear
it. Everything here tolerates other processes writing, evicting or clearing the same
directory at the same time: a file that vanishes under a reader is a miss, a removal
that finds nothing is ignored, and an unwritable cache costs a recompile, never a
failure.
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
import hashlib
import json
import os
import re
import tempfile
import threading
import time
import warnings
import zlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from stat import S_ISREG

from runtime.version import __version__

MAGIC = b"EMBERART2\n"
SUFFIX = ".ember"
DEFAULT_MAX_BYTES = 1 << 30  # 1 GiB
STALE_AFTER_S = 3600.0  # another build's entries unused this long are dropped by a scan
ABANDONED_TMP_S = 3600.0  # a writer's temporary file this old was left by a crash
EVICT_TO = 0.9  # an eviction brings the total down to this fraction of the limit
SCAN_AMORTIZE = 256  # see ArtifactCache.collect
_MAX_HEADER = 1 << 16
_RECORDING: contextvars.ContextVar[list | None] = contextvars.ContextVar("ember_artifact_texts", default=None)


@dataclass
class CacheStats:
    memory_hits: int = 0
    disk_hits: int = 0
    misses: int = 0
    rejected: int = 0  # corrupt or stale files found and removed
    evicted: int = 0  # entries this process removed to honour the size limit
    stale_removed: int = 0  # entries of other Ember builds this process removed


@dataclass
class Artifact:
    payload: bytes
    meta: dict = field(default_factory=dict)


@dataclass(frozen=True)
class CacheInfo:
    """What ``cache_info()`` returns: the disk cache now, and this process's use of it."""

    directory: Path | None  # None: EMBER_CACHE_DIR=off
    entries: int
    total_bytes: int
    limit: int | None  # bytes; None: unlimited
    hits: int  # of this process, in memory or on disk
    misses: int
    stale_entries: int = 0  # of other Ember builds (counted in entries and total_bytes)

    def __str__(self) -> str:
        limit = "unlimited" if self.limit is None else format_size(self.limit)
        return "\n".join(
            [
                f"directory:     {self.directory if self.directory is not None else 'off (EMBER_CACHE_DIR=off)'}",
                f"entries:       {self.entries} ({self.stale_entries} of other Ember builds)",
                f"size:          {format_size(self.total_bytes)} of {limit} (EMBER_CACHE_MAX)",
                f"this process:  {self.hits} hits, {self.misses} misses",
            ]
        )


def cache_dir() -> Path | None:
    configured = os.environ.get("EMBER_CACHE_DIR")
    if configured == "off":
        return None
    if configured:
        return Path(configured)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "ember"


@functools.cache
def source_fingerprint() -> str:
    """Hash of Ember's own Python sources: any edit to the compiler changes every key."""
    root = Path(__file__).resolve().parent.parent
    digest = hashlib.sha256()
    for package in ("compiler", "runtime"):
        for path in sorted((root / package).rglob("*.py")):
            digest.update(path.relative_to(root).as_posix().encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def build_dir_name() -> str:
    """The subdirectory of this Ember build's entries."""
    return f"{__version__}-{source_fingerprint()}"


def artifact_key(module_text: str, *parts: str) -> str:
    digest = hashlib.sha256()
    for part in (module_text, source_fingerprint(), *parts):
        digest.update(part.encode())
        digest.update(b"\0")
    return digest.hexdigest()


# ------------------------------------------------------------------ the size limit

_SIZE = re.compile(r"^(\d+(?:\.\d*)?)\s*([kmgt]?)(?:i?b)?$")
_UNITS = {"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40}
_warned_max: set[str] = set()


def parse_size(text: str) -> int | None:
    """``"500M"`` -> 524288000; ``"0"``, ``"none"``, ``"unlimited"`` -> None (no limit).
    Raises ValueError for anything else."""
    value = text.strip().lower()
    if value in ("0", "none", "unlimited"):
        return None
    match = _SIZE.match(value)
    if match is None:
        raise ValueError(f"not a size: {text!r} (expected bytes or a number with K, M, G or T)")
    size = int(float(match.group(1)) * _UNITS[match.group(2)])
    return size if size > 0 else None


def max_bytes() -> int | None:
    """The size limit from ``EMBER_CACHE_MAX`` (None: unlimited)."""
    configured = os.environ.get("EMBER_CACHE_MAX", "").strip()
    if not configured:
        return DEFAULT_MAX_BYTES
    try:
        return parse_size(configured)
    except ValueError as e:
        if configured not in _warned_max:
            _warned_max.add(configured)
            warnings.warn(
                f"ember: EMBER_CACHE_MAX: {e}; using the default, {format_size(DEFAULT_MAX_BYTES)}",
                RuntimeWarning,
                stacklevel=2,
            )
        return DEFAULT_MAX_BYTES


def format_size(size: int) -> str:
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if size >= scale:
            return f"{size / scale:.1f} {unit}"
    return f"{size} B"


# ------------------------------------------------------------------ the cache


class ArtifactCache:
    def __init__(self):
        self._memory: dict[str, Artifact] = {}
        self._lock = threading.Lock()
        self.stats = CacheStats()
        self._estimate = 0  # bytes on disk: the last scan's total plus this process's writes since
        self._writes_since_scan = 0
        self._scan_every = 1

    def clear_memory(self) -> None:
        with self._lock:
            self._memory.clear()

    def get(self, key: str) -> Artifact | None:
        with self._lock:
            hit = self._memory.get(key)
            if hit is not None:
                self.stats.memory_hits += 1
                return hit
        artifact = self._read(key)
        with self._lock:
            if artifact is None:
                self.stats.misses += 1
                return None
            self.stats.disk_hits += 1
            self._memory[key] = artifact
        return artifact

    def put(self, key: str, artifact: Artifact, texts: dict | None = None) -> None:
        """Keep ``artifact`` in memory and on disk; ``texts`` (JSON-able: log output of
        its compile) go to disk only, after the payload, for ``texts(key)``."""
        with self._lock:
            self._memory[key] = artifact
        written = self._write(key, artifact, texts)
        if written:
            with self._lock:
                self._writes_since_scan += 1
                self._estimate += written
            self.collect()

    @contextlib.contextmanager
    def recording(self) -> Iterator[list]:
        """Collect, in this thread, texts of the compile in progress (what its logs print),
        to be stored with its entry by ``put(..., texts=...)``: code compiling an
        artifact appends to ``recorder()``, which is None outside ``recording()``."""
        texts: list = []
        token = _RECORDING.set(texts)
        try:
            yield texts
        finally:
            _RECORDING.reset(token)

    @staticmethod
    def recorder() -> list | None:
        return _RECORDING.get()

    def texts(self, key: str) -> dict | None:
        """The texts stored with ``key``'s entry, or None (no entry on disk, none stored,
        or damaged)."""
        path = self.path(key)
        if path is None:
            return None
        try:
            with open(path, "rb") as f:
                header = _read_header(f, key)
                if header is None or not isinstance(header.get("texts"), dict):
                    return None
                f.seek(header["size"], os.SEEK_CUR)
                blob = f.read(header["texts"]["size"] + 1)
            if len(blob) != header["texts"]["size"] or hashlib.sha256(blob).hexdigest() != header["texts"]["sha256"]:
                return None
            texts = json.loads(zlib.decompress(blob))
        except (OSError, ValueError, KeyError, TypeError, zlib.error):
            return None
        return texts if isinstance(texts, dict) else None

    # ------------------------------------------------------------------ disk

    @staticmethod
    def path(key: str) -> Path | None:
        directory = cache_dir()
        return None if directory is None else directory / build_dir_name() / f"{key}{SUFFIX}"

    def _read(self, key: str, counted: bool = True) -> Artifact | None:
        """The entry on disk, or None; a damaged one is removed (and, when ``counted``,
        counted as rejected)."""
        path = self.path(key)
        if path is None:
            return None
        try:
            with open(path, "rb") as f:
                artifact = _decode(f, key)
        except OSError:  # none, or removed by another process: a miss
            return None
        if artifact is None:
            if counted:
                with self._lock:
                    self.stats.rejected += 1
            _remove(path)
            return None
        try:
            os.utime(path)  # used now: the last to be evicted
        except OSError:
            pass
        return artifact

    def read_record(self, key: str) -> object | None:
        """A small JSON record stored beside the artifacts (``write_record``), or None.
        Records are entries like the others on disk (bounded, evicted, cleared with
        them, their use bumping their time) but neither kept in memory nor counted in
        the hit and miss stats: they hold what a compile decided, not code."""
        artifact = self._read(key, counted=False)
        if artifact is None:
            return None
        try:
            return json.loads(artifact.payload)
        except ValueError:
            return None

    def write_record(self, key: str, record: object) -> None:
        self._write(key, Artifact(json.dumps(record).encode(), {"record": True}))

    @staticmethod
    def _write(key: str, artifact: Artifact, texts: dict | None = None) -> int:
        """Write the entry file; its size, or 0 when it could not be written."""
        path = ArtifactCache.path(key)
        if path is None:
            return 0
        header = {
            "key": key,
            "version": __version__,
            "fingerprint": source_fingerprint(),
            "size": len(artifact.payload),
            "sha256": hashlib.sha256(artifact.payload).hexdigest(),
            "meta": artifact.meta,
        }
        blob = b""
        if texts is not None:
            blob = zlib.compress(json.dumps(texts).encode(), 1)
            header["texts"] = {"size": len(blob), "sha256": hashlib.sha256(blob).hexdigest()}
        data = MAGIC + json.dumps(header, sort_keys=True).encode() + b"\n" + artifact.payload + blob
        for _ in range(2):  # a concurrent clear may remove the directory between mkdir and mkstemp
            try:
                path.parent.mkdir(parents=True, exist_ok=True)
                fd, tmp = tempfile.mkstemp(prefix=f".{key[:16]}.", suffix=".tmp", dir=path.parent)
            except FileNotFoundError:
                continue
            except OSError:
                return 0  # an unwritable cache costs a recompile next time, never a failure
            try:
                with os.fdopen(fd, "wb") as f:
                    f.write(data)
                os.replace(tmp, path)
                return len(data)
            except OSError:
                _remove(Path(tmp))
                return 0
        return 0

    # ------------------------------------------------------------------ bounding

    def collect(self, force: bool = False) -> None:
        """Drop other builds' entries unused for ``STALE_AFTER_S``, then, while the total
        is over ``EMBER_CACHE_MAX``, the least recently used entries, down to
        ``EVICT_TO`` of it (so that the next writes need no eviction).

        Called after each write. The scan costs about 3 us a file (1 ms for 300); in a
        big cache it is amortized: after a scan that found n entries, the next one comes
        after n // SCAN_AMORTIZE writes or as soon as this process's own writes would
        take the total over the limit, whichever is first (up to 256 entries, after
        every write). Another process's writes are seen at the next scan."""
        root = cache_dir()
        if root is None:
            return
        limit = max_bytes()
        with self._lock:
            due = force or self._writes_since_scan >= self._scan_every or (limit is not None and self._estimate > limit)
            if not due:
                return
            self._writes_since_scan = 0
        scan = _scan(root, stale_after=STALE_AFTER_S, remove_stale=True)
        total, evicted = scan["total"], 0
        if limit is not None and total > limit:
            target = int(limit * EVICT_TO)
            for _, size, path in sorted(scan["entries"], key=lambda e: e[0]):
                if total <= target:
                    break
                _remove(Path(path))  # gone already (another process evicted it): counted off all the same
                total -= size
                evicted += 1
        with self._lock:
            self._estimate = total
            self._scan_every = max(1, (len(scan["entries"]) - evicted) // SCAN_AMORTIZE)
            self.stats.stale_removed += scan["stale_removed"]
            self.stats.evicted += evicted


def _scan(root: Path, stale_after: float | None, remove_stale: bool) -> dict:
    """The entries under ``root``: ``entries`` [(mtime, size, path)] and their ``total``
    size, after removing (if ``remove_stale``) other builds' entries unused for
    ``stale_after`` seconds (all of them when None) and abandoned temporary files;
    ``stale`` counts the other builds' entries kept, ``stale_removed`` those removed."""
    now = time.time()
    current = build_dir_name()
    entries: list = []
    counts = {"total": 0, "stale": 0, "stale_removed": 0}

    def visit(directory: str, is_current: bool) -> None:
        try:
            listing = os.scandir(directory)
        except OSError:
            return
        with listing:
            for item in listing:
                name = item.name
                try:
                    if name.endswith(SUFFIX):
                        stat = item.stat(follow_symlinks=False)
                        if not S_ISREG(stat.st_mode):
                            continue
                        if not is_current:
                            if remove_stale and (stale_after is None or now - stat.st_mtime > stale_after):
                                os.unlink(item.path)
                                counts["stale_removed"] += 1
                                continue
                            counts["stale"] += 1
                        entries.append((stat.st_mtime, stat.st_size, item.path))
                        counts["total"] += stat.st_size
                    elif remove_stale and name.endswith(".tmp") and name.startswith("."):
                        if now - item.stat(follow_symlinks=False).st_mtime > ABANDONED_TMP_S:
                            os.unlink(item.path)
                except OSError:  # removed meanwhile by another process
                    continue

    visit(str(root), False)  # flat <key>.ember files of Embers before the per-build directories
    try:
        with os.scandir(root) as listing:
            subdirectories = [(d.path, d.name) for d in listing if d.is_dir(follow_symlinks=False)]
    except OSError:
        subdirectories = []
    for path, name in subdirectories:
        visit(path, name == current)
        if name != current and remove_stale:
            try:
                os.rmdir(path)  # only succeeds once empty (so never for a foreign directory with files)
            except OSError:
                pass
    return {"entries": entries, **counts}


def _read_header(f, key: str) -> dict | None:
    if f.read(len(MAGIC)) != MAGIC:
        return None
    line = f.readline(_MAX_HEADER)
    if not line.endswith(b"\n"):
        return None
    try:
        header = json.loads(line)
    except ValueError:
        return None
    if (
        not isinstance(header, dict)
        or header.get("key") != key
        or header.get("fingerprint") != source_fingerprint()
        or not isinstance(header.get("size"), int)
        or header["size"] < 0
    ):
        return None
    return header


def _decode(f, key: str) -> Artifact | None:
    header = _read_header(f, key)
    if header is None:
        return None
    payload = f.read(header["size"])
    if len(payload) != header["size"] or header.get("sha256") != hashlib.sha256(payload).hexdigest():
        return None
    meta = header.get("meta")
    return Artifact(payload, meta if isinstance(meta, dict) else {})


def _remove(path: Path) -> None:
    try:
        path.unlink()
    except OSError:
        pass


ARTIFACTS = ArtifactCache()


def cache_info() -> CacheInfo:
    """The disk cache's directory, entries, total size and limit, and this process's hits
    and misses (memory and disk together)."""
    root = cache_dir()
    scan = _scan(root, None, remove_stale=False) if root is not None else {"entries": [], "total": 0, "stale": 0}
    stats = ARTIFACTS.stats
    return CacheInfo(
        root,
        len(scan["entries"]),
        scan["total"],
        max_bytes(),
        stats.memory_hits + stats.disk_hits,
        stats.misses,
        scan["stale"],
    )


def clear_cache(stale_only: bool = False) -> int:
    """Remove every entry from disk (only other Ember builds' with ``stale_only``) and
    forget the in-memory ones; returns how many files were removed. Compiled
    functions already loaded keep working."""
    if not stale_only:
        ARTIFACTS.clear_memory()
    root = cache_dir()
    if root is None:
        return 0
    removed = _scan(root, None, remove_stale=True)["stale_removed"]  # every other build's entry
    if stale_only:
        return removed
    for _, _, path in _scan(root, None, remove_stale=False)["entries"]:
        _remove(Path(path))
        removed += 1
    try:
        os.rmdir(root / build_dir_name())
    except OSError:
        pass
    return removed
