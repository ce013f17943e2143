"""Building ``scf.for``/``scf.while`` loops from Python: the loop nests of the lowerings
that are not linalg ops and GPU kernels (sort's merge passes, partition's selection, scan's
running values, scatter's ordered writes)."""

from __future__ import annotations

from compiler.mlir import ir, scf, walk_ops


def for_loop(lower, upper, step, iter_args, body) -> list:
    """``scf.for`` from ``lower`` to ``upper`` by ``step`` (index values) carrying
    ``iter_args``; ``body(iv, *args)`` returns the values to yield. Returns the results."""
    loop = scf.ForOp(lower, upper, step, list(iter_args))
    with ir.InsertionPoint(loop.body):
        scf.YieldOp(list(body(loop.induction_variable, *loop.inner_iter_args)))
    return list(loop.results)


def with_iter_args(loop: ir.Operation, inits: list, rewire) -> ir.Operation:
    """``loop`` (an ``scf.for``) rebuilt to carry ``inits``: its body moves into the new
    loop, whose induction variable replaces the old one; ``rewire(new_args)`` makes the
    body use the new loop's iteration arguments in place of what it read before (the old
    ones, loads from memory) and returns what the new loop yields, in ``inits``' order.
    The old loop is left in place, empty but for its yield, for the caller to replace
    its results and erase it: they still have users."""
    with ir.InsertionPoint(loop), loop.location:
        new = scf.ForOp(loop.operands[0], loop.operands[1], loop.operands[2], list(inits))
    old_block = loop.regions[0].blocks[0]
    old_block.arguments[0].replace_all_uses_with(new.induction_variable)
    yields = rewire(list(new.inner_iter_args))
    with ir.InsertionPoint(new.body), loop.location:
        new_yield = scf.YieldOp(list(yields))
    for op in [op.operation for op in old_block.operations][:-1]:  # all but the old yield
        op.move_before(new_yield)
    return new.operation


def while_loop(values, condition, body) -> list:
    """``scf.while`` carrying ``values``: ``condition(*values)`` gives the i1 that keeps it
    going (or ``(i1, values)``: what it computed on the way, handed to ``body`` and
    returned instead), ``body(*values)`` the next values. Returns the values it stopped
    with."""
    types = [v.type for v in values]
    loop = scf.WhileOp(types, list(values))
    before = loop.before.blocks.append(*types)
    with ir.InsertionPoint(before):
        checked = condition(*before.arguments)
        flag, passed = checked if isinstance(checked, tuple) else (checked, list(before.arguments))
        scf.ConditionOp(flag, list(passed))
    after = loop.after.blocks.append(*types)
    with ir.InsertionPoint(after):
        scf.YieldOp(list(body(*after.arguments)))
    return list(loop.results)


def if_then(condition, then, otherwise=None) -> None:
    """``scf.if`` with no results: ``then()`` (and ``otherwise()``) build its branches."""
    op = scf.IfOp(condition, [], has_else=otherwise is not None)
    with ir.InsertionPoint(op.then_block):
        then()
        scf.YieldOp([])
    if otherwise is not None:
        with ir.InsertionPoint(op.else_block):
            otherwise()
            scf.YieldOp([])


def inside_forall(op) -> bool:
    """Whether ``op`` is nested in an ``scf.forall`` of its function."""
    parent = op.parent
    while parent is not None and parent.name != "func.func":
        if parent.name == "scf.forall":
            return True
        parent = parent.parent
    return False


def loop_bodies(fn) -> list:
    """``fn`` and each ``scf.for`` in it outside a tiled loop: the ops holding the blocks
    Ember's tensor-level passes work on one at a time (``holder.regions[0].blocks[0]``).
    A loop the frontend traced as a loop (a time step) keeps its body's ops in a block of
    its own: tiled there, each step's work splits across threads (``ember-fork-loops``
    forks a loop nested in a sequential one); bufferized there, each step's updates go
    into its grids in place."""
    return [fn] + [op for op in walk_ops(fn) if op.name == "scf.for" and not inside_forall(op)]
