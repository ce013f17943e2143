"""Run upstream MLIR's own lit tests with ember-opt standing in for mlir-opt.

    python -m tools.run_upstream_lit [TEST_DIR] [-v] [-j N] [--show-unsupported] [--timeout S]

TEST_DIR (default /tmp/upstream-mlir-tests) holds ``.mlir`` test files copied from
llvm-project's ``mlir/test`` (any folder layout); nothing of it is kept in this
repository. The script writes a lit configuration into a temporary folder that
maps ``mlir-opt`` to ``python -m tools.ember_opt`` and ``FileCheck`` to the PyPI
``filecheck`` package (``not`` is lit's own), then runs lit and prints its counts.

A test is UNSUPPORTED, with the reason, only when it needs what the bindings or
this harness lack; a difference of ember-opt's driver from mlir-opt's is never a
reason, so it shows up as a failure. The rule: every RUN line must use only the
commands ``mlir-opt``, ``FileCheck``, ``not`` and lit's shell builtins, and no
substitution of mlir's own lit configuration; every pass an ``mlir-opt`` names (as
a flag or inside a pipeline) must be registered in the bindings
(``compiler/passes/upstream_passes.txt``) or in Ember; it may use no mlir-opt
option listed in ``UNAVAILABLE`` (options that need an API the bindings do not
expose, or an LLVM build with assertions); and the input must use nothing of
mlir-opt's ``test`` dialect (its ops, its types, its attributes), which only
mlir-opt links in. So ``-test-*`` passes, passes the wheel does not register,
``mlir-translate``, ``mlir-runner`` and other tools are out. Any other option that
ember-opt's command line rejects counts as an mlir-opt driver option it lacks:
the test runs and fails. ``REQUIRES:`` lines are left to lit, which defines no
features here and so marks those tests unsupported too.

Each ember-opt run is killed after ``--timeout`` seconds (default 120), as a crash,
so a pass that hangs in this MLIR version fails its test instead of the whole run.
"""

from __future__ import annotations

import argparse
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile

import lit.formats
import lit.Test

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_TESTS = "/tmp/upstream-mlir-tests"
BUILTINS = {
    "not",
    "FileCheck",
    "mlir-opt",
    "echo",
    "cat",
    "diff",
    "cd",
    "rm",
    "mkdir",
    "env",
    "true",
    "false",
    ":",
    "export",
}

# mlir-opt options ember-opt cannot offer, because the bindings lack the API behind them.
UNAVAILABLE = {
    "mlir-print-unique-ssa-ids": "the bindings' printer has no unique-SSA-ids option",
    "mlir-print-value-users": "the bindings' printer has no value-users option",
    "mlir-print-serial-comma": "the bindings' printer has no serial-comma option",
    "mlir-print-oxford-comma": "the bindings' printer has no serial-comma option",
    "mlir-very-unsafe-disable-verifier-on-parsing": "the bindings always verify after parsing",
    "retain-identifier-names": "the bindings' parser cannot keep SSA names",
    "debug": "needs an LLVM build with assertions",
    "debug-only": "needs an LLVM build with assertions",
}
# mlir-opt's own options whose names do not start with ``mlir-``: a rejected word that is
# neither of these nor ``mlir-*`` is taken for a pass name.
DRIVER_OPTIONS = {
    "allow-unregistered-dialect",
    "split-input-file",
    "output-split-marker",
    "verify-diagnostics",
    "verify-each",
    "no-implicit-module",
    "show-dialects",
    "dump-pass-pipeline",
    "emit-bytecode",
    "emit-bytecode-version",
    "irdl-file",
    "pass-pipeline",
    "p",
    "o",
    "run-reproducer",
    "log-actions-to",
    "log-mlir-actions-filter",
    "load-pass-plugin",
    "load-dialect-plugin",
    "elide-resource-data-from-bytecode",
    "list-passes",
    "help",
    "version",
    "remarks-filter",
    "remark-format",
    "remark-policy",
}
DEFAULT_TIMEOUT = 120

