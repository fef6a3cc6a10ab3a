"""Fail when ci/lowest-constraints.txt and the floors in pyproject.toml disagree,
so the lowest-versions job really tests the declared minimum of every dependency."""

from __future__ import annotations

import re
import sys
import tomllib
from pathlib import Path

HERE = Path(__file__).resolve().parent
project = tomllib.loads((HERE.parent / "pyproject.toml").read_text(encoding="utf-8"))["project"]
declared = list(project["dependencies"]) + [d for group in project["optional-dependencies"].values() for d in group]


def norm(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


floors = {}
for spec in declared:
    m = re.match(r"\s*([A-Za-z0-9_.-]+)[^>]*>=\s*([0-9][^,;\s]*)", spec)
    if not m:
        sys.exit(f"no >= floor in {spec!r}: every dependency needs one")
    floors[norm(m.group(1))] = m.group(2)
pins = {}
for line in (HERE / "lowest-constraints.txt").read_text(encoding="utf-8").splitlines():
    line = line.split("#", 1)[0].strip()
    if line:
        name, _, version = line.partition("==")
        pins[norm(name)] = version.strip()


def same(a: str, b: str) -> bool:
    pad = lambda v: [int(x) for x in v.split(".")] + [0] * (3 - len(v.split(".")))
    return pad(a) == pad(b)


wrong = [f"{n}: pyproject >= {v}, constraints == {pins.get(n)}" for n, v in floors.items() if n not in pins or not same(pins[n], v)]
wrong += [f"{n}: pinned but not a direct dependency" for n in pins if n not in floors]
if wrong:
    sys.exit("ci/lowest-constraints.txt is out of step with pyproject.toml:\n  " + "\n  ".join(wrong))
print(f"{len(pins)} floors pinned, all matching pyproject.toml")
