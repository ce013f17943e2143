"""Run upstream MLIR's own lit tests with ember-opt standing in for mlir-opt.

    python -m tools.run_upstream_lit [TEST_DIR] [-v] [-j N] [--show-unsupported]

TEST_DIR (default /tmp/upstream-mlir-tests) holds ``.mlir`` test files copied from
llvm-project's ``mlir/test`` (any folder layout); nothing of it is kept in this
repository. The script writes a lit configuration into a temporary folder that
maps ``mlir-opt`` to ``python -m tools.ember_opt`` and ``FileCheck`` to the PyPI
``filecheck`` package (``not`` is lit's own), then runs lit and prints its counts.

A test is UNSUPPORTED, with the reason, when it needs what this build lacks.
The rule: every RUN line must use only the commands ``mlir-opt``, ``FileCheck``,
``not`` and lit's shell builtins; every ``mlir-opt`` in it must be accepted by
ember-opt's command-line scanner, with every pass it names (as a flag or inside a
pipeline) registered in the bindings (``compiler/passes/upstream_passes.txt``) or
in Ember; and the input must use no op of mlir-opt's ``test`` dialect. So
``-test-*`` passes (built into mlir-opt only), passes the wheel does not
register, ``mlir-translate``, ``mlir-runner`` and other tools are out.
``REQUIRES:`` lines are left to lit, which defines no features here and so marks
those tests unsupported too.
"""

from __future__ import annotations

import argparse
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

import lit.formats
import lit.Test

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_TESTS = "/tmp/upstream-mlir-tests"
BUILTINS = {"not", "FileCheck", "mlir-opt", "echo", "cat", "diff", "cd", "rm", "mkdir", "env", "true",
            "false", ":", "export"}

_RUN = re.compile(r"(?://|#)\s*RUN:(.*)$")
# An op of mlir-opt's own test dialect (``"test.foo"(...)``, ``test.graph_region``) on a
# line that is not a comment: the bindings do not have that dialect.
_TEST_DIALECT = re.compile(r'^(?!\s*//)[^\n]*(?:"test\.\w|^\s*(?:%\S+\s*=\s*)?test\.\w)', re.M)

LIT_CONFIG = """\
import sys
sys.path.insert(0, {repo!r})
from tools.run_upstream_lit import configure
configure(config, {tests!r})
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
            try:
                line = opt_cli.scan([w for w in words[1:] if w not in ("%s",)])
            except opt_cli.CommandLineError as e:
                return f"mlir-opt {str(e).replace('unknown command line argument ', '')}"
            for piece in line.pieces:
                try:
                    elements = parse_pipeline(piece.text)
                except PipelineError:
                    continue  # ember-opt reports it; the test may expect that
                missing = _unknown_passes(elements, known)
                if missing:
                    return f"pass {missing} not registered in the bindings"
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


def configure(config, tests: str) -> None:
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

    config.substitutions.append((tool("mlir-opt"), f"{python} -m tools.ember_opt"))
    config.substitutions.append((tool("FileCheck"), f"{python} -m filecheck"))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("tests", nargs="?", default=DEFAULT_TESTS, help="folder of upstream .mlir tests")
    parser.add_argument("-v", "--verbose", action="store_true", help="show the output of failing tests")
    parser.add_argument("-j", "--jobs", type=int, default=os.cpu_count())
    parser.add_argument("--show-unsupported", action="store_true", help="list unsupported tests and why")
    args = parser.parse_args(argv)
    tests = os.path.abspath(args.tests)
    if not os.path.isdir(tests):
        print(f"no test folder {tests}", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="upstream-lit-") as work:
        with open(os.path.join(work, "lit.cfg.py"), "w") as f:
            f.write(LIT_CONFIG.format(repo=REPO, tests=os.path.join(work, "tests")))
        shutil.copytree(tests, os.path.join(work, "tests"))
        lit_main = "import lit.main; lit.main.main()"  # the lit package has no __main__
        command = [sys.executable, "-c", lit_main, "-j", str(args.jobs), "-v" if args.verbose else "-s",
                   os.path.join(work, "tests")]
        if args.show_unsupported:
            command.insert(-1, "--show-unsupported")
        done = subprocess.run(command, cwd=REPO)
    return done.returncode


if __name__ == "__main__":
    sys.exit(main())
