"""``compile()``: the wrapper whose calls go through the guarded cache.

The name follows TorchDynamo's ``eval_frame.py``, but Ember installs no frame
evaluation hook (PEP 523): that needs C, and Ember is pure Python. Only calls that
go through the wrapper ``compile()`` returns are compiled; a frame the user reaches
another way (the plain function, a callee of a compiled function that is not
inlined) runs in CPython as usual.

A call tries the entries cached for the function's code object (most recent first);
each is generated code that checks its guards and, when they hold, runs the
compiled graph. A miss traces the call (``convert_frame``) and adds an entry. Past
``recompile_limit`` entries a warning is issued once and further misses run the
plain function. The trying is not a loop here but generated per function
(``dispatcher.py``): each ``CompiledFunction`` has a class of its own whose
``__call__`` is regenerated whenever its entries change.
"""

from __future__ import annotations

import functools
import threading
import types
import warnings
import weakref
from dataclasses import dataclass

from compiler import config, logs
from compiler.errors import InvalidArgument
from compiler.frontend import bytecode_versions, dispatcher
from compiler.frontend.convert_frame import convert
from compiler.frontend.dynamic_policy import DynamicPolicy
from compiler.frontend.entry_codegen import MISS
from compiler.frontend.guards import failing_guards, now_value
from compiler.frontend.sources import generated
from compiler.frontend.user_frames import user_stacklevel

_KNOWN_OPTIONS = {"recompile_limit", "strict", "max_graph_ops"}
_all_compiled: "weakref.WeakSet[CompiledFunction]" = weakref.WeakSet()


@dataclass(frozen=True)
class Options:
    backend: object = "cpu"
    dynamic: bool | None = None
    fullgraph: bool = False
    strict: bool = False
    recompile_limit: int | None = None
    max_graph_ops: int | None = None  # None: compiler.config.max_graph_ops


class CompiledFunction:
    """The callable ``compile(fn)`` returns (keeps ``__name__``, ``__doc__``, ``__wrapped__``)."""

    def __init__(self, fn, options: Options):
        self._fn = fn
        self._options = options
        self._entries: list = []
        self._compile_lock = threading.RLock()  # reentrant: a compiled function may call itself
        self.last_entry = None  # the entry the latest miss made (a resume function's: of any call)
        self._warned = False
        self._policy = DynamicPolicy(options.dynamic)  # automatic dynamic: what changed between traces
        functools.update_wrapper(self, fn)
        _all_compiled.add(self)
        if self._generates_dispatcher and dispatcher.can_dispatch(fn):
            self.__class__ = type(type(self).__name__, (type(self),), {"__module__": type(self).__module__})
            self._own_class = True
        self._set_entries([])

    _generates_dispatcher = True  # give each instance a class whose __call__ is generated (dispatcher.py)
    _own_class = False

    def __call__(self, *args, **kwargs):
        """The generic call, for a function with no class of its own (a reserved parameter name)."""
        return self._call_generic(*args, **kwargs)

    def _call_generic(self, *args, **kwargs):
        for entry in self._entries:
            result = entry.run(*args, **kwargs)
            if result is not MISS:
                return result
        return self._miss(args, kwargs)

    def _set_entries(self, entries: list) -> None:
        """A new list (calls iterating the old one go on) and a ``__call__`` generated over it."""
        self._entries = entries
        if self._own_class:
            call = dispatcher.build_dispatcher(self._fn, entries, self._missed, self._call_generic)
            type(self).__call__ = staticmethod(call)

    def _missed(self, *args, **kwargs):
        return self._miss(args, kwargs)

    def __get__(self, obj, objtype=None):
        """Decorated methods bind like functions do."""
        return self if obj is None else types.MethodType(self, obj)

    @property
    def entries(self) -> list:
        return list(self._entries)

    def _limit(self) -> int:
        limit = self._options.recompile_limit
        return config.recompile_limit if limit is None else limit

    def _miss(self, args, kwargs):
        """Trace and compile a new entry — once, whatever the threads: a thread that
        misses while another compiles waits, then first tries the entries added
        meanwhile (the same call's entry, most likely), so concurrent first calls make
        one entry and the recompile limit counts distinct ones."""
        seen = len(self._entries)
        while True:
            with self._compile_lock:
                fresh = self._entries[: len(self._entries) - seen]  # added while this thread waited
                seen = len(self._entries)
                if not fresh:
                    if len(self._entries) >= self._limit():
                        self._warn_limit()
                        return self._fn(*args, **kwargs)
                    if self._entries:
                        self._log_recompile(args, kwargs)
                    entry = convert(self._fn, args, kwargs, self._options, self._policy)
                    self._set_entries([entry, *self._entries])
                    break
            for entry in fresh:  # run outside the lock: a call may take long, or call this function
                result = entry.run(*args, **kwargs)
                if result is not MISS:
                    self.last_entry = entry
                    return result
        self.last_entry = entry
        result = entry.run(*args, **kwargs)
        return self._fn(*args, **kwargs) if result is MISS else result

    def _warn_limit(self) -> None:
        """Once, and only for a function that compiled something: one whose every
        entry runs in CPython loses nothing at the limit."""
        if self._warned or not any(e.graph_module is not None or e.resumes for e in self._entries):
            return
        self._warned = True
        code = self._fn.__code__
        warnings.warn(
            f"ember: {self._fn.__qualname__} ({code.co_filename}:{code.co_firstlineno}) reached "
            f"recompile_limit={self._limit()}; further new inputs run without compiling. Raise the "
            "limit with compile(..., options={'recompile_limit': N}) or compiler.config.recompile_limit, "
            "or compile with dynamic=True if sizes change",
            RuntimeWarning,
            stacklevel=user_stacklevel(),
        )

    def _log_recompile(self, args, kwargs) -> None:
        if not logs.enabled("recompiles"):
            return
        import inspect

        bound = inspect.signature(self._fn).bind(*args, **kwargs)
        bound.apply_defaults()
        entry = self._entries[0]
        namespace = {
            **entry.guard_namespace,
            generated("G"): self._fn.__globals__,
            generated("CELLS"): self._fn.__closure__,
        }
        values = dict(bound.arguments)
        failed = failing_guards(entry.guards, namespace, values)
        code = self._fn.__code__
        lines = "\n".join(f"    - {g.text} (now {now_value(g, namespace, values)})" for g in failed[:1])
        lines = lines or "    - (no single guard; a new entry)"
        logs.log(
            "recompiles",
            "Recompiling function %s in %s:%d\n    triggered by the following guard failure(s):\n%s",
            self._fn.__name__,
            code.co_filename,
            code.co_firstlineno,
            lines,
        )

    def reset(self) -> None:
        self._set_entries([])
        self._warned = False
        self._policy = DynamicPolicy(self._options.dynamic)


