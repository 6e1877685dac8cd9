"""What ``pip install`` brings must be what the code imports: a library the code imports but
pyproject.toml does not name is only there on machines where something else installed it (the
``dev`` extra's PySpark and pandas bring numpy, say), and a fresh ``pip install -e . && txlake``
then fails at its first statement."""

import ast
import importlib.metadata
import os
import re
import sys
import tomllib

from tests.conftest import REPO

# the package's source directories (pyproject.toml's package-dir) and top-level modules
CORE = ["dbapi", "engine", "parser", "repl", "storage"]
SPARK = ["spark", "pyspark_txlake.py"]
# the test suite and benchmarks (the README's test command installs the ``dev`` extra); pypaimon
# runs in a private virtualenv of its own (tests/paimon_env.py), not in this one; soak_ops is the
# soak's workload, imported from beside it (tests/scenarios/soak.py runs as a script)
CHECKS = ["tests", "benchmarks"]
PRIVATE = {"tests", "pypaimon", "soak_ops"}


def _imported(paths: list[str]) -> set[str]:
    """Top-level names of every module the files under ``paths`` import, anywhere in them."""
    names = set()
    for top in paths:
        path = os.path.join(REPO, top)
        files = [path] if path.endswith(".py") else [
            os.path.join(d, f) for d, _, fs in os.walk(path) for f in fs if f.endswith(".py")]
        for file in files:
            with open(file, encoding="utf-8") as fh:
                tree = ast.parse(fh.read(), file)
            for node in ast.walk(tree):
                if isinstance(node, ast.Import):
                    names.update(a.name.split(".")[0] for a in node.names)
                elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                    names.add(node.module.split(".")[0])
    return names - set(sys.stdlib_module_names) - {"txlake", "__future__", "pyspark_txlake"}


def _declared(requirements: list[str]) -> set[str]:
    return {_normalise(re.split(r"[\s<>=!~\[;]", r, maxsplit=1)[0]) for r in requirements}


def _normalise(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _undeclared(paths: list[str], requirements: list[str]) -> dict[str, list[str]]:
    """Imported modules whose distribution the requirements do not name: module -> its
    distributions (empty if none installed here provides it)."""
    providers = importlib.metadata.packages_distributions()
    declared = _declared(requirements)
    missing = {}
    for module in sorted(_imported(paths)):
        dists = [_normalise(d) for d in providers.get(module, [])]
        if not any(d in declared for d in dists):
            missing[module] = dists
    return missing


def _project() -> dict:
    with open(os.path.join(REPO, "pyproject.toml"), "rb") as fh:
        return tomllib.load(fh)["project"]


def test_every_library_the_engine_imports_is_a_dependency():
    assert _undeclared(CORE, _project()["dependencies"]) == {}


def test_every_library_the_spark_source_imports_is_a_dependency_or_in_the_spark_extra():
    project = _project()
    assert _undeclared(SPARK, project["dependencies"] + project["optional-dependencies"]["spark"]) == {}


def test_every_library_the_tests_and_benchmarks_import_is_a_dependency_or_in_the_dev_extra():
    project = _project()
    extras = project["optional-dependencies"]
    undeclared = _undeclared(CHECKS, project["dependencies"] + extras["spark"] + extras["dev"])
    assert {m: d for m, d in undeclared.items() if m not in PRIVATE} == {}