_RUN = re.compile(r"(?://|#)\s*RUN:(.*)$")
# An op of mlir-opt's own test dialect (``"test.foo"(...)``, ``test.graph_region``) on a
# line that is not a comment: the bindings do not have that dialect.
# Also a ``!test.`` type or ``#test.`` attribute, or a ``test.`` attribute in an attribute
# dictionary (``{test.invalid_attr}``), which the dialect verifies.
_TEST_DIALECT = re.compile(
    r'^(?!\s*//)[^\n]*(?:"test\.\w|^\s*(?:%\S+\s*=\s*)?test\.\w|[!#]test\.\w'
    r"|[{,]\s*test\.\w+\s*[=},])",
    re.M,
)

LIT_CONFIG = """\
import sys
sys.path.insert(0, {repo!r})
from tools.run_upstream_lit import configure
configure(config, {tests!r}, {timeout!r})
"""


def run_lines(text: str) -> list[str]:
    """The RUN commands of a test, with ``\\`` continuations joined."""
    commands, current = [], ""
    for line in text.splitlines():
        match = _RUN.search(line)
        if not match:
            continue
        part = match.group(1).strip()
        if part.endswith("\\"):
            current += part[:-1] + " "
            continue
        commands.append(current + part)
        current = ""
    return commands


def _stages(command: str) -> list[list[str]]:
    """The words of each stage of a shell pipeline (``|``, ``&&``, ``||``, ``;``)."""
    try:
        lexer = shlex.shlex(command, posix=True, punctuation_chars="|&;")
        lexer.whitespace_split = True
        words = list(lexer)
    except ValueError:
        return [command.split()]
    stages, current = [], []
    for w in words:
        if w in ("|", "&&", "||", ";", "|&"):
            stages.append(current)
            current = []
        else:
            current.append(w)
    stages.append(current)
    return [s for s in stages if s]


def _strip_redirects(words: list[str]) -> list[str]:
    out, skip = [], False
    for w in words:
        if skip:
            skip = False
        elif re.fullmatch(r"\d?[<>]&?\d*|2>&1|&>", w):
            skip = not re.fullmatch(r"\d?>&\d", w)
        elif re.match(r"\d?[<>]", w):
            continue
        else:
            out.append(w)
    return out


def unsupported_reason(text: str) -> str | None:
    """Why this build cannot run the test, or None when it can (the rule above)."""
    from compiler.passes import registry
    from compiler.passes.pipeline_syntax import PipelineError, parse_pipeline
    from tools import opt_cli

    commands = run_lines(text)
    if not commands:
        return "no RUN line"
    if _TEST_DIALECT.search(text):
        return "uses mlir-opt's test dialect"
    known = set(registry.known_names())
    for command in commands:
        if re.search(r"%(?![sStTp%/])[\w{]", command):
            return "uses a substitution of mlir's own lit config"
        for words in _stages(command):
            words = _strip_redirects(words)
            while words and words[0] in ("not", "env") or words and "=" in words[0] and words[0][0] != "-":
                words = words[1:]
                if words and words[0] == "--crash":
                    return "needs not --crash"
            if not words:
                continue
            tool = words[0]
            if tool not in BUILTINS:
                return f"needs {tool}"
            if tool != "mlir-opt":
                continue
            reason = _unavailable(words[1:], known)
            if reason:
                return reason
            try:
                line = opt_cli.scan([w for w in words[1:] if w not in ("%s",)])
            except opt_cli.CommandLineError:
                continue  # an mlir-opt option ember-opt lacks: run it, and see it fail
            for piece in line.pieces:
                try:
                    elements = parse_pipeline(piece.text)
                except PipelineError:
                    continue  # ember-opt reports it; the test may expect that
                missing = _unknown_passes(elements, known)
                if missing:
                    return f"pass {missing} not registered in the bindings"
    return None


def _unavailable(words: list[str], known: set[str]) -> str | None:
    """Why an mlir-opt command cannot run here: an UNAVAILABLE option or an unknown pass flag."""
    from tools import opt_cli

    for w in words:
        if not w.startswith("-") or w == "-":
            continue
        name = w.lstrip("-").split("=", 1)[0]
        if name in UNAVAILABLE:
            return f"mlir-opt -{name}: {UNAVAILABLE[name]}"
        if name in opt_cli.OPTIONS or name in known or name in DRIVER_OPTIONS or name.startswith("mlir-"):
            continue
        return f"pass {name} not registered in the bindings"
    return None


def _unknown_passes(elements, known: set[str]) -> str | None:
    for e in elements:
        if e.children is not None:
            found = _unknown_passes(e.children, known)
            if found:
                return found
        elif e.name not in known:
            return e.name
    return None


