"""ember-opt: mlir-opt for Ember.

Reads MLIR (a file or ``-``), runs a pass pipeline mixing Ember's Python passes and
upstream MLIR passes, and prints MLIR, LLVM IR, host code or the PTX of GPU kernels. It reads mlir-opt's command line
(``tools/opt_cli.py``), so upstream MLIR's own lit RUN lines work with it.
Diagnostics are captured from the context and printed as ``file:line:col: error:
...`` (or checked against ``expected-error`` comments under ``--verify-diagnostics``).
Bad input of any kind ends in a message and exit status 1, never in a Python
traceback.

    ember-opt input.mlir --pass-pipeline='builtin.module(ember-to-linalg,cse)'
    ember-opt input.mlir -p lower-to-llvm -o out.mlir
    ember-opt input.mlir -canonicalize -cse --inline='default-pipeline=canonicalize'
    ember-opt input.mlir --emit=llvm
    ember-opt kernels.mlir --emit=ptx --gpu-arch=sm_90 --check-ptx
    ember-opt --list-passes
"""

from __future__ import annotations

import os
import re
import sys
from dataclasses import dataclass
from types import SimpleNamespace

from compiler.dialects.ember import new_context
from compiler.errors import BackendError
from compiler.mlir import ir, non_llvm_ops, translate_to_llvm_ir, walk_ops
from compiler.passes import registry
from compiler.passes.pass_manager import build_pass_manager
from compiler.passes.pipeline_syntax import PipelineError
from tools import ir_dumps, opt_cli, opt_pipeline, split_input
from tools.opt_diagnostics import Collector, Diag, Printer, parse_expectations, verify

PROG = "ember-opt"
EMITS = ("mlir", "llvm", "asm", "obj", "ptx")
LATER_EMITS: tuple[str, ...] = ()
LOWERING = "lower-to-llvm"  # run before --emit=llvm/asm/obj when no pipeline is given
GPU_LOWERING = "lower-to-nvvm"  # before --emit=ptx, when the input has Ember ops or no gpu.module
KERNEL_LOWERING = "gpu-to-nvvm"  # before --emit=ptx, when a gpu.module is not in NVVM yet
SUMMARY = (
    "Reads MLIR (a file or '-'), runs passes (Ember's and upstream MLIR's) and prints "
    "MLIR, LLVM IR, host code or PTX (GPU kernels). The command line is mlir-opt's."
)


class UsageError(Exception):
    """The command line, the input file or the pipeline is unusable: print and exit 1."""


class ChunkFailure(Exception):
    """Processing one input chunk failed; diagnostics (if any) are in the collector."""


# ----------------------------------------------------------------------------- command line


@dataclass
class Options:
    """The parsed command line, with the pipeline text and the dump filter resolved."""

    args: SimpleNamespace  # see opt_cli.OPTIONS; ``args.o`` is the output file
    pieces: list[opt_cli.PipelinePiece]
    pipeline: str | None  # set by new_session (checking it needs a context)
    dumps: ir_dumps.DumpFilter


def _names(text: str) -> tuple[str, ...]:
    return tuple(n.strip() for n in text.split(",") if n.strip())


def _check_emit(args) -> None:
    if args.emit in LATER_EMITS:
        raise UsageError(f"--emit={args.emit} is not supported yet (choose one of: {', '.join(EMITS)})")
    if args.emit not in EMITS:
        raise UsageError(f"unknown --emit={args.emit} (choose one of: {', '.join(EMITS)})")
    if args.emit == "obj" and args.split_input_file:
        raise UsageError("--emit=obj writes one object file: it cannot be combined with --split-input-file")
    if args.emit == "obj" and args.o == "-" and sys.stdout.isatty():
        raise UsageError("refusing to write binary to a terminal; use -o")  # as llc does
    if args.emit != "ptx":
        for flag in ("gpu_arch", "check_ptx"):
            if getattr(args, flag):
                raise UsageError(f"--{flag.replace('_', '-')} only applies to --emit=ptx")
        return
    from compiler.backends.nvptx import codegen  # the GPU backend: loaded only for ptx

    from_env = not args.gpu_arch and os.environ.get(codegen.ARCH_ENV, "").strip()
    arch = args.gpu_arch or codegen.default_arch()
    try:
        codegen.check_arch(arch)
    except BackendError as e:
        raise UsageError(f"{e} (from ${codegen.ARCH_ENV})" if from_env else str(e)) from None
    args.gpu_arch = arch


