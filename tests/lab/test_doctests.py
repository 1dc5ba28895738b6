"""The examples in the data-tracking and lab docstrings are tests too."""
import doctest
import importlib

import pytest


@pytest.mark.parametrize("name", ["companion.core.datadir", "companion.core.play",
                                  "companion.lab.sequential", "companion.lab.ladder"])
def test_docstring_examples(name):
    result = doctest.testmod(importlib.import_module(name))
    assert result.attempted > 0 and result.failed == 0
