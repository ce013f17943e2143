"""What tracing part of a frame (a loop body, a branch) changes, and undoing it.

Loops traced as loops (``loops.py``) trace a body twice and may give up; branches
traced both ways (``branches.py``) trace two paths from the same state. Both take a
``Snapshot`` of the frame before, and restore it: the value stack, the locals and
closure cells, every reachable array tracker and base (``mutation.py``), the lists
and dicts a body may change, and — when the ops traced are thrown away too — the
emitter's caches of values that no longer exist.
"""

from __future__ import annotations

import dataclasses
import itertools

from compiler.frontend import variables as v

_VERSIONS = itertools.count(1 << 40, 1 << 20)  # base versions no earlier state holds


def fresh_version() -> int:
    """A version no tracker holds yet: views of a base given it derive again."""
    return next(_VERSIONS)


def _trackers(tx) -> list:
    """Every tracker the frame (and the graph's sources) can reach, containers opened."""
    found, seen = [], set()
    todo = list(tx.locals.values()) + list(tx.stack) + list(tx.cells.values())
    todo += list(tx.output._by_source.values())
    while todo:
        t = todo.pop()
        if id(t) in seen:
            continue
        seen.add(id(t))
        found.append(t)
        if isinstance(t, v.BaseListVariable):
            todo.extend(t.items)
        elif isinstance(t, v.DictVariable):
            todo.extend(t.items.values())
    return found


@dataclasses.dataclass
class Snapshot:
    """The frame's state at ``take``, to compare with and to go back to."""

    tx: object
    stack: list
    locals: dict
    cells: dict
    cell_contents: list  # (cell, what it held): STORE_DEREF changes a cell in place
    ip: int
    line: int
    trackers: list  # (tracker, its fields)
    bases: list  # (base, its fields)
    emitter: dict
    by_source: dict
    ops_emitted: int
    side_effects: tuple
    containers: list  # (list or dict tracker, a copy of its items)

    @classmethod
    def take(cls, tx) -> Snapshot:
        out, em = tx.output, tx.output.emitter
        reachable = _trackers(tx)
        tensors = [t for t in reachable if isinstance(t, v.TensorVariable)]
        bases = {id(b): b for b in [t.base for t in tensors if t.base is not None] + out.input_bases}
        return cls(
            tx,
            list(tx.stack),
            dict(tx.locals),
            dict(tx.cells),
            [(cell, cell.contents) for cell in _cells(tx)],
            tx.ip,
            tx.line,
            [(t, dict(vars(t))) for t in tensors],
            [(b, dict(vars(b))) for b in bases.values()],
            {
                "_size_values": dict(em._size_values),
                "_shapes": dict(em._shapes),
                "_symbol_values": dict(em._symbol_values),
                "check": em.check,
                "status_checks": list(em.status_checks),
                "opaque_views": set(em.opaque_views),
            },
            dict(out._by_source),
            out.builder.ops_emitted,
            _side_effects(out),
            [(t, _items(t)) for t in reachable if isinstance(t, (v.BaseListVariable, v.DictVariable))],
        )

    def knows(self, base) -> bool:
        """Whether ``base`` existed at ``take``."""
        return any(base is b for b, _ in self.bases)

    def python_change(self) -> str | None:
        """What the traced part did in Python that tracing cannot replay (a verb phrase:
        "changes a list or dict"), or None."""
        tx = self.tx
        if _side_effects(tx.output) != self.side_effects:
            return "has a Python side effect (a list, dict, attribute or global write)"
        if tx.cells != self.cells or any(cell.contents is not held for cell, held in self.cell_contents):
            return "writes a closure variable"
        if any(not _same_items(_items(t), items) for t, items in self.containers):
            return "changes a list or dict"
        return None

    def restore(self, graph: bool = True) -> None:
        """Undo what happened since ``take``; ``graph=False`` (a branch, whose ops stay in
        the graph): the frame, the trackers and the arrays only."""
        tx = self.tx
        out, em = tx.output, tx.output.emitter
        tx.stack[:] = self.stack
        tx.locals = dict(self.locals)
        tx.cells = dict(self.cells)
        for cell, held in self.cell_contents:
            cell.contents = held
        tx.ip, tx.line = self.ip, self.line
        for container, items in self.containers:
            if isinstance(container.items, dict):
                container.items.clear()
                container.items.update(items)
            else:
                container.items[:] = items
        for tracker, fields in self.trackers:
            tracker.__dict__.update(fields)
        for base, fields in self.bases:
            base.__dict__.update(fields)
            base.version = fresh_version()  # views derived since derive again
        for base in out.input_bases:  # inputs first read since keep their graph argument
            if not self.knows(base):
                base.value, base.version, base.mutated = base.original, fresh_version(), False
        if not graph:
            return
        for name, value in self.emitter.items():
            setattr(em, name, value.copy() if hasattr(value, "copy") else value)
        # sources first read since stay: their trackers hold graph arguments
        out._by_source = {**out._by_source, **self.by_source}
        out.builder.ops_emitted = self.ops_emitted


def _cells(tx) -> list:
    """The cells the frame can write: its own (``MAKE_CELL``) and the trace-made cells of
    the enclosing traced function it closes over (an inlined closure's ``nonlocal``)."""
    own = list(tx.cells.values())
    enclosing = [c for c in tx.closure if isinstance(c, v.CellVariable)]
    return own + [c for c in enclosing if not any(c is o for o in own)]


def same_constant(a, b) -> bool:
    """Python values equal, and of one type (``1 == 1.0`` is not the same constant)."""
    try:
        return type(a) is type(b) and bool(a == b)
    except Exception:
        return a is b


def _items(container):
    """A list's or dict's items, to compare by identity (``is``) later."""
    items = container.items
    return dict(items) if isinstance(items, dict) else list(items)


def _same_items(a, b) -> bool:
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(a[k] is b[k] for k in a)
    return len(a) == len(b) and all(x is y for x, y in zip(a, b))


def _side_effects(out) -> tuple:
    return (len(out.mutated), len(out.attribute_writes), dict(out.global_writes))
