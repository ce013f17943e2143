"""The first-import check that CI runs over the project catches an import cycle."""

from __future__ import annotations

import textwrap

from tools import check_imports


def _package(root, files: dict[str, str]):
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))


def test_a_cycle_fails_when_its_second_module_is_imported_first(tmp_path):
    _package(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/kernel.py": "from pkg.loader import load\nKERNEL = 1\n",
            "pkg/loader.py": "from pkg.kernel import KERNEL\ndef load(): return KERNEL\n",
        },
    )
    failures = check_imports.check(["pkg"], tmp_path)
    assert set(failures) == {"pkg.kernel", "pkg.loader"}
    assert "partially initialized module" in failures["pkg.kernel"]


def test_a_tree_without_cycles_passes(tmp_path):
    _package(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/sub/__init__.py": "",
            "pkg/sub/low.py": "X = 1\n",
            "pkg/high.py": "from pkg.sub.low import X\n",
        },
    )
    assert check_imports.modules_of("pkg", tmp_path) == ["pkg", "pkg.high", "pkg.sub", "pkg.sub.low"]
    assert check_imports.check(["pkg"], tmp_path) == {}


def test_main_reports_each_failure_and_exits_non_zero(tmp_path, capsys):
    _package(tmp_path, {"pkg/__init__.py": "", "pkg/broken.py": "import no_such_module_anywhere\n"})
    assert check_imports.main(["pkg", "--root", str(tmp_path)]) == 1
    out = capsys.readouterr().out
    assert "pkg.broken: ModuleNotFoundError" in out
    assert "1 of 2 modules import first" in out
