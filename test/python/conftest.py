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
