"""Grid and block sizes for Ember's GPU kernels, as pure functions of the problem and the device.

Elementwise and serial kernels loop grid-stride, so any grid is correct and the grid
is capped at a few dozen waves of blocks per multiprocessor: more blocks only add
scheduling. Reductions give each row one block, and split a row over several blocks
(a two-level tree) only when there are too few rows to fill the GPU. A result of
``None`` means there is nothing to do and no kernel should be launched.
"""

from __future__ import annotations

MAX_GRID_X = 2**31 - 1
MAX_GRID_YZ = 65535
MAX_CHUNKS = 1024


def _ceil_div(a: int, b: int) -> int:
    return -(-a // b)


def elementwise(total: int, sms: int, block: int = 256, per_thread: int = 1, waves: int = 32) -> tuple[int, int] | None:
    """``(grid, block)`` for ``total`` elements, ``per_thread`` per thread per loop step."""
    if total == 0:
        return None
    grid = min(_ceil_div(total, block * per_thread), sms * waves, MAX_GRID_X)
    return max(grid, 1), block


def serial(rows: int, sms: int, block: int = 128) -> tuple[int, int] | None:
    """``(grid, block)`` for one thread per row."""
    return elementwise(rows, sms, block)


def reduction(rows: int, extent: int, sms: int, max_block: int = 256) -> tuple[int, int, int] | None:
    """``(grid_rows, chunks, block)`` for ``rows`` reductions of ``extent`` elements each.

    ``block`` is the smallest power of two covering the extent (32 to ``max_block``);
    ``chunks`` blocks share a row when the rows alone cannot fill ``sms`` twice over and
    the row is long enough to give each block four elements per thread.
    """
    if rows == 0:
        return None
    block = max(32, 1 << (max(min(extent, max_block), 1) - 1).bit_length())
    if rows >= 2 * sms or extent <= block * 4:
        chunks = 1
    else:
        chunks = max(min(_ceil_div(extent, block * 4), _ceil_div(4 * sms, rows), MAX_CHUNKS), 1)
    return min(rows, MAX_GRID_X), chunks, block


def tiled_2d(m: int, n: int, batch: int, tile: int) -> tuple[tuple[int, int, int], tuple[int, int, int]] | None:
    """``((gx, gy, gz), (tile, tile, 1))`` covering an ``m x n`` output per batch entry with square tiles."""
    grid = (_ceil_div(n, tile), _ceil_div(m, tile), batch)
    if 0 in grid:
        return None
    if grid[1] > MAX_GRID_YZ or grid[2] > MAX_GRID_YZ:
        raise ValueError(f"grid {grid} exceeds CUDA's limit of {MAX_GRID_YZ} blocks in y and z")
    return grid, (tile, tile, 1)
