"""``--split-input-file``: cut the input into chunks at a marker, as mlir-opt does.

mlir-opt splits the raw text (not lines) at the marker, ``// -----`` unless one is
given. To catch typos it first splits at the marker minus its last two
characters; a piece that does not go on with those two characters is a *near
miss* (``// ----``, ``// ---``): it gets a warning and does not split. The rest
of the marker's line belongs to the next chunk.

Each chunk is padded with the newlines and spaces that precede it in the file, so
its diagnostics carry the line and column of the whole file.
"""

from __future__ import annotations

from dataclasses import dataclass

CHECK_LEN = 2  # mlir-opt's length of the marker's tail checked for near misses
NEAR_MISS = "near miss with file split marker"


@dataclass(frozen=True)
class NearMiss:
    """Where a near miss was found: 1-based line and column in the whole input."""

    line: int
    col: int


def _position(source: str, offset: int) -> tuple[int, int]:
    line = source.count("\n", 0, offset) + 1
    return line, offset - (source.rfind("\n", 0, offset) + 1) + 1


def _padded(source: str, start: int, end: int) -> str:
    line, col = _position(source, start)
    return "\n" * (line - 1) + " " * (col - 1) + source[start:end]


def split(source: str, marker: str | None) -> tuple[list[str], list[NearMiss]]:
    """(the chunks, the near misses); no marker: the whole source, unsplit."""
    if not marker:
        return [source], []
    if len(marker) <= CHECK_LEN:
        return [_padded(source, s, e) for s, e in _exact(source, marker)], []
    head, tail = marker[:-CHECK_LEN], marker[-CHECK_LEN:]
    spans, misses, start, pos = [], [], 0, 0
    while (found := source.find(head, pos)) != -1:
        after = found + len(head)
        if source.startswith(tail, after):
            spans.append((start, found))
            start = pos = after + CHECK_LEN
        else:
            misses.append(NearMiss(*_position(source, after)))
            pos = after
    spans.append((start, len(source)))
    return [_padded(source, s, e) for s, e in spans], misses


def _exact(source: str, marker: str):
    start = 0
    while (found := source.find(marker, start)) != -1:
        yield start, found
        start = found + len(marker)
    yield start, len(source)
