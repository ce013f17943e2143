"""The artifact cache: compiled object code in memory and on disk.

A graph compiled once should not be compiled again, in this process or the next.
Entries are keyed by the module text and everything the object code depends on:
Ember's own code (its version and a fingerprint of its sources, so an edited
compiler never loads stale code), the MLIR bindings, llvmlite and the host CPU.

On disk (``$EMBER_CACHE_DIR``, else ``$XDG_CACHE_HOME/ember``, else
``~/.cache/ember``; ``EMBER_CACHE_DIR=off`` disables it) an entry is one file::

    EMBERART1\\n{"key": ..., "sha256": <of the payload>, "meta": {...}}\\n<payload>

A file whose magic, key or checksum does not match is deleted and rebuilt, never
loaded. Writers write a private temporary file and ``os.replace`` it into place, so
a reader sees a whole entry or none, whatever runs concurrently.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import tempfile
import threading
from dataclasses import dataclass, field
from pathlib import Path

MAGIC = b"EMBERART1\n"


@dataclass
class CacheStats:
    memory_hits: int = 0
    disk_hits: int = 0
    misses: int = 0
    rejected: int = 0  # corrupt or stale files found and removed


@dataclass
class Artifact:
    payload: bytes
    meta: dict = field(default_factory=dict)


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


def artifact_key(module_text: str, *parts: str) -> str:
    digest = hashlib.sha256()
    for part in (module_text, source_fingerprint(), *parts):
        digest.update(part.encode())
        digest.update(b"\0")
    return digest.hexdigest()


class ArtifactCache:
    def __init__(self):
        self._memory: dict[str, Artifact] = {}
        self._lock = threading.Lock()
        self.stats = CacheStats()

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

    def put(self, key: str, artifact: Artifact) -> None:
        with self._lock:
            self._memory[key] = artifact
        self._write(key, artifact)

    # ------------------------------------------------------------------ disk

    @staticmethod
    def path(key: str) -> Path | None:
        directory = cache_dir()
        return None if directory is None else directory / f"{key}.ember"

    def _read(self, key: str) -> Artifact | None:
        path = self.path(key)
        if path is None:
            return None
        try:
            data = path.read_bytes()
        except OSError:
            return None
        artifact = _decode(data, key)
        if artifact is None:
            with self._lock:
                self.stats.rejected += 1
            _remove(path)
        return artifact

    @staticmethod
    def _write(key: str, artifact: Artifact) -> None:
        path = ArtifactCache.path(key)
        if path is None:
            return
        header = {"key": key, "sha256": hashlib.sha256(artifact.payload).hexdigest(), "meta": artifact.meta}
        data = MAGIC + json.dumps(header, sort_keys=True).encode() + b"\n" + artifact.payload
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(prefix=f".{key[:16]}.", suffix=".tmp", dir=path.parent)
            with os.fdopen(fd, "wb") as f:
                f.write(data)
            os.replace(tmp, path)
        except OSError:
            pass  # an unwritable cache costs a recompile next time, never a failure


def _decode(data: bytes, key: str) -> Artifact | None:
    if not data.startswith(MAGIC):
        return None
    header_end = data.find(b"\n", len(MAGIC))
    if header_end < 0:
        return None
    try:
        header = json.loads(data[len(MAGIC):header_end])
    except ValueError:
        return None
    payload = data[header_end + 1:]
    if not isinstance(header, dict) or header.get("key") != key \
            or header.get("sha256") != hashlib.sha256(payload).hexdigest():
        return None
    return Artifact(payload, header.get("meta") or {})


def _remove(path: Path) -> None:
    try:
        path.unlink()
    except OSError:
        pass


ARTIFACTS = ArtifactCache()
