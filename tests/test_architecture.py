"""Keep the shape: one core, thin shells; only the store touches Git."""

from __future__ import annotations

import ast
from pathlib import Path

import halo_git

PKG = Path(halo_git.__file__).parent
SHELLS = {"server.py", "mcp_resources.py", "cli.py", "demo.py"}  # adapters; plus the commands/ and site/ packages


def imports(path: Path) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module.split(".")[0])
    return names


def modules():
    for path in sorted(PKG.rglob("*.py")):
        yield path.relative_to(PKG), imports(path)


def test_only_the_store_imports_dulwich():
    offenders = [str(rel) for rel, names in modules() if "dulwich" in names and rel.parts[0] != "store"]
    assert offenders == []


def test_core_never_imports_shell_frameworks():
    for rel, names in modules():
        if rel.parts[0] in {"commands", "site"} or rel.name in SHELLS:
            continue
        assert not names & {"mcp", "mcp_types", "argparse", "mkdocs", "click"}, rel


def test_public_surface():
    for name in halo_git.__all__:
        assert hasattr(halo_git, name), name
    assert {"Halo", "Event", "HaloError", "InvalidCall"} <= set(halo_git.__all__)