def parse_options(argv: list[str]) -> Options:
    try:
        line = opt_cli.scan(argv)
    except opt_cli.CommandLineError as e:
        raise UsageError(str(e)) from None
    args = line.args
    _check_emit(args)
    for flag in ("mlir_elide_elementsattrs_if_larger", "mlir_elide_resource_strings_if_larger"):
        value = getattr(args, flag)
        if value is not None and not value.isdigit():
            raise UsageError(f"option '--{flag.replace('_', '-')}' takes a number, not '{value}'")
    dumps = ir_dumps.DumpFilter(
        args.mlir_print_ir_before_all,
        args.mlir_print_ir_after_all,
        _names(args.mlir_print_ir_before),
        _names(args.mlir_print_ir_after),
        args.mlir_print_ir_after_failure,
    )
    return Options(args, line.pieces, None, dumps)


# ----------------------------------------------------------------------------- --list-passes


def list_passes() -> str:
    """Ember's passes and pipelines with their summaries, then the upstream pass names."""
    rows = [
        ("Ember passes:", [(n, registry.pass_summary(n)) for n in registry.ember_pass_names()]),
        ("Ember pipelines:", [(n, registry.pipeline_summary(n)) for n in registry.pipeline_names()]),
        ("Upstream MLIR passes:", [(n, "") for n in registry.upstream_passes()]),
    ]
    lines = []
    for title, entries in rows:
        lines.append(title)
        lines += [f"  {name:<32} {summary}".rstrip() for name, summary in entries]
    return "\n".join(lines) + "\n"


# ----------------------------------------------------------------------------- input, output


def read_input(path: str) -> tuple[str, str]:
    """(display name, text) of the input; ``-`` reads stdin."""
    if path == "-":
        return "<stdin>", sys.stdin.read()
    try:
        with open(path, encoding="utf-8") as f:
            return path, f.read()
    except OSError as e:
        raise UsageError(f"cannot open input file '{path}': {e.strerror}") from None
    except UnicodeDecodeError:
        raise UsageError(f"input file '{path}' is not UTF-8 text") from None


def write_output(path: str, text: str | bytes) -> None:
    binary = isinstance(text, bytes)
    if path == "-":
        (sys.stdout.buffer if binary else sys.stdout).write(text)
        sys.stdout.flush()
        return
    try:
        with open(path, "wb" if binary else "w", **({} if binary else {"encoding": "utf-8"})) as f:
            f.write(text)
    except OSError as e:
        raise UsageError(f"cannot write output file '{path}': {e.strerror}") from None


# ----------------------------------------------------------------------------- one chunk


def run_passes(module: ir.Module, pipeline: str, options: Options) -> None:
    """Run ``pipeline`` on ``module``, with IR dumps and timing routed to sys.stderr."""
    timing = options.args.mlir_timing
    with ir_dumps.routed(options.dumps, active=options.dumps.enabled or timing):
        _run_pass_manager(module, pipeline, options)


def _run_pass_manager(module, pipeline: str, options: Options) -> None:
    args, dumps = options.args, options.dumps
    pm = build_pass_manager(pipeline, module.context)
    pm.enable_verifier(args.verify_each)
    if dumps.enabled:
        pm.enable_ir_printing(
            print_before_all=dumps.before_all or bool(dumps.before),
            print_after_all=dumps.after_all or bool(dumps.after) or dumps.after_failure,
            print_module_scope=args.mlir_print_ir_module_scope,
            print_after_change=args.mlir_print_ir_after_change,
            print_after_failure=dumps.after_failure,
            enable_debug_info=args.mlir_print_debuginfo,
            print_generic_op_form=args.mlir_print_op_generic,
        )
    if args.mlir_timing:
        pm.enable_timing()
    try:
        pm.run(module.operation)
    finally:
        del pm  # the timing report prints when the pass manager dies: inside the routing


