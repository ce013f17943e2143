"""ember-opt: mlir-opt for Ember (SPEC §3).

Reads MLIR (a file or ``-``), runs a pass pipeline mixing Ember's Python passes and
upstream MLIR passes, and prints MLIR or LLVM IR. Diagnostics are captured from the
context and printed as ``file:line:col: error: ...`` (or checked against
``expected-error`` comments under ``--verify-diagnostics``). Bad input of any kind
ends in a message and exit status 1, never in a Python traceback.

    ember-opt input.mlir --pass-pipeline='builtin.module(ember-to-linalg,cse)'
    ember-opt input.mlir -p lower-to-llvm -o out.mlir
    ember-opt input.mlir --emit=llvm
    ember-opt --list-passes
"""

from __future__ import annotations

import argparse
import re
import sys
from dataclasses import dataclass

from compiler.backends.llvm_cpu import codegen
from compiler.dialects.ember import new_context
from compiler.mlir import ir, non_llvm_ops, translate_to_llvm_ir
from compiler.passes import registry
from tools import ir_dumps
from tools.opt_diagnostics import Collector, Diag, Printer, parse_expectations, verify

PROG = "ember-opt"
EMITS = ("mlir", "llvm", "asm", "obj")
LATER_EMITS = ("ptx",)
SPLIT_MARKER = re.compile(r"^\s*// -----\s*$")
OUTPUT_SEPARATOR = "// -----\n"


class UsageError(Exception):
    """The command line, the input file or the pipeline is unusable: print and exit 1."""


class ChunkFailure(Exception):
    """Processing one input chunk failed; diagnostics (if any) are in the collector."""


# ----------------------------------------------------------------------------- command line


class _Parser(argparse.ArgumentParser):
    """argparse, but errors become ``UsageError`` (exit 1, with a did-you-mean)."""

    def error(self, message):
        raise UsageError(message + _option_hint(self, message))


def _option_hint(parser: argparse.ArgumentParser, message: str) -> str:
    words = re.findall(r"(?<!\w)-{1,2}[\w-]+", message.partition(":")[2])
    known = [s for a in parser._actions for s in a.option_strings if s.startswith("--")]
    return registry.nearest(words[0], known) if words else ""  # the registry's did-you-mean


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(prog=PROG, description=__doc__.split("\n\n")[0], allow_abbrev=False)
    p.add_argument("input", nargs="?", default="-", help="input file, '-' for stdin (default)")
    p.add_argument("-o", dest="output", default="-", help="output file (default stdout)")
    p.add_argument("--pass-pipeline", help="textual pipeline, e.g. 'builtin.module(ember-to-linalg,cse)'")
    p.add_argument("-p", dest="passes", help="named pipeline or pass names, comma separated")
    p.add_argument("--list-passes", action="store_true", help="list Ember's and upstream passes")
    p.add_argument("--split-input-file", action="store_true", help="process each '// -----' chunk alone")
    p.add_argument("--verify-diagnostics", action="store_true", help="check expected-* comments")
    p.add_argument("--emit", default="mlir",
                   help="output kind: mlir (default), llvm (LLVM IR), asm or obj (host code, O3)")
    p.add_argument("--mlir-print-ir-before-all", action="store_true")
    p.add_argument("--mlir-print-ir-after-all", action="store_true")
    p.add_argument("--mlir-print-ir-before", default="", metavar="PASS[,PASS]")
    p.add_argument("--mlir-print-ir-after", default="", metavar="PASS[,PASS]")
    p.add_argument("--mlir-timing", action="store_true", help="print pass timing to stderr")
    p.add_argument("--allow-unregistered-dialect", action="store_true")
    return p


def _long_dashes(argv: list[str], parser: argparse.ArgumentParser) -> list[str]:
    """Accept mlir-opt's single-dash long options (``-split-input-file``)."""
    known = {s for a in parser._actions for s in a.option_strings if s.startswith("--")}
    return ["-" + a if a[:2] != "--" and "-" + a.split("=")[0] in known else a for a in argv]


@dataclass
class Options:
    """The parsed command line, with the pipeline text and the dump filter resolved."""

    args: argparse.Namespace
    pipeline: str | None
    dumps: ir_dumps.DumpFilter


def _names(text: str) -> tuple[str, ...]:
    return tuple(n.strip() for n in text.split(",") if n.strip())


def _pipeline(args) -> str | None:
    """One pipeline text from ``--pass-pipeline`` or ``-p`` (wrapped in builtin.module)."""
    if args.pass_pipeline and args.passes:
        raise UsageError("give either --pass-pipeline or -p, not both")
    if args.passes:
        return args.passes if args.passes.startswith("builtin.module(") else f"builtin.module({args.passes})"
    return args.pass_pipeline


def _check_emit(emit: str) -> None:
    if emit in LATER_EMITS:
        raise UsageError(f"--emit={emit} is not supported yet (choose one of: {', '.join(EMITS)})")
    if emit not in EMITS:
        raise UsageError(f"unknown --emit={emit} (choose one of: {', '.join(EMITS)})")


def parse_options(argv: list[str]) -> Options:
    parser = build_parser()
    args = parser.parse_args(_long_dashes(argv, parser))
    _check_emit(args.emit)
    if args.emit == "obj" and args.split_input_file:
        raise UsageError("--emit=obj writes one object file: it cannot be combined with --split-input-file")
    dumps = ir_dumps.DumpFilter(args.mlir_print_ir_before_all, args.mlir_print_ir_after_all,
                                _names(args.mlir_print_ir_before), _names(args.mlir_print_ir_after))
    return Options(args, _pipeline(args), dumps)


