"""The one door to the MLIR Python bindings.

Ember uses the upstream MLIR bindings as shipped inside the ``torch-mlir`` wheel
(``torch_mlir.ir`` and friends). Every import of ``torch_mlir`` in the project lives
here, so switching to a plain upstream ``mlir`` package is a one-file change.
"""

from __future__ import annotations

import functools

from torch_mlir import ir, passmanager, rewrite  # noqa: F401  (re-exported)
from torch_mlir.dialects import (  # noqa: F401  (re-exported)
    affine,
    arith,
    bufferization,
    ext,
    func,
    gpu,
    irdl,
    linalg,
    llvm,
    math,
    memref,
    scf,
    tensor,
    transform,
    vector,
)
from torch_mlir.dialects import complex as complex_dialect  # noqa: F401  (re-exported; not to shadow complex)
from torch_mlir.dialects.transform import interpreter as transform_interpreter  # noqa: F401

BINDINGS_DISTRIBUTION = "torch-mlir"


def operation_of(owner):
    """The ``ir.Operation`` behind an op handle (``OpView`` or ``Operation``); None for
    anything else, such as the ``Block`` that owns a block argument."""
    if isinstance(owner, ir.OpView):
        return owner.operation
    return owner if isinstance(owner, ir.Operation) else None


def constant_attr(value) -> ir.Attribute | None:
    """The attribute of the ``arith.constant`` defining ``value``, else None."""
    owner = operation_of(value.owner)
    return owner.attributes["value"] if owner is not None and owner.name == "arith.constant" else None


def constant_index(value) -> int | None:
    """The integer an ``arith.constant`` of integer or index type gives ``value``, else None."""
    attr = constant_attr(value)
    return ir.IntegerAttr(attr).value if isinstance(attr, ir.IntegerAttr) else None


def index_constant(value: int) -> ir.Value:
    """A new ``arith.constant`` of index type at the insertion point (what
    ``constant_index`` reads back)."""
    return arith.constant(ir.IndexType.get(), value)


def defined_inside(value, op) -> bool:
    """Whether ``value`` is defined inside ``op`` (in its regions, at any depth)."""
    owner = value.owner
    current = operation_of(owner.owner if isinstance(owner, ir.Block) else owner)
    while current is not None:
        if current == op:
            return True
        current = operation_of(current.parent) if current.parent is not None else None
    return False


def clone_ops(ops, mapping: dict) -> dict:
    """Copy ``ops`` (in order) at the insertion point, each reading the copies of what
    it read where ``mapping`` (old value -> new value) has them; returns ``mapping``
    with every copied result added."""
    for op in ops:
        copy = op.clone()
        for k, operand in enumerate(op.operands):
            if operand in mapping:
                copy.operands[k] = mapping[operand]
        for old, new in zip(op.results, copy.results):
            mapping[old] = new
    return mapping


def walk_ops(op) -> list[ir.Operation]:
    """Every op nested in ``op`` and ``op`` itself, in the order of MLIR's walk
    (post-order); collected first, so the caller may change or erase them."""
    found = []

    def visit(inner):
        found.append(inner.operation)
        return ir.WalkResult.ADVANCE

    op.operation.walk(visit)
    return found


def collect(op, predicate) -> list[ir.Operation]:
    """The ops of ``walk_ops(op)`` for which ``predicate(op)`` holds."""
    return [inner for inner in walk_ops(op) if predicate(inner)]


class NoSuchFunction(LookupError, ValueError):
    """A module has no ``func.func`` of the name asked for."""


def symbol_name(op) -> str:
    return ir.StringAttr(op.attributes["sym_name"]).value


def functions(module, declarations: bool = False) -> list[ir.Operation]:
    """The ``func.func`` ops at the top of ``module`` (an ``ir.Module`` or its op);
    definitions only unless ``declarations`` (a declaration has no body to work on)."""
    return [
        op.operation
        for op in module.operation.regions[0].blocks[0].operations
        if op.operation.name == "func.func" and (declarations or len(op.operation.regions[0].blocks))
    ]


def _declaration(fn: ir.Operation) -> str:
    """The text of a private declaration of the function ``fn``: its signature, no body."""
    fn_type = ir.FunctionType(ir.TypeAttr(fn.attributes["function_type"]).value)
    results = ", ".join(map(str, fn_type.results))
    text = f"func.func private @{symbol_name(fn)}({', '.join(map(str, fn_type.inputs))})"
    return text + (f" -> ({results})" if results else "")


@functools.cache
def declarations(text: str, names: tuple[str, ...] | None = None) -> str:
    """Private declarations of the functions MLIR ``text`` defines (those in ``names``
    only, when given): what a module calling a library of them holds. Cached: a helper
    library's text is the same for every kernel."""
    module = ir.Module.parse(text)  # in the current context
    return "\n".join(_declaration(fn) for fn in functions(module) if names is None or symbol_name(fn) in names)


def add_functions(module_op, text: str) -> None:
    """Add the functions of MLIR ``text`` that ``module_op`` does not have yet, at its top."""
    present = {symbol_name(fn) for fn in functions(module_op, declarations=True)}
    first = module_op.regions[0].blocks[0].operations[0]
    parsed = ir.Module.parse(text)  # alive while its ops move
    for op in list(parsed.body.operations):
        if symbol_name(op.operation) not in present:
            op.operation.move_before(first)


def public_definitions(text: str) -> str:
    """MLIR ``text`` with its function definitions made public (declarations stay
    private): a library others link to."""
    module = ir.Module.parse(text)
    for fn in functions(module):
        del fn.attributes["sym_visibility"]
    return str(module)