def print_module(module: ir.Module, args, display_name: str) -> str:
    """The module as mlir-opt prints it under the printing flags."""
    text = module.operation.get_asm(
        enable_debug_info=args.mlir_print_debuginfo,
        pretty_debug_info=args.mlir_pretty_debuginfo,
        use_local_scope=args.mlir_print_local_scope,
        print_generic_op_form=args.mlir_print_op_generic,
        use_name_loc_as_prefix=args.mlir_use_nameloc_as_prefix,
        skip_regions=args.mlir_print_skip_regions,
        assume_verified=args.mlir_print_assume_verified,
        large_elements_limit=_limit(args.mlir_elide_elementsattrs_if_larger),
        large_resource_limit=_limit(args.mlir_elide_resource_strings_if_larger),
    )
    if args.mlir_print_debuginfo:  # a chunk parsed as file "-" (see parse_chunk): show the real name
        text = re.sub(r'loc\("-":(?=\d)', lambda _: f"loc({_quoted(display_name)}:", text)
    return text


def _limit(value: str | None) -> int | None:
    return None if value is None else int(value)  # checked in parse_options


def _quoted(name: str) -> str:
    return '"' + name.replace("\\", "\\\\").replace('"', '\\"') + '"'


def render(module: ir.Module, options: Options, display_name: str) -> str | bytes:
    """The chunk's output: MLIR, LLVM IR, or host assembly / object code (lowering
    the input first when no pipeline was given)."""
    emit = options.args.emit
    if emit == "mlir":
        return print_module(module, options.args, display_name)
    if emit == "ptx":
        return render_ptx(module, options)
    if options.pipeline is None and non_llvm_ops(module):
        run_passes(module, LOWERING, options)
    try:
        llvm_ir = translate_to_llvm_ir(module)
    except ValueError as e:
        raise ChunkFailure(str(e)) from None
    if emit == "llvm":
        return llvm_ir
    from compiler.backends.llvm_cpu import codegen  # the host backend: loaded only for asm and obj

    optimized = codegen.optimize(llvm_ir)
    return codegen.emit_assembly(optimized) if emit == "asm" else codegen.emit_object(optimized)


def render_ptx(module: ir.Module, options: Options) -> str:
    """The PTX of the module's GPU kernels, lowering them first as far as needed: an
    input with Ember ops or no gpu.module through lower-to-nvvm, a gpu.module not
    yet in the NVVM dialect through gpu-to-nvvm."""
    from compiler.backends.nvptx import codegen, toolkit

    args = options.args
    has_ember = any(op.name.startswith("ember.") for op in walk_ops(module))
    if has_ember or not codegen.gpu_modules(module):
        run_passes(module, GPU_LOWERING, options)
    try:
        if _needs_kernel_lowering(codegen.kernel_module(module)):
            run_passes(module, KERNEL_LOWERING, options)
        ptx = codegen.ptx_from_llvm_ir(codegen.kernel_module_ir(module), args.gpu_arch)
        if args.check_ptx:
            toolkit.ptxas_check(ptx, args.gpu_arch)
    except BackendError as e:
        raise ChunkFailure(str(e)) from None
    return ptx


def _needs_kernel_lowering(gpu_module) -> bool:
    """Whether the kernel gpu.module holds ops that are neither LLVM nor NVVM (gpu.func, ...)."""
    return any(
        not op.name.startswith(("llvm.", "nvvm.")) and op.name not in ("gpu.module", "gpu.module_end")
        for op in walk_ops(gpu_module)
    )


class _Parsed:
    """The top-level op of a chunk, shaped like ``ir.Module`` for the code below."""

    def __init__(self, op):
        self.operation = op.operation
        self.context = op.context

    @property
    def body(self):
        return self.operation.regions[0].blocks[0]


_STDIN_LOC = re.compile(r'loc\("-":(\d+):(\d+)\)')


def parse_chunk(chunk: str, context: ir.Context, name: str, implicit_module: bool = True):
    """Parse a chunk as mlir-opt does, with its locations in file ``name``.

    ``ir.Module.parse`` (which makes the implicit module as mlir-opt does) names
    every buffer ``-``, so the file locations the parser gave to ops and block
    arguments are renamed afterwards: passes that record or print locations
    (``snapshot-op-locations``, ``--mlir-print-debuginfo``) then see the input's
    name, as under mlir-opt. Diagnostics the parser itself reports still say ``-``;
    the printer and ``--verify-diagnostics`` read that as the input. With
    ``implicit_module`` false (--no-implicit-module) the chunk must hold exactly one
    op, which is returned as it is.
    """
    if not implicit_module:
        return _Parsed(ir.Operation.parse(chunk, source_name=name, context=context))
    module = ir.Module.parse(chunk, context)
    if name != "-":
        _rename_locations(module.operation, name, context)
    return module


