"""ember-opt's command line, read the way mlir-opt (LLVM's ``cl``) reads its own.

argparse cannot be made to read an mlir-opt command line: it bundles short
options and glues values to them, so ``-one-shot-bufferize`` became ``-o
ne-shot-bufferize`` (write a file named ``ne-shot-bufferize``, run nothing) and
``-promote-buffers-to-stack`` became ``-p romote-...``. Here every argument is
matched whole against a table, as ``cl`` does:

* ``-name`` and ``--name`` mean the same; ``-name=value`` and ``-name value`` too
  for options that take a value (flags take ``=true``/``=false`` only);
* no abbreviations, no bundling, no value glued to a short option (``-ofile``);
* every registered pass and named pipeline is its own flag (``-canonicalize``,
  ``--inline='default-pipeline=canonicalize'``); its value is the pass's options.
  Pass flags, ``-p`` and ``--pass-pipeline`` may be mixed and repeated; they run
  in command-line order.
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass, field
from types import SimpleNamespace

from compiler.passes import registry
from compiler.passes.pipeline_syntax import nearest

FLAG, VALUE, OPTIONAL = "flag", "value", "optional"  # OPTIONAL: a value only as ``=value``
TRUE, FALSE = ("true", "TRUE", "True", "1"), ("false", "FALSE", "False", "0")
DEFAULT_SPLIT_MARKER = "// -----"


class CommandLineError(ValueError):
    """An argument the table does not know, or a value an option does not take."""


@dataclass(frozen=True)
class Option:
    name: str  # without dashes
    kind: str  # FLAG | VALUE | OPTIONAL
    help: str
    default: object = None
    metavar: str = ""
    implicit: object = True  # the value of an OPTIONAL option given without ``=``

    @property
    def spelling(self) -> str:
        return ("-" if len(self.name) == 1 else "--") + self.name

    @property
    def attr(self) -> str:
        return self.name.replace("-", "_")


# (group title, options); the order is --help's.
GROUPS: list[tuple[str, list[Option]]] = [
    (
        "Input and output",
        [
            Option("o", VALUE, "output file (default: stdout)", "-", "FILE"),
            Option(
                "emit",
                VALUE,
                "output kind: mlir (default), llvm (LLVM IR), asm or obj (host code, O3), ptx (GPU kernels, O3)",
                "mlir",
                "KIND",
            ),
            Option(
                "gpu-arch",
                VALUE,
                "GPU architecture of --emit=ptx (default: $EMBER_CUDA_ARCH, else sm_80)",
                None,
                "sm_XX",
            ),
            Option("check-ptx", FLAG, "with --emit=ptx: assemble the PTX with ptxas, to check it", False),
            Option(
                "split-input-file",
                OPTIONAL,
                f"process each chunk between markers on its own (default marker '{DEFAULT_SPLIT_MARKER}')",
                None,
                "MARKER",
                DEFAULT_SPLIT_MARKER,
            ),
            Option(
                "output-split-marker",
                VALUE,
                "printed between the outputs of split chunks",
                DEFAULT_SPLIT_MARKER,
                "MARKER",
            ),
            Option("allow-unregistered-dialect", FLAG, "accept operations of unknown dialects", False),
            Option(
                "no-implicit-module",
                FLAG,
                "the input is one top-level op, printed as it is (no module around it)",
                False,
            ),
            Option("verify-diagnostics", FLAG, "check the input's expected-* comments against the diagnostics", False),
        ],
    ),
    (
        "Passes",
        [
            Option("p", VALUE, "named pipeline or pass names, comma separated (repeatable)", metavar="PASSES"),
            Option(
                "pass-pipeline",
                VALUE,
                "textual pipeline, e.g. 'builtin.module(ember-to-linalg,cse)' (repeatable)",
                metavar="PIPELINE",
            ),
            Option("list-passes", FLAG, "list Ember's passes and pipelines and the upstream passes", False),
            Option(
                "verify-each",
                OPTIONAL,
                "verify the IR after every pass (default true; =false to skip)",
                True,
                "BOOL",
                True,
            ),
            Option("mlir-disable-threading", FLAG, "run passes on one thread", False),
            Option("mlir-timing", FLAG, "print pass timing to stderr", False),
        ],
    ),
    (
        "Printing",
        [
            Option("mlir-print-debuginfo", FLAG, "print locations", False),
            Option("mlir-print-local-scope", FLAG, "print types and attributes inline, not as aliases", False),
            Option("mlir-print-op-generic", FLAG, "print every operation in the generic form", False),
            Option(
                "mlir-pretty-debuginfo",
                FLAG,
                "with --mlir-print-debuginfo: locations in a readable, unparsable form",
                False,
            ),
            Option("mlir-use-nameloc-as-prefix", FLAG, "name SSA values after their name locations", False),
            Option("mlir-print-skip-regions", FLAG, "print operations without their regions", False),
            Option("mlir-print-assume-verified", FLAG, "print the custom form without verifying first", False),
            Option(
                "mlir-elide-elementsattrs-if-larger", VALUE, "elide elements attributes with more elements", None, "N"
            ),
            Option(
                "mlir-elide-resource-strings-if-larger", VALUE, "elide resource strings longer than this", None, "N"
            ),
            Option("mlir-print-ir-before-all", FLAG, "print the IR before every pass (to stderr)", False),
            Option("mlir-print-ir-after-all", FLAG, "print the IR after every pass (to stderr)", False),
            Option("mlir-print-ir-before", VALUE, "print the IR before these passes", "", "PASS[,PASS]"),
            Option("mlir-print-ir-after", VALUE, "print the IR after these passes", "", "PASS[,PASS]"),
            Option("mlir-print-ir-after-change", FLAG, "with the above: only after passes that changed the IR", False),
            Option("mlir-print-ir-after-failure", FLAG, "print the IR after a pass that failed", False),
            Option("mlir-print-ir-module-scope", FLAG, "IR dumps show the whole module", False),
        ],
    ),
    (
        "Help",
        [
            Option("help", FLAG, "print this help and exit", False),
        ],
    ),
]
OPTIONS: dict[str, Option] = {o.name: o for _, group in GROUPS for o in group}
PIPELINE_OPTIONS = ("p", "pass-pipeline")


@dataclass(frozen=True)
class PipelinePiece:
    """One pipeline-bearing argument: ``-p``, ``--pass-pipeline`` or a pass flag."""

    text: str  # pipeline text, without any builtin.module(...) wrapper
    source: str  # the argument's value as written, for located error messages
    flag: str  # how the argument was spelled, e.g. ``--pass-pipeline`` or ``-canonicalize``


@dataclass
class CommandLine:
    args: SimpleNamespace  # one attribute per option, dashes as underscores; plus ``input``
    pieces: list[PipelinePiece] = field(default_factory=list)


def unwrap(text: str) -> str:
    """``builtin.module(a,b)`` -> ``a,b``; any other text unchanged."""
    text = text.strip()
    if text.startswith("builtin.module(") and text.endswith(")"):
        return text[len("builtin.module(") : -1]
    return text


def _pass_piece(name: str, value: str | None, spelled: str) -> PipelinePiece:
    """A pass flag's piece: ``-inline='default-pipeline=canonicalize'`` runs
    ``inline{default-pipeline=canonicalize}`` (mlir-opt reads the flag's value as
    the pass's options)."""
    text = f"{name}{{{value}}}" if value else name
    return PipelinePiece(text, text, spelled)


def _pipeline_piece(option: Option, value: str) -> PipelinePiece:
    return PipelinePiece(unwrap(value), value, option.spelling)


def _bool(option: Option, value: str) -> bool:
    if value in TRUE:
        return True
    if value in FALSE:
        return False
    raise CommandLineError(f"option '{option.spelling}' takes true or false, not '{value}'")


def _unknown(arg: str) -> CommandLineError:
    word = arg.split("=", 1)[0]
    hint = (
        nearest(word, [o.spelling for o in OPTIONS.values()])  # a misspelt option first
        or nearest(word, ["-" + n for n in registry.known_names()])
    )
    return CommandLineError(f"unknown command line argument '{arg}'{hint}")


def _is_option(arg: str) -> bool:
    return arg.startswith("-") and arg != "-"


def scan(argv: list[str]) -> CommandLine:
    """Read ``argv`` into option values and the ordered pipeline pieces."""
    values = {o.attr: o.default for o in OPTIONS.values()}
    pieces: list[PipelinePiece] = []
    positional: list[str] = []
    passes = set(registry.known_names())
    i = 0
    while i < len(argv):
        arg = argv[i]
        i += 1
        if arg == "--":
            positional += argv[i:]
            break
        if not _is_option(arg):
            positional.append(arg)
            continue
        name, eq, value = arg.lstrip("-").partition("=")
        option = OPTIONS.get(name)
        if option is None:
            if name not in passes or arg.startswith("---"):
                raise _unknown(arg)
            pieces.append(_pass_piece(name, value if eq else None, arg.split("=", 1)[0]))
            continue
        if option.kind == VALUE and not eq:
            if i == len(argv):
                raise CommandLineError(f"option '{option.spelling}' needs a value")
            value = argv[i]
            i += 1
        if option.name in PIPELINE_OPTIONS:
            pieces.append(_pipeline_piece(option, value))
        elif option.kind == FLAG:
            values[option.attr] = _bool(option, value) if eq else True
        elif option.kind == OPTIONAL:
            implicit_bool = isinstance(option.implicit, bool)
            values[option.attr] = (_bool(option, value) if implicit_bool else value) if eq else option.implicit
        else:
            values[option.attr] = value
    if len(positional) > 1:
        raise CommandLineError(f"too many input files: {' '.join(positional)}")
    values["input"] = positional[0] if positional else "-"
    return CommandLine(SimpleNamespace(**values), pieces)


def help_text(prog: str, summary: str) -> str:
    """--help: the options by group, and how passes are named on the command line."""
    lines = [f"usage: {prog} [options] [input file, '-' for stdin (default)]", "", *textwrap.wrap(summary, 80), ""]
    for title, group in GROUPS:
        lines.append(f"{title}:")
        for o in group:
            metavar = "" if o.kind == FLAG else (f"[={o.metavar}]" if o.kind == OPTIONAL else f"={o.metavar}")
            lines.append(f"  {o.spelling + metavar:<34} {o.help}")
        lines.append("")
    lines += [
        "Every pass and named pipeline is also a flag, as in mlir-opt: '-canonicalize',",
        "'--cse', '--inline=\"default-pipeline=canonicalize\"' (the value holds the pass's",
        "options). Pass flags, -p and --pass-pipeline run in command-line order.",
        "Long options may be spelled with one dash ('-split-input-file'); none may be",
        "abbreviated. --list-passes lists the pass names.",
    ]
    return "\n".join(lines) + "\n"
