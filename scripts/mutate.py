"""Mutation run over the pure core: does the suite notice a one-line change?

Each mutant changes one spot of one module (a comparison flipped, a boolean
operator swapped, a ``not`` dropped, a number off by one, a constant string
emptied, ``True``/``False`` swapped, a ``raise`` turned into ``pass``). The
mutated module is written into a scratch copy of the checkout whose tests run
there (first on ``PYTHONPATH``; the working tree is never touched) with ``-x``; a
mutant the tests pass on *survives*. Survivors are printed as ``file:line``
with the change, for a person to judge: a missing test, or an equivalent
mutant (a change no behaviour can show).

Not part of CI's default run (minutes per module on two cores)::

    python scripts/mutate.py                      # every module in MODULES
    python scripts/mutate.py halo_git/model.py    # one module with its tests
    python scripts/mutate.py halo_git/markdown.py --tests tests/test_report.py --limit 50
    python scripts/mutate.py halo_git/model.py --every 5    # a fifth of the mutants, spread evenly
"""

from __future__ import annotations

import argparse
import ast
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent

# the pure core and the tests that pin it
MODULES = {
    "halo_git/model.py": ["tests/test_model.py"],
    "halo_git/markdown.py": ["tests/test_markdown_blocks.py", "tests/test_markdown.py"],
    "halo_git/store/verify.py": ["tests/test_verify.py", "tests/test_revisions.py"],
    "halo_git/gate.py": ["tests/test_gate.py", "tests/test_formats.py", "tests/test_accept.py"],
    "halo_git/accept.py": ["tests/test_accept_contract.py", "tests/test_accept.py", "tests/test_formats.py"],
    "halo_git/formats/sarif.py": ["tests/test_gate.py", "tests/test_formats.py"],
    "halo_git/site/home.py": ["tests/test_site_home.py"],
}

# left out of the scratch copy: anywhere in the tree, and only at its top (build output,
# demo folders; a package folder of the same name, halo_git/site, is copied)
SKIP = (".git", ".venv", ".venv-wheel", ".ci-tools", ".cache", "__pycache__", ".pytest_cache", ".hypothesis", "*.egg-info")
SKIP_TOP = {"site", "demo-site", "halo-demo", "dist", "build", "halo-site"}


def _ignore(directory: str, names: list[str]) -> set[str]:
    ignored = set(shutil.ignore_patterns(*SKIP)(directory, names))
    if Path(directory).resolve() == REPO.resolve():
        ignored |= SKIP_TOP & set(names)
    return ignored

FLIP = {
    ast.Eq: ast.NotEq, ast.NotEq: ast.Eq, ast.Lt: ast.LtE, ast.LtE: ast.Lt, ast.Gt: ast.GtE,
    ast.GtE: ast.Gt, ast.In: ast.NotIn, ast.NotIn: ast.In, ast.Is: ast.IsNot, ast.IsNot: ast.Is,
}


@dataclass(frozen=True)
class Mutant:
    index: int  # position in the walk, stable for one source
    line: int
    what: str


def _docstring_ids(tree: ast.AST) -> set[int]:
    ids = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str):
                ids.add(id(first.value))
    return ids


def _sites(tree: ast.AST):
    """(node, description, apply) for every mutation point, in a stable order."""
    docs = _docstring_ids(tree)
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare):
            for i, op in enumerate(node.ops):
                if type(op) in FLIP:
                    new = FLIP[type(op)]
                    yield node, f"{type(op).__name__} -> {new.__name__}", lambda n, i=i, new=new: n.ops.__setitem__(i, new())
        elif isinstance(node, ast.BoolOp):
            other = ast.Or if isinstance(node.op, ast.And) else ast.And
            yield node, f"{type(node.op).__name__} -> {other.__name__}", lambda n, other=other: setattr(n, "op", other())
        elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            yield node, "drop not", None  # replaced by its operand
        elif isinstance(node, ast.Constant) and id(node) not in docs:
            v = node.value
            if isinstance(v, bool):
                yield node, f"{v} -> {not v}", lambda n: setattr(n, "value", not n.value)
            elif isinstance(v, int):
                yield node, f"{v} -> {v + 1}", lambda n: setattr(n, "value", n.value + 1)
            elif isinstance(v, str) and v:
                yield node, f"{v[:30]!r} -> ''", lambda n: setattr(n, "value", "")
        elif isinstance(node, ast.Raise):
            yield node, "raise -> pass", None