def _renamed(loc, name: str, context: ir.Context):
    match = _STDIN_LOC.fullmatch(str(loc))
    return match and ir.Location.file(name, int(match.group(1)), int(match.group(2)), context=context)


def _rename_locations(root, name: str, context: ir.Context) -> None:
    def visit(op):
        op = op.operation
        if new := _renamed(op.location, name, context):
            op.location = new
        for region in op.regions:
            for block in region.blocks:
                for arg in block.arguments:
                    if new := _renamed(arg.location, name, context):
                        arg.set_location(new)
        return ir.WalkResult.ADVANCE

    root.walk(visit)


def process(chunk: str, context: ir.Context, options: Options, display_name: str) -> str | bytes:
    """Parse, transform and render one chunk; MLIR failures become ChunkFailure."""
    try:
        module = parse_chunk(chunk, context, display_name, not options.args.no_implicit_module)
        if options.pipeline:
            run_passes(module, options.pipeline, options)
        return render(module, options, display_name)
    except ir.MLIRError as e:
        raise ChunkFailure(e.message) from None


# ----------------------------------------------------------------------------- the driver


@dataclass
class Session:
    """What every chunk shares: options, context, diagnostics, their printer."""

    options: Options
    name: str
    context: ir.Context
    collector: Collector
    printer: Printer

    def report(self, diags: list[Diag]) -> None:
        for d in diags:
            print(self.printer.format(d), file=sys.stderr)

    def run_chunk(self, chunk: str) -> tuple[str | bytes | None, bool]:
        """(output or None, whether the chunk passed, diagnostics considered)."""
        output, failure = None, None
        try:
            output = process(chunk, self.context, self.options, self.name)
        except ChunkFailure as e:
            failure = str(e)
        diags = self.collector.take()
        if failure and not any(d.severity == "error" for d in diags):
            diags.append(Diag("error", failure))
        if self.options.args.verify_diagnostics:
            problems = verify(diags, parse_expectations(chunk), self.name)
            self.report(problems)
            return output, not problems
        self.report(diags)
        return output, output is not None and not any(d.severity == "error" for d in diags)


def new_session(options: Options, name: str, source: str) -> Session:
    context = new_context()
    context.allow_unregistered_dialects = options.args.allow_unregistered_dialect
    if options.args.mlir_disable_threading:
        context.enable_multithreading(False)
    session = Session(options, name, context, Collector(context), Printer(name, source))
    options.pipeline = opt_pipeline.prepare(options.pieces, context)  # PipelineError before any work
    return session


def run(options: Options) -> int:
    args = options.args
    name, source = read_input(args.input)
    session = new_session(options, name, source)
    chunks, near_misses = split_input.split(source, args.split_input_file)
    session.report([Diag("warning", split_input.NEAR_MISS, "-", m.line, m.col) for m in near_misses])
    outputs, ok = [], True
    for chunk in chunks:
        output, passed = session.run_chunk(chunk)
        ok &= passed
        if isinstance(output, str) and not output.endswith("\n"):
            output += "\n"
        if output is not None:
            outputs.append(output)
    if ok or args.o == "-":  # like mlir-opt, keep no output file on failure
        write_output(
            args.o, outputs[0] if args.emit == "obj" and outputs else (args.output_split_marker + "\n").join(outputs)
        )
    return 0 if ok else 1


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``ember-opt`` console script; returns the exit status."""
    argv = sys.argv[1:] if argv is None else list(argv)
    try:
        options = parse_options(argv)
        if options.args.help:
            sys.stdout.write(opt_cli.help_text(PROG, SUMMARY))
            return 0
        if options.args.list_passes:
            write_output(options.args.o, list_passes())
            return 0
        return run(options)
    except (UsageError, PipelineError) as e:
        print(f"{PROG}: error: {e}", file=sys.stderr)
        return 1
    except BrokenPipeError:  # `ember-opt ... | head`: the reader left, as for any Unix filter
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # no second error at exit
        return 1


if __name__ == "__main__":
    sys.exit(main())