class UpstreamFormat(lit.formats.ShTest):
    """lit's shell tests, except those ``unsupported_reason`` rules out."""

    def execute(self, test, lit_config):
        with open(test.getSourcePath(), encoding="utf-8", errors="replace") as f:
            reason = unsupported_reason(f.read())
        if reason:
            return lit.Test.Result(lit.Test.UNSUPPORTED, reason)
        return super().execute(test, lit_config)


def configure(config, tests: str, timeout: int = DEFAULT_TIMEOUT) -> None:
    """Fill in lit's ``config`` (called from the generated lit.cfg.py)."""
    python = f'"{sys.executable}"'
    config.name = "upstream-mlir"
    config.test_format = UpstreamFormat(execute_external=False)
    config.suffixes = [".mlir"]
    config.excludes = ["Inputs", "out"]
    config.test_source_root = os.path.dirname(tests)  # the config's folder: lit finds tests/ below it
    config.test_exec_root = os.path.join(os.path.dirname(tests), "out")
    config.environment["PYTHONPATH"] = REPO
    for name in ("HOME", "TMPDIR", "PATH"):
        if name in os.environ:
            config.environment[name] = os.environ[name]

    def tool(name):
        return rf"(?<![\w/.-]){name}(?![\w/.-])"

    config.substitutions.append((tool("mlir-opt"), f"{python} -m tools.run_upstream_lit --exec {timeout} --"))
    config.substitutions.append((tool("FileCheck"), f"{python} -m filecheck"))


def exec_ember_opt(seconds: int, argv: list[str]) -> int:
    """Run ember-opt with ``argv``; past ``seconds``, kill it and abort (a crash to lit)."""
    proc = subprocess.Popen([sys.executable, "-m", "tools.ember_opt", *argv])
    try:
        return proc.wait(timeout=seconds)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
        print(f"ember-opt: killed after {seconds} s (run_upstream_lit --timeout)", file=sys.stderr, flush=True)
        signal.signal(signal.SIGABRT, signal.SIG_DFL)
        os.abort()


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] == ["--exec"]:  # the stand-in for mlir-opt in RUN lines (see configure)
        rest = argv[3:] if argv[2:3] == ["--"] else argv[2:]
        return exec_ember_opt(int(argv[1]), rest)
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("tests", nargs="?", default=DEFAULT_TESTS, help="folder of upstream .mlir tests")
    parser.add_argument("-v", "--verbose", action="store_true", help="show the output of failing tests")
    parser.add_argument("-j", "--jobs", type=int, default=os.cpu_count())
    parser.add_argument("--show-unsupported", action="store_true", help="list unsupported tests and why")
    parser.add_argument(
        "--timeout",
        type=int,
        default=DEFAULT_TIMEOUT,
        help="seconds before an ember-opt run is killed (default %(default)s)",
    )
    args = parser.parse_args(argv)
    tests = os.path.abspath(args.tests)
    if not os.path.isdir(tests):
        print(f"no test folder {tests}", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="upstream-lit-") as work:
        with open(os.path.join(work, "lit.cfg.py"), "w") as f:
            f.write(LIT_CONFIG.format(repo=REPO, tests=os.path.join(work, "tests"), timeout=args.timeout))
        shutil.copytree(tests, os.path.join(work, "tests"))
        lit_main = "import lit.main; lit.main.main()"  # the lit package has no __main__
        command = [
            sys.executable,
            "-c",
            lit_main,
            "-j",
            str(args.jobs),
            "-v" if args.verbose else "-s",
            os.path.join(work, "tests"),
        ]
        if args.show_unsupported:
            command.insert(-1, "--show-unsupported")
        done = subprocess.run(command, cwd=REPO)
    if args.show_unsupported:
        print("Why unsupported:")
        for root, _, files in sorted(os.walk(tests)):
            for name in sorted(files):
                if name.endswith(".mlir"):
                    path = os.path.join(root, name)
                    with open(path, encoding="utf-8", errors="replace") as f:
                        reason = unsupported_reason(f.read())
                    if reason:
                        print(f"  {os.path.relpath(path, tests)}: {reason}")
    return done.returncode


if __name__ == "__main__":
    sys.exit(main())
