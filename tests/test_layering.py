"""The house's layout, checked: what the architecture promises and a grep can prove.

- Nothing outside `dicepoker.rules` names a variant (a game's kind is data: the interfaces read
  `rules_view`, the server reads the rules' blocks).
- The web pages, the server and the terminal client do not assume five dice or six faces.
- The terminal client imports nothing from the server or the web app; the server imports
  nothing of the web pages, and its rooms import only the rooms below them.
- The tests read nothing outside the repository (a user's clone has nothing beside it), and no
  machine's paths are written into the code or the docs.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from dicepoker.rules import VARIANTS

REPO = Path(__file__).resolve().parents[1]
SRC = REPO / "src" / "dicepoker"
NAMES = set(VARIANTS)


def relative(path: Path) -> str:
    return str(path.relative_to(REPO))


def python_files(*roots: Path) -> Iterator[Path]:
    for root in roots:
        yield from (root.rglob("*.py") if root.is_dir() else [root])


def _exempt_constants(tree: ast.AST) -> set[int]:
    """Constants that are not a variant's name in use: dict keys and `.get()`/subscript keys
    (the view's row flag `school`, a JSON object's fields)."""
    exempt: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Dict):
            exempt.update(id(key) for key in node.keys if key is not None)
        elif isinstance(node, ast.Subscript):
            exempt.add(id(node.slice))
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "get"
            and node.args
        ):
            exempt.add(id(node.args[0]))
    return exempt


def variant_literals(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    exempt = _exempt_constants(tree)
    return [
        f"{relative(path)}:{node.lineno}: {node.value!r}"
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and node.value in NAMES
        and id(node) not in exempt
    ]


def test_no_variant_name_outside_the_rules() -> None:
    found = [
        hit
        for path in python_files(SRC)
        if SRC / "rules" not in path.parents
        for hit in variant_literals(path)
    ]
    names = "|".join(re.escape(name) for name in sorted(NAMES))
    quoted = re.compile(r"""["'`](""" + names + r""")["'`]""")
    for path in [*SRC.rglob("*.js"), *SRC.rglob("*.html")]:
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            if quoted.search(line):
                found.append(f"{relative(path)}:{number}: {line.strip()[:80]}")
    assert not found, "variant names outside dicepoker.rules:\n" + "\n".join(found)


# Five dice and six faces written into a page script: comparisons with 5 or 6, the positions
# 0..4 spelled out, a key range [1-5].
JS_DICE = re.compile(
    r"(?:[<>]=?|[!=]==?)\s*[56]\b|\b[56]\s*(?:[<>]=?|[!=]==?)|\[0, 1, 2, 3, 4\]|\[1-[56]\]|\b5 - "
)


def _python_dice(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = []
    for node in ast.walk(tree):
        hit = False
        if isinstance(node, ast.Call) and node.args:
            name = node.func.attr if isinstance(node.func, ast.Attribute) else ""
            name = node.func.id if isinstance(node.func, ast.Name) else name
            last = node.args[-1]
            literal = isinstance(last, ast.Constant) and last.value in (5, 6)
            hit = literal and (name == "range" or (name == "get" and len(node.args) == 2))
        elif isinstance(node, ast.Compare):
            sides = [node.left, *node.comparators]
            literal = any(isinstance(s, ast.Constant) and s.value in (5, 6) for s in sides)
            hit = literal and re.search(r"dice|die|held|kept|face", ast.unparse(node)) is not None
        if hit:
            found.append(f"{relative(path)}:{getattr(node, 'lineno', 0)}: {ast.unparse(node)}")
    return found


def test_interfaces_read_the_number_of_dice() -> None:
    found: list[str] = []
    for path in SRC.rglob("*.js"):
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            if JS_DICE.search(line.split("//", 1)[0]):
                found.append(f"{relative(path)}:{number}: {line.strip()[:80]}")
    for root in ("server", "web", "tui", "master", "protocol"):
        if (SRC / root).exists():
            for path in python_files(SRC / root):
                found.extend(_python_dice(path))
    assert not found, "five dice or six faces assumed:\n" + "\n".join(found)


def imports(root: Path) -> Iterator[tuple[str, str]]:
    """Each module a source file under `root` imports: (file:line, module)."""
    for path in python_files(root):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom):
                modules = [node.module or ""]
            elif isinstance(node, ast.Import):
                modules = [alias.name for alias in node.names]
            else:
                continue
            for module in modules:
                yield f"{relative(path)}:{node.lineno}", module


