"""Modules imported when first used, not when Ember is.

sympy (the symbolic sizes' algebra) took half a second of a new process's first
compile, also for functions whose sizes never go symbolic. ``lazy_module`` gives a
stand-in that imports the module on its first attribute read and then holds the
module's names itself, or the module where it was imported already. The import is
an ordinary one (importlib's locks make it safe from two threads at once; the
stand-in is never put in ``sys.modules``).
"""

from __future__ import annotations

import importlib
import sys
from types import ModuleType


class _LazyModule(ModuleType):
    def __getattr__(self, attr: str):
        module = importlib.import_module(self.__name__)
        self.__dict__.update(module.__dict__)
        return getattr(module, attr)


def lazy_module(name: str) -> ModuleType:
    return sys.modules.get(name) or _LazyModule(name)