# ----------------------------------------------------------------------------- --list-passes


def list_passes() -> str:
    """Ember's passes and pipelines with their summaries, then the upstream pass names."""
    registry.known_names()  # imports every module that registers a pass or pipeline
    rows = [("Ember passes:", [(n, c.summary) for n, c in sorted(registry.PASSES.items())]),
            ("Ember pipelines:", [(n, s) for n, (_, s) in sorted(registry.PIPELINES.items())]),
            ("Upstream MLIR passes:", [(n, "") for n in registry.upstream_passes()])]
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


def split_chunks(source: str, split: bool) -> list[str]:
    """The chunks to process; each is padded with newlines so its lines keep their numbers."""
    if not split:
        return [source]
    chunks, current, first = [], [], 1
    for number, line in enumerate(source.splitlines(keepends=True), start=1):
        if SPLIT_MARKER.match(line):
            chunks.append("\n" * (first - 1) + "".join(current))
            current, first = [], number + 1
        else:
            current.append(line)
    chunks.append("\n" * (first - 1) + "".join(current))
    return chunks


# ----------------------------------------------------------------------------- one chunk


def run_passes(module: ir.Module, pipeline: str, options: Options) -> None:
    """Run ``pipeline`` on ``module``, with IR dumps and timing routed to sys.stderr."""
    timing = options.args.mlir_timing
    with ir_dumps.routed(options.dumps, active=options.dumps.enabled or timing):
        _run_pass_manager(module, pipeline, options.dumps, timing)


def _run_pass_manager(module, pipeline, dumps: ir_dumps.DumpFilter, timing: bool) -> None:
    pm = registry.build_pass_manager(pipeline, module.context)
    if dumps.enabled:
        pm.enable_ir_printing(print_before_all=dumps.before_all or bool(dumps.before),
                              print_after_all=dumps.after_all or bool(dumps.after))
    if timing:
        pm.enable_timing()
    try:
        pm.run(module.operation)
    finally:
        del pm  # the timing report prints when the pass manager dies: inside the routing


def render(module: ir.Module, options: Options) -> str | bytes:
    """The chunk's output: MLIR, LLVM IR, or host assembly / object code (lowering
    Ember input first)."""
    emit = options.args.emit
    if emit == "mlir":
        return str(module)
    if options.pipeline is None and non_llvm_ops(module):
        run_passes(module, "builtin.module(lower-to-llvm)", options)
    try:
        llvm_ir = translate_to_llvm_ir(module)
    except ValueError as e:
        raise ChunkFailure(str(e)) from None
    if emit == "llvm":
        return llvm_ir
    optimized = codegen.optimize(llvm_ir)
    return codegen.emit_assembly(optimized) if emit == "asm" else codegen.emit_object(optimized)


def process(chunk: str, context: ir.Context, options: Options) -> str:
    """Parse, transform and render one chunk; MLIR failures become ChunkFailure."""
    try:
        module = ir.Module.parse(chunk, context)
        if options.pipeline:
            run_passes(module, options.pipeline, options)
        return render(module, options)
    except ir.MLIRError as e:
        raise ChunkFailure(e.message) from None


# ----------------------------------------------------------------------------- the driver


@dataclass
class Session:
    """What every chunk shares: options, context, diagnostics, their printer."""

    options: Options
    context: ir.Context
    collector: Collector
    printer: Printer

    def report(self, diags: list[Diag]) -> None:
        for d in diags:
            print(self.printer.format(d), file=sys.stderr)

    def run_chunk(self, chunk: str) -> tuple[str | None, bool]:
        """(output or None, whether the chunk passed, diagnostics considered)."""
        output, failure = None, None
        try:
            output = process(chunk, self.context, self.options)
        except ChunkFailure as e:
            failure = str(e)
        diags = self.collector.take()
        if failure and not any(d.severity == "error" for d in diags):
            diags.append(Diag("error", failure))
        if self.options.args.verify_diagnostics:
            problems = verify(diags, parse_expectations(chunk))
            self.report(problems)
            return output, not problems
        self.report(diags)
        return output, output is not None and not any(d.severity == "error" for d in diags)


def new_session(options: Options, name: str, source: str) -> Session:
    context = new_context()
    context.allow_unregistered_dialects = options.args.allow_unregistered_dialect
    session = Session(options, context, Collector(context), Printer(name, source))
    if options.pipeline:
        registry.build_pass_manager(options.pipeline, context)  # PipelineError before any work
    return session


def run(options: Options) -> int:
    name, source = read_input(options.args.input)
    session = new_session(options, name, source)
    outputs, ok = [], True
    for chunk in split_chunks(source, options.args.split_input_file):
        output, passed = session.run_chunk(chunk)
        ok &= passed
        if isinstance(output, str) and not output.endswith("\n"):
            output += "\n"
        if output is not None:
            outputs.append(output)
    if ok or options.args.output == "-":  # like mlir-opt, keep no output file on failure
        write_output(options.args.output, outputs[0] if options.args.emit == "obj" and outputs
                     else OUTPUT_SEPARATOR.join(outputs))
    return 0 if ok else 1


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``ember-opt`` console script; returns the exit status."""
    argv = sys.argv[1:] if argv is None else list(argv)
    try:
        options = parse_options(argv)
        if options.args.list_passes:
            write_output(options.args.output, list_passes())
            return 0
        return run(options)
    except (UsageError, registry.PipelineError) as e:
        print(f"{PROG}: error: {e}", file=sys.stderr)
        return 1
    except SystemExit as e:  # --help
        return e.code if isinstance(e.code, int) else 0


if __name__ == "__main__":
    sys.exit(main())
