"""The project stands on its own: what a user's clone or wheel holds never points at
documents outside the repository (design notes the project was started from)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
OUTSIDE = re.compile(r"\.\./shared|shared/(SPEC|ARCHITECTURE|STYLE)|SPEC\.md|ARCHITECTURE\.md|SPEC §")


def _shipped_files() -> list[Path]:
    listed = subprocess.run(
        [
            "git",
            "ls-files",
            "README.md",
            "pyproject.toml",
            "docs",
            "compiler",
            "runtime",
            "tools",
            "examples",
            "benchmarks",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    return [ROOT / name for name in listed.stdout.split()]


def test_readme_docs_and_sources_name_no_file_outside_the_repository():
    files = _shipped_files()
    assert any(f.name == "README.md" for f in files)
    offenders = [
        f"{f.relative_to(ROOT)}:{n}"
        for f in files
        if f.exists()
        for n, line in enumerate(f.read_text(errors="replace").splitlines(), 1)
        if OUTSIDE.search(line)
    ]
    assert offenders == []


def test_help_texts_name_no_file_outside_the_repository():
    for tool in ("tools.ember_opt", "tools.check_imports"):
        text = subprocess.run([sys.executable, "-m", tool, "--help"], cwd=ROOT, capture_output=True, text=True)
        assert text.returncode == 0 and "usage" in text.stdout.lower()
        assert not OUTSIDE.search(text.stdout), tool


def test_the_readme_points_at_the_user_contract_in_docs():
    readme = (ROOT / "README.md").read_text()
    assert "docs/contract.md" in readme
    assert (ROOT / "docs" / "contract.md").exists()
