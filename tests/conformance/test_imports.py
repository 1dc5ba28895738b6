"""The layers: ``companion/core`` imports only the standard library and itself;
``companion/games`` only the standard library, the core and itself. Every import counts, at the
top of a module or inside a function."""
import ast
import pathlib
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
ALLOWED = {"companion/core": ("companion.core",),
           "companion/games": ("companion.core", "companion.games")}


def _imports(path, root):
    """``(line, module)`` of every import in a file (relative ones resolved)."""
    tree = ast.parse(path.read_text(), str(path))
    package = ".".join(path.relative_to(root).with_suffix("").parts[:-1])
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                yield node.lineno, a.name
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[:len(base) - node.level + 1]
                yield node.lineno, ".".join(base + ([node.module] if node.module else []))
            else:
                yield node.lineno, node.module


def violations(root, layer, allowed):
    bad = []
    files = sorted((root / layer).rglob("*.py"))
    assert files, f"no modules in {layer}"
    for path in files:
        for line, module in _imports(path, root):
            top = module.split(".")[0]
            if top in sys.stdlib_module_names or top == "__future__":
                continue
            if any(module == ok or module.startswith(ok + ".") for ok in allowed):
                continue
            bad.append(f"{path.relative_to(root)}:{line} imports {module}")
    return bad


@pytest.mark.parametrize("layer", sorted(ALLOWED))
def test_a_layer_imports_only_the_standard_library_and_what_is_below_it(layer):
    assert violations(ROOT, layer, ALLOWED[layer]) == []


def test_the_check_sees_a_stray_import_even_inside_a_function(tmp_path):
    game = tmp_path / "companion" / "games" / "newgame"
    game.mkdir(parents=True)
    (game / "__init__.py").write_text("from .rules import GAME\n")
    (game / "rules.py").write_text("import json\nfrom companion.core.game import Game\n\n\n"
                                   "def view():\n    from companion.service import hub\n"
                                   "    import kivy\n")
    assert violations(tmp_path, "companion/games", ALLOWED["companion/games"]) == [
        "companion/games/newgame/rules.py:6 imports companion.service",
        "companion/games/newgame/rules.py:7 imports kivy"]


BOTS = sorted((ROOT / "companion" / "games").glob("*/bots.py"))


@pytest.mark.parametrize("path", BOTS, ids=[p.parent.name for p in BOTS])
def test_bots_decide_from_the_seats_observation_never_the_state(path):
    """A bot is ``bot(game, view, rng)``: only the game's Observation class (which builds the
    seat's view from the state) may touch the state; no bot function names it."""
    tree = ast.parse(path.read_text())
    inside = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef) and any(
                getattr(b, "id", None) == "Observation" for b in node.bases):
            inside.update(id(n) for n in ast.walk(node))
    bad = []
    for node in ast.walk(tree):
        if id(node) in inside:
            continue
        if isinstance(node, ast.Name) and node.id == "state":
            bad.append(f"{path.name}:{node.lineno} names the state")
        elif isinstance(node, ast.Attribute) and node.attr in ("_state", "data", "prompts"):
            bad.append(f"{path.name}:{node.lineno} reads .{node.attr}")
        elif isinstance(node, ast.arg) and node.arg == "state":
            bad.append(f"{path.name}:{node.lineno} takes the state")
    assert bad == []
