"""Test-wide set-up: a private artifact cache, so tests neither read nor fill the user's."""

import os
import tempfile

import pytest


@pytest.fixture(autouse=True, scope="session")
def _private_artifact_cache():
    with tempfile.TemporaryDirectory(prefix="ember-test-cache-") as directory:
        previous = os.environ.get("EMBER_CACHE_DIR")
        os.environ["EMBER_CACHE_DIR"] = directory
        yield
        if previous is None:
            del os.environ["EMBER_CACHE_DIR"]
        else:
            os.environ["EMBER_CACHE_DIR"] = previous


@pytest.fixture
def fresh_compiler():
    """Every compiled function's cache emptied before and after the test, logs off after."""
    import compiler

    compiler.reset()
    yield
    compiler.reset()
    compiler.set_logs("")


class CompileCounter:
    """A backend that counts the graphs it is handed (as Dynamo's tests do) and their
    Ember ops, then compiles them for the CPU."""

    def __init__(self):
        self.graphs = 0
        self.ops = 0

    def __call__(self, module, example_inputs):
        from compiler.backends import compile_graph

        self.graphs += 1
        self.ops += sum(
            1
            for op in module.body.operations[0].regions[0].blocks[0].operations
            if op.operation.name.startswith("ember.")
        )
        return compile_graph(module, "cpu")


@pytest.fixture
def compile_counter():
    return CompileCounter()


@pytest.fixture
def two_threads():
    """Parallel kernels split across two threads, whatever the machine; restored after."""
    import compiler

    before = compiler.config.num_threads
    compiler.config.num_threads = 2
    yield
    compiler.config.num_threads = before


@pytest.fixture(params=[1, 2], ids=["1-thread", "2-threads"])
def thread_count(request):
    """The test once on one thread and once on two; the setting restored after."""
    from runtime import threads

    threads.set_num_threads(request.param)
    yield request.param
    threads.set_num_threads(None)