class ResumeFunction(CompiledFunction):
    """A compiled resume function (``resume.py``). It remembers the entry each call
    ran (``last_entry``), for ``explain`` to follow a graph break into the next graph;
    a user's compiled function pays nothing for that on its calls."""

    _generates_dispatcher = False

    def __call__(self, *args, **kwargs):
        for entry in self._entries:
            result = entry.run(*args, **kwargs)
            if result is not MISS:
                self.last_entry = entry
                return result
        return self._miss(args, kwargs)


def compile(fn=None, *, backend="cpu", dynamic=None, fullgraph=False, options=None):
    """Compile ``fn`` (bare decorator, decorator with arguments, or a plain call)."""
    options = dict(options or {})
    unknown = set(options) - _KNOWN_OPTIONS
    if unknown:
        raise InvalidArgument(f"compile(): unknown option(s) {sorted(unknown)} (known: {sorted(_KNOWN_OPTIONS)})")
    if dynamic not in (None, True, False):
        raise InvalidArgument(f"compile(): dynamic={dynamic!r} (expected None, True or False)")
    if isinstance(backend, str) and backend not in ("cpu", "cuda", "eager"):
        raise InvalidArgument(f"compile(): unknown backend {backend!r} (expected 'cpu', 'cuda', 'eager' or a callable)")
    if not isinstance(backend, str) and not callable(backend):
        raise InvalidArgument(f"compile(): backend {backend!r} is neither 'cpu', 'cuda', 'eager' nor a callable")
    opts = Options(
        backend,
        dynamic,
        bool(fullgraph),
        bool(options.get("strict", False)),
        options.get("recompile_limit"),
        options.get("max_graph_ops"),
    )
    if fn is None:
        return functools.partial(_compile_callable, options=opts)
    return _compile_callable(fn, opts)


def _compile_callable(fn, options: Options):
    if isinstance(fn, CompiledFunction):
        return fn
    _warn_unsupported_version()
    if isinstance(fn, types.MethodType):
        return types.MethodType(_compile_callable(fn.__func__, options), fn.__self__)
    if isinstance(fn, types.FunctionType):
        return CompiledFunction(fn, options)
    call = getattr(type(fn), "__call__", None)  # noqa: B004  (the class's own __call__, not callable())
    if isinstance(call, types.FunctionType):
        return types.MethodType(CompiledFunction(call, options), fn)
    raise InvalidArgument(
        f"compile(): cannot compile {fn!r}: expected a Python function, method or an "
        f"object whose class defines __call__ in Python"
    )


_version_warned = False


def _warn_unsupported_version() -> None:
    """On a Python whose bytecode the tracer does not read, say so once, when the first
    function is compiled (its calls then run in CPython, each entry saying why)."""
    global _version_warned
    if _version_warned or bytecode_versions.rules_for() is not None:
        return
    _version_warned = True
    warnings.warn(
        f"ember: Python {bytecode_versions.describe(bytecode_versions.version_of())} is not supported "
        f"(Ember traces the bytecode of CPython {bytecode_versions.describe_supported()}); "
        "compiled functions run in CPython, uncompiled",
        RuntimeWarning,
        stacklevel=user_stacklevel(),
    )


def reset() -> None:
    """Drop every cached entry of every compiled function (and the in-memory artifacts),
    and give the memory the caching allocators hold (kernel temporaries, GPU memory) back
    to the system and the driver."""
    for compiled in list(_all_compiled):
        compiled.reset()
    from compiler.frontend.resume import forget_resume_functions
    from runtime import temporaries
    from runtime.cache import ARTIFACTS
    from runtime.cuda.allocator import release_cached

    forget_resume_functions()

    ARTIFACTS.clear_memory()
    release_cached()
    temporaries.trim()
