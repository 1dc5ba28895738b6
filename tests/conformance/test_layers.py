"""The house's layers and its no-circles rule, as import-linter contracts (pyproject.toml,
``[tool.importlinter]``): core < games < lab / service < hardware < net / printing < club <
cli / ui; no two modules of one package import each other, however far round; the firmware
imports nothing of the table. Every import counts, also one inside a function. A new circle or
upward arrow fails here, naming the import."""
import os
import pathlib
import subprocess
import sys
import textwrap

ROOT = pathlib.Path(__file__).resolve().parents[2]
#: In a process of its own: import-linter configures logging with dictConfig, which would
#: disable every logger already made in this one (and later tests read their logs).
LINT = ("import sys; from importlinter.cli import lint_imports; "
        "sys.exit(lint_imports(config_filename=sys.argv[1], no_cache=True, no_logo=True))")


def _lint(config, cwd, path=()):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [*map(str, path), str(ROOT), os.environ.get("PYTHONPATH", "")]))
    done = subprocess.run([sys.executable, "-c", LINT, str(config)], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=120)
    return done.returncode, done.stdout + done.stderr


def test_the_import_contracts_hold():
    code, said = _lint(ROOT / "pyproject.toml", ROOT)
    assert code == 0, said
    assert "3 kept, 0 broken" in said, said


def test_the_contracts_see_an_upward_arrow_and_a_circle(tmp_path):
    """The same contract types on a made-up house: an upward import inside a function and a
    two-module circle are both reported."""
    pkg = tmp_path / "tcfakehouse"
    (pkg / "low").mkdir(parents=True)
    (pkg / "high").mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "low" / "__init__.py").write_text("")
    (pkg / "high" / "__init__.py").write_text("")
    (pkg / "low" / "a.py").write_text("def f():\n    from tcfakehouse.high import b\n")
    (pkg / "high" / "b.py").write_text("from tcfakehouse.low import a\n")
    (pkg / "high" / "c.py").write_text("from . import d\n")
    (pkg / "high" / "d.py").write_text("from . import c\n")
    config = tmp_path / "contracts.toml"
    config.write_text(textwrap.dedent("""\
        [tool.importlinter]
        root_packages = ["tcfakehouse"]

        [[tool.importlinter.contracts]]
        name = "layers"
        type = "layers"
        layers = ["tcfakehouse.high", "tcfakehouse.low"]

        [[tool.importlinter.contracts]]
        name = "circles"
        type = "acyclic_siblings"
        ancestors = ["tcfakehouse"]
        """))
    code, said = _lint(config, tmp_path, path=[tmp_path])
    assert code == 1
    assert "0 kept, 2 broken" in said, said
    assert "tcfakehouse.low.a -> tcfakehouse.high.b" in said, said
