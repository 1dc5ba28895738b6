"""The examples in the core's docstrings are tests too."""
import doctest
import importlib

import pytest

MODULES = ["companion.core.sealed", "companion.core.clock", "companion.core.play",
           "companion.core.datafile", "companion.core.choices", "companion.cardcodes",
           "companion.core.args", "companion.core.derived", "companion.core.flow",
           "companion.core.session"]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    result = doctest.testmod(importlib.import_module(name))
    assert result.attempted > 0 and result.failed == 0
