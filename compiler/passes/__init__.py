"""Ember's passes; importing the package registers all of them."""

from compiler.passes import pipelines  # noqa: F401
