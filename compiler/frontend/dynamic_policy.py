"""Which sizes and ints a trace makes symbolic: ``dynamic=``, marks, automatic dynamic.

The contract's policy, TorchDynamo's:

* **static by default** (``compile(fn)``, ``dynamic=None``): the first trace
  specializes every size and int argument. When a later call misses only because a
  size or an int changed, the new trace makes *that* dimension or int symbolic
  (*automatic dynamic*): the new entry serves all later values. The state is kept per
  compiled function: what each source (``L['x']``, ``L['n']``) was in the last trace.
* ``compile(..., dynamic=True)``: every size and int argument symbolic from the first
  trace; ``dynamic=False``: none ever (``mark_dynamic`` included).
* ``mark_dynamic(x, dim)`` / ``mark_static(x, dim)``: this array's dimension, whatever
  the automatic state says (static wins over dynamic=True; ``mark_dynamic`` over the
  default). Marks live beside the array (NumPy arrays take no attributes), dropped
  with it.

Whatever the policy, sizes 0 and 1 are specialized (``symbolic_shapes.py``).
"""

from __future__ import annotations

import threading
import weakref

import numpy as np

from compiler.errors import InvalidArgument

_marks: dict[int, tuple] = {}  # id(array) -> (weakref, dynamic dims, static dims)
_marks_lock = threading.Lock()


def _marks_of(array: np.ndarray) -> tuple[set, set]:
    with _marks_lock:
        found = _marks.get(id(array))
        if found is not None and found[0]() is array:
            return found[1], found[2]
        key = id(array)
        ref = weakref.ref(array, lambda _, key=key: _marks.pop(key, None))
        _marks[key] = (ref, set(), set())
        return _marks[key][1], _marks[key][2]


def _dims(array, dim, what: str) -> list[int]:
    if not isinstance(array, np.ndarray):
        raise InvalidArgument(f"{what}: expected a numpy.ndarray, got {type(array).__name__}")
    dims = list(dim) if isinstance(dim, (list, tuple)) else [dim]
    out = []
    for d in dims:
        if isinstance(d, bool) or not isinstance(d, (int, np.integer)) or not -array.ndim <= d < array.ndim:
            raise InvalidArgument(f"{what}: dimension {d!r} is not one of an array of rank {array.ndim}")
        out.append(int(d) % array.ndim)
    return out


def mark_dynamic(array: np.ndarray, dim) -> None:
    """Trace ``array``'s dimension(s) ``dim`` as symbolic from the first call on (saves
    the static compile that automatic dynamic would make first). A size of 0 or 1 is
    still specialized."""
    dynamic, static = _marks_of(array)
    for d in _dims(array, dim, "mark_dynamic"):
        dynamic.add(d)
        static.discard(d)


def mark_static(array: np.ndarray, dim) -> None:
    """Never trace ``array``'s dimension(s) ``dim`` as symbolic, even with ``dynamic=True``."""
    dynamic, static = _marks_of(array)
    for d in _dims(array, dim, "mark_static"):
        static.add(d)
        dynamic.discard(d)


def marks(array: np.ndarray) -> tuple[frozenset, frozenset]:
    with _marks_lock:
        found = _marks.get(id(array))
        if found is None or found[0]() is not array:
            return frozenset(), frozenset()
        return frozenset(found[1]), frozenset(found[2])


class DynamicPolicy:
    """One compiled function's policy and automatic-dynamic state."""

    def __init__(self, mode: bool | None):
        self.mode = mode
        self._last: dict[str, object] = {}  # source name -> shape tuple or int value of the last trace
        self._dynamic: dict[str, set] = {}  # source name -> axes (or {None} for an int) made dynamic
        self._lock = threading.Lock()
        self.static_only = False  # a trace with symbolic sizes failed where static ones compile
        # (code, FOR_ITER offset) of the loops to trace as loops (loops.py): each unrolled
        # past the graph budget once; kept, so later traces of new sizes start there
        self.loops: set = set()
        # (code, FOR_ITER offset) -> how many copies of the body its scf.for holds, where
        # more than one (loops.py: arrays swapped between iterations); a hint, checked
        self.loop_periods: dict = {}
        # (code, FOR_ITER offset) -> what its scf.for carries, by name (loops._described):
        # the next trace of it starts there instead of probing the body; a hint, checked
        self.loop_carried: dict = {}
        self.stored_loops: dict | None = None  # offset -> (period, carried), as stored (loop_decisions.py)

    def dynamic_axes(self, source_name: str, array: np.ndarray) -> tuple[set, str]:
        """The axes of this input to trace symbolically, and why (for the ``dynamic`` log)."""
        marked, static = marks(array)
        shape = tuple(array.shape)
        with self._lock:
            self._observe(source_name, shape)
            if self.mode is False or self.static_only:
                return set(), "dynamic=False"
            if self.mode is True:
                return set(range(array.ndim)) - static, "dynamic=True"
            axes = (self._dynamic.get(source_name, set()) | set(marked)) - static
        return axes, ("mark_dynamic" if marked else "automatic dynamic: its size changed between calls")

    def int_is_dynamic(self, source_name: str, value: int) -> bool:
        with self._lock:
            self._observe(source_name, value)
            if self.static_only:
                return False
            if self.mode is not None:
                return self.mode
            return None in self._dynamic.get(source_name, set())

    def _observe(self, source_name: str, now) -> None:
        """Record what the source is in this trace; a change from the last trace makes the
        changed axes (or the int) dynamic from now on."""
        before = self._last.get(source_name)
        self._last[source_name] = now
        if before is None or before == now:
            return
        if isinstance(now, tuple) and isinstance(before, tuple) and len(now) == len(before):
            axes = {i for i, (a, b) in enumerate(zip(before, now)) if a != b}
            self._dynamic.setdefault(source_name, set()).update(axes)
        elif isinstance(now, int) and isinstance(before, int):
            self._dynamic.setdefault(source_name, set()).add(None)
