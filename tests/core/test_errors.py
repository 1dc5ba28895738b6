"""One error tree: every exception the companion and the hardware define is a CompanionError
(and also the built-in it stands for, where it replaces one), so one ``except`` catches what
the companion raises on purpose and nothing else."""
import importlib
import inspect
import pkgutil

import pytest

import companion
import hardware
from companion.core.errors import CompanionError


def _modules():
    for pkg in (companion, hardware):
        for info in pkgutil.walk_packages(pkg.__path__, pkg.__name__ + "."):
            yield info.name


@pytest.mark.parametrize("name", sorted(_modules()))
def test_every_error_class_is_in_the_one_tree(name):
    mod = importlib.import_module(name)
    for attr, obj in vars(mod).items():
        if inspect.isclass(obj) and issubclass(obj, BaseException) and \
                obj.__module__ == name:
            assert issubclass(obj, CompanionError), f"{name}.{attr} is outside the tree"


def test_hardware_errors_are_also_the_built_ins_they_replace():
    from hardware.errors import UnknownButtonError, UnknownCueError, UnknownPatternError
    e = UnknownPatternError("fanfare", ("reveal", "ok"))
    assert isinstance(e, KeyError) and isinstance(e, ValueError)
    assert str(e) == "no buzzer pattern called 'fanfare' (patterns: reveal, ok)"
    assert issubclass(UnknownCueError, ValueError) and issubclass(UnknownButtonError, ValueError)