class _Replace(ast.NodeTransformer):
    def __init__(self, target: ast.AST, kind: str):
        self.target, self.kind = target, kind

    def visit(self, node):
        if node is self.target:
            if self.kind == "drop not":
                return node.operand
            if self.kind == "raise -> pass":
                return ast.copy_location(ast.Pass(), node)
        return self.generic_visit(node)


def mutants(source: str) -> list[Mutant]:
    return [Mutant(i, node.lineno, what) for i, (node, what, _) in enumerate(_sites(ast.parse(source)))]


def mutated(source: str, index: int) -> str:
    tree = ast.parse(source)
    node, what, apply = list(_sites(tree))[index]
    if apply is not None:
        apply(node)
    else:
        tree = _Replace(node, what).visit(tree)
    return ast.unparse(ast.fix_missing_locations(tree))


def run(module: str, tests: list[str], limit: int | None, timeout: float, every: int = 1, lines: set[int] | None = None,
        only: set[str] | None = None) -> list[tuple[Mutant, str]]:
    source = (REPO / module).read_text(encoding="utf-8")
    todo = [m for m in mutants(source) if (lines is None or m.line in lines)
            and (only is None or f"{module}:{m.line}: {m.what}" in only)][::every][:limit]
    survivors = []
    scratch = Path(tempfile.mkdtemp(prefix="halo-mutants-"))
    try:
        copy = scratch / "tree"  # the tests import the package from their own checkout
        shutil.copytree(REPO, copy, ignore=_ignore)
        target = copy / module
        env = {**os.environ, "PYTHONPATH": f"{copy}{os.pathsep}{os.environ.get('PYTHONPATH', '')}", "PYTHONDONTWRITEBYTECODE": "1"}
        started = time.monotonic()
        for n, m in enumerate(todo, 1):
            target.write_text(mutated(source, m.index), encoding="utf-8")
            cmd = [sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", "-m", "not slow and not browser", *tests]
            try:
                r = subprocess.run(cmd, cwd=copy, env=env, capture_output=True, text=True, timeout=timeout)
                survived = r.returncode == 0
            except subprocess.TimeoutExpired:
                survived = False  # a mutant that hangs the tests is noticed
            if survived:
                survivors.append((m, f"{module}:{m.line}: {m.what}"))
            print(f"[{n}/{len(todo)}] {module}:{m.line} {m.what}: {'SURVIVED' if survived else 'killed'}", flush=True)
        elapsed = time.monotonic() - started
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    killed = len(todo) - len(survivors)
    print(f"{module}: {killed}/{len(todo)} mutants killed, {len(survivors)} survived ({elapsed:.0f} s) with {' '.join(tests)}", flush=True)
    return survivors


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("modules", nargs="*", help=f"modules to mutate (default: {', '.join(MODULES)})")
    p.add_argument("--tests", nargs="+", help="test files to run (default: the module's entry in MODULES)")
    p.add_argument("--limit", type=int, help="only the first N mutants of each module")
    p.add_argument("--every", type=int, default=1, help="only every K-th mutant (a sample spread over the module; default 1, all)")
    p.add_argument("--lines", help="only mutants on these lines, e.g. 446,464 (re-check survivors after adding tests)")
    p.add_argument("--recheck", metavar="LOG", help="only the mutants listed as survivors in LOG (this script's output)")
    p.add_argument("--timeout", type=float, default=120, help="seconds per test run (default 120); a timeout counts as killed")
    args = p.parse_args(argv)
    survivors = []
    for module in args.modules or list(MODULES):
        lines = {int(n) for n in args.lines.split(",")} if args.lines else None
        only = None
        if args.recheck:
            text = Path(args.recheck).read_text(encoding="utf-8").split("surviving mutants:", 1)[-1]
            only = {line.strip() for line in text.splitlines() if line.strip()}
        survivors += run(module, args.tests or MODULES[module], args.limit, args.timeout, args.every, lines, only)
    if survivors:
        print("\nsurviving mutants:")
        for _, text in survivors:
            print(f"  {text}")
    return 1 if survivors else 0


if __name__ == "__main__":
    sys.exit(main())