def test_terminal_client_does_not_import_the_server_or_the_web_app() -> None:
    found = [
        f"{where}: {module}"
        for where, module in imports(SRC / "tui")
        if module.startswith(("dicepoker.server", "dicepoker.web"))
    ]
    assert not found, "\n".join(found)


#: What each room of the server may import of the others (dicepoker.server's docstring): the
#: imports run one way, from the transport down to what is stored and what runs.
ROOMS_BELOW = {
    "http": {"community", "storage", "runtime"},
    "community": {"storage", "runtime"},
    "storage": set(),
    "runtime": set(),
}


@pytest.mark.parametrize("room", sorted(ROOMS_BELOW))
def test_a_server_room_imports_only_the_rooms_below_it(room: str) -> None:
    allowed = {room, *ROOMS_BELOW[room]}
    found = []
    for where, module in imports(SRC / "server" / room):
        parts = module.split(".")
        if parts[:2] != ["dicepoker", "server"] or len(parts) < 3:
            continue
        other_room = parts[2] in ROOMS_BELOW and parts[2] not in allowed
        wiring = parts[2] in ("services", "settings") and room != "http"  # (above the rooms)
        if other_room or wiring:
            found.append(f"{where}: {module}")
    assert not found, "\n".join(found)


def test_the_services_import_nothing_of_the_http_room() -> None:
    """The routes import the services (their dependencies, the limiters' wiring): the services
    importing the routes' room back would make the imports run both ways."""
    wiring = SRC / "server" / "services.py"
    found = [
        f"{where}: {module}"
        for where, module in imports(wiring)
        if module == "dicepoker.server.http" or module.startswith("dicepoker.server.http.")
    ]
    assert not found, "\n".join(found)


def test_the_server_never_imports_the_web_pages() -> None:
    """The pages use the server's services; the server knows nothing of them (dicepoker.site
    puts the two together)."""
    found = [
        f"{where}: {module}"
        for where, module in imports(SRC / "server")
        if module.startswith(("dicepoker.web", "dicepoker.site"))
    ]
    assert not found, "\n".join(found)


def _sources() -> Iterator[Path]:
    for root in (SRC, REPO / "tests", REPO / "benchmarks", REPO / "tools"):
        for suffix in ("*.py", "*.js", "*.css", "*.html"):
            yield from root.rglob(suffix)


def test_tests_read_nothing_outside_the_repository() -> None:
    outside = re.compile(r"""\.\./shared|parents?\[?\d*\]?\s*/\s*["']shared["']|REPO\.parent""")
    found = [
        f"{relative(path)}:{number}: {line.strip()}"
        for path in python_files(REPO / "tests")
        if path != Path(__file__).resolve()
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1)
        if outside.search(line)
    ]
    assert not found, "\n".join(found)


def test_no_machine_paths_in_code_or_docs() -> None:
    machine = re.compile(r"(?<![\w.])/(?:work|root|tmp|home)/")
    files = [*_sources(), *(REPO / "docs").rglob("*.md"), REPO / "README.md"]
    found = [
        f"{relative(path)}:{number}: {line.strip()[:80]}"
        for path in files
        if path != Path(__file__).resolve()
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1)
        if machine.search(line) and not line.lstrip().startswith('r"')  # a pattern that finds them
    ]
    assert not found, "\n".join(found)
