"""docs/numpy-reference.md is the NumPy-semantics table, rendered: they never disagree."""

from tools import numpy_reference


def test_the_reference_page_is_the_table():
    page = numpy_reference.PAGE.read_text()
    assert page == numpy_reference.render(), "docs/numpy-reference.md is stale: run python -m tools.numpy_reference"


def test_every_row_of_the_table_is_on_the_page():
    """Each rule's NumPy spelling appears (a sample that must never go missing)."""
    page = numpy_reference.render()
    for spelled in ("`np.sum`, `x.sum()`", "`np.arctan2`", "`np.std`", "`np.flip`", "`x.shape`", "`x[...]`"):
        assert spelled in page, spelled
