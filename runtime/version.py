"""Ember's version, owned by the bottom layer: the runtime keys cached object code by it
(an artifact built by another version is never loaded), and ``compiler.__version__``
re-exports it for users."""

__version__ = "0.1.0"