def module_text(module: ir.Module) -> str:
    """``str(module)`` without verifying it first: for a graph Ember built, whose ops were
    each checked as they were built, and for IR its passes produced. Printing verifies,
    and the verifier of an ``ember`` op is Python (its type rule): 0.8 ms of a 1.1 ms
    print of the layernorm graph, on every cache lookup."""
    return module.operation.get_asm(assume_verified=True)


def copy_module(module: ir.Module) -> ir.Module:
    """A deep copy of a verified ``module`` (its attributes and top-level ops) to lower,
    without the print and parse that verify it twice (``module_text``)."""
    with module.context, ir.Location.unknown():
        copy = ir.Module.create()
        for name in module.operation.attributes:
            copy.operation.attributes[name] = module.operation.attributes[name]
        with ir.InsertionPoint(copy.body):
            for op in module.body.operations:
                op.operation.clone()
    return copy


def function_named(module, name: str | None = None) -> ir.Operation:
    """The ``func.func`` of ``module`` called ``name`` (the first one when None)."""
    funcs = functions(module, declarations=True)
    if not funcs:
        raise NoSuchFunction("module has no func.func")
    if name is None:
        return funcs[0]
    for fn in funcs:
        if symbol_name(fn) == name:
            return fn
    raise NoSuchFunction(f"no function @{name} in module (has {', '.join('@' + symbol_name(f) for f in funcs)})")


def load_python_dialect(dialect: type, context: ir.Context) -> None:
    """Register a dialect defined in Python (an ``ext.Dialect`` subclass) in ``context``.

    The bindings have no public call for this: the IRDL definition is emitted and
    loaded, then each op class is registered with the bindings' private hooks so that
    parsed ops come back as our Python classes. This function is the only user of
    those private APIs, so a bindings upgrade that moves them breaks one place.
    """
    from torch_mlir.dialects._ods_common import _cext

    with context, ir.Location.unknown():
        definition = ir.Module.create()
        with ir.InsertionPoint(definition.body):
            dialect._emit_dialect()
        irdl.load_dialects(definition)
        for cls in dialect.operations:
            cls._attach_traits()
            _cext.register_operation(dialect, replace=True)(cls)
    _cext.globals._register_dialect_impl(dialect.DIALECT_NAMESPACE, dialect, replace=True)
    # Each time an op of the dialect is handed to Python (every walk over a module), the
    # bindings import its dialect's module ``<search prefix>.<namespace>`` unless one was
    # imported before; a failed import is not remembered and costs ~35 us. The package of
    # the dialect's own module is a search prefix: the import succeeds once, and a
    # compile of tanh-GELU no longer runs ~90 failed imports (6 ms of 80).
    package, _, leaf = dialect.__module__.rpartition(".")
    if leaf == dialect.DIALECT_NAMESPACE and package not in _cext.globals.dialect_search_modules:
        _cext.globals.append_dialect_search_prefix(package)


def capi_library_path() -> str:
    """The bindings' aggregate C API library (the upstream pass list is read from it)."""
    import os

    from torch_mlir import _mlir_libs

    return os.path.join(os.path.dirname(_mlir_libs.__file__), "libTorchMLIRAggregateCAPI.so")


@functools.cache
def bindings_version() -> str:
    """Version string of the MLIR bindings, part of every artifact cache key.

    Read from the name of the distribution's metadata folder beside the package:
    ``importlib.metadata`` took 40 ms of a new process's first compile (its import and
    a scan of every installed distribution); it is asked only where the folder is not
    found once."""
    import glob
    import os

    from torch_mlir import _mlir_libs

    prefix = BINDINGS_DISTRIBUTION.replace("-", "_") + "-"
    site = os.path.dirname(os.path.dirname(os.path.dirname(_mlir_libs.__file__)))
    found = glob.glob(os.path.join(glob.escape(site), prefix + "*.dist-info"))
    if len(found) == 1:
        return BINDINGS_DISTRIBUTION + "-" + os.path.basename(found[0])[len(prefix) : -len(".dist-info")]
    from importlib.metadata import version

    return f"{BINDINGS_DISTRIBUTION}-{version(BINDINGS_DISTRIBUTION)}"


def non_llvm_ops(module: ir.Module, dialects: tuple[str, ...] = ("llvm",)) -> list[str]:
    """Names of ops that the LLVM IR translation cannot handle: those outside
    ``dialects`` (``("llvm", "nvvm")`` for a GPU kernel module)."""
    prefixes = tuple(d + "." for d in dialects)
    return sorted(
        {op.name for op in walk_ops(module) if not (op.name.startswith(prefixes) or op.name == "builtin.module")}
    )


def translate_to_llvm_ir(module: ir.Module, dialects: tuple[str, ...] = ("llvm",)) -> str:
    """LLVM IR text of a module that is entirely in the LLVM dialect (or in the
    other ``dialects`` with a translation to LLVM IR, such as ``nvvm``).

    The C API translation crashes (rather than failing) on ops outside those
    dialects, so we check that first and raise a ValueError naming them.
    """
    leftovers = non_llvm_ops(module, dialects)
    if leftovers:
        where = "the LLVM dialect" if dialects == ("llvm",) else "the " + "/".join(dialects) + " dialects"
        raise ValueError(f"cannot translate to LLVM IR: ops outside {where} remain: " + ", ".join(leftovers))
    return llvm.translate_module_to_llvmir(module.operation)
