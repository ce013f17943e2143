"""Ember: compile Python functions over NumPy arrays to native code through MLIR.

    from compiler import compile

    @compile
    def mse(x, y):
        return ((x - y) ** 2).sum()
"""

__version__ = "0.1.0"

from compiler import config, errors  # noqa: E402
from compiler.errors import EmberError, GraphBreakError  # noqa: E402
from compiler.frontend.eval_frame import compile, reset  # noqa: E402
from compiler.frontend.explain import explain  # noqa: E402
from compiler.logs import set_logs  # noqa: E402

__all__ = ["compile", "reset", "explain", "config", "errors", "EmberError", "GraphBreakError", "set_logs",
           "__version__"]
