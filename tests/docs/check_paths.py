#!/usr/bin/env python3
"""Every source path the docs, the README, the scripts and the test references name exists.

Scans README.md, docs/*.md, scripts/ and tests/ (Markdown, Python, shell, sbatch, C++ comments) for
paths from the repository root (core/..., ui/..., app/..., scripts/..., tests/..., docs/...,
resources/..., packaging/...) ending in a source extension, and names each one that is not in the
tree. Usage: check_paths.py [REPO]; exit 1 when a path is missing.
"""
import os
import re
import sys

ROOTS = ("core", "ui", "app", "scripts", "tests", "docs", "resources", "packaging")
PATH = re.compile(r"(?<![\w./<>{}$-])((?:%s)/[\w./-]+?\.(?:h|cpp|py|sh|md|cmake|sbatch))(?![\w.])" % "|".join(ROOTS))
SCANNED = (".md", ".py", ".sh", ".sbatch", ".cpp", ".h")
GENERATED = {"app/with_libtorch.sh"}  # configured from app/with_libtorch.sh.in into the build folder


def files(repo):
    yield os.path.join(repo, "README.md")
    for top in ("docs", "scripts", "tests"):
        for folder, dirs, names in os.walk(os.path.join(repo, top)):
            dirs[:] = [d for d in dirs if d != "fixtures"]
            for n in names:
                if n.endswith(SCANNED):
                    yield os.path.join(folder, n)


def main():
    repo = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", ".."))
    missing = []
    checked = set()
    for path in files(repo):
        with open(path, encoding="utf-8", errors="replace") as f:
            for number, line in enumerate(f, 1):
                for named in PATH.findall(line):
                    checked.add(named)
                    if named not in GENERATED and not os.path.exists(os.path.join(repo, named)):
                        missing.append(f"{os.path.relpath(path, repo)}:{number}: {named} does not exist")
    for m in missing:
        print(m)
    print(f"check_paths: {len(checked)} source paths named, {len(missing)} missing")
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
