"""The layout of docs/ARCHITECTURE.md, enforced: what each stage may import.

Every ``import`` in ``src/tether`` — top-level or inside a function — is resolved to
the stage it reaches; an edge the table below does not allow fails with the file and
line. Top-level imports must also form no cycle between modules.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "tether"

# The shared vocabulary depends on nothing above it; each stage lists what it may use.
VOCABULARY = {"records", "errors", "config", "ids", "modes", "deadline", "workers"}
ALLOWED: dict[str, set[str]] = {
    "vocabulary": set(),
    "text": set(),
    # Instruction-like text (injection flags, Unicode disguises): read by ingest, the
    # extractive generator and the guard; it uses only the text toolkit (ADR 0060).
    "instructions": {"text"},
    "store": {"text"},
    "ingest": {"text", "instructions", "store"},
    "retrieve": {"text", "store", "readers"},
    "providers": set(),
    "readers": {"text"},  # the shipped cross-encoders; verify/ stays pure and never reads them
    "generate": {"text", "instructions", "providers", "readers"},
    "verify": {"text"},
    "judges": {"text", "providers", "readers"},
    "guard": {"text", "instructions", "verify", "judges", "readers"},
    "ops": {"text", "store", "verify"},
    "pipeline": {"text", "store", "retrieve", "generate", "verify", "judges", "guard", "ops", "readers"},
    "facade": {"text", "instructions", "store", "ingest", "retrieve", "generate", "verify", "judges", "guard", "ops", "pipeline",
               "readers"},
    "evaluate": {"text", "instructions", "store", "ingest", "retrieve", "generate", "verify", "judges", "guard", "ops", "pipeline",
                 "facade", "readers"},
    "demo": {"text", "store", "ingest", "facade"},
    "cli": {"text", "instructions", "store", "ingest", "retrieve", "generate", "verify", "judges", "guard", "ops", "pipeline",
            "facade", "evaluate", "demo", "service", "mcp", "readers"},
    "service": {"text", "instructions", "store", "ingest", "retrieve", "generate", "verify", "judges", "guard", "ops", "pipeline",
                "facade", "evaluate", "demo", "readers"},
    # The guard inside other frameworks (LlamaIndex, LangChain, Haystack): a face over
    # the facade's verify_answer and the settings' judge, imported by no stage.
    "integrations": {"facade", "judges"},
    # The MCP face works through the facade: besides it, only the pipeline's event types,
    # the text toolkit and ops (numbered citations), never a stage's internals.
    "mcp": {"text", "ops", "pipeline", "facade"},
    "package": {"facade", "ingest", "ops", "pipeline"},  # tether/__init__.py re-exports the public API
    "main": {"cli"},
}


def stage_of(module: str) -> str:
    parts = module.split(".")
    if parts == ["tether"]:
        return "package"
    head = parts[1]
    if head in VOCABULARY:
        return "vocabulary"
    if head == "__main__":
        return "main"
    return head


def module_name(path: Path) -> str:
    rel = path.relative_to(PACKAGE.parent).with_suffix("")
    parts = list(rel.parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports(path: Path, *, name: str = "", top_level_only: bool = False) -> list[tuple[int, str]]:
    """(line, absolute module) for every import of a ``tether`` module in ``path``."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    name = name or module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    nodes = tree.body if top_level_only else list(ast.walk(tree))
    found: list[tuple[int, str]] = []
    for node in nodes:
        if isinstance(node, ast.Import):
            found += [(node.lineno, a.name) for a in node.names if a.name.split(".")[0] == "tether"]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if target.split(".")[0] != "tether":
                continue
            # ``from . import x`` names a submodule when x is one.
            for alias in node.names:
                sub = f"{target}.{alias.name}"
                is_module = (PACKAGE.parent / sub.replace(".", "/")).with_suffix(".py").exists() or (
                    PACKAGE.parent / sub.replace(".", "/") / "__init__.py"
                ).exists()
                found.append((node.lineno, sub if is_module else target))
    return sorted(set(found))


SOURCES = sorted(PACKAGE.rglob("*.py"))


def test_every_stage_is_in_the_table():
    stages = {stage_of(module_name(p)) for p in SOURCES}
    assert stages <= set(ALLOWED), sorted(stages - set(ALLOWED))


def forbidden(path: Path, name: str = "") -> list[str]:
    here = stage_of(name or module_name(path))
    return [
        f"{path.name}:{line} imports {target}"
        for line, target in imports(path, name=name)
        if (there := stage_of(target)) not in (here, "vocabulary") and there not in ALLOWED[here]
    ]


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_imports_follow_the_layers(path: Path):
    wrong = forbidden(path)
    assert not wrong, "\n".join(wrong)


def test_no_import_cycle():
    graph = {module_name(p): {t for _, t in imports(p, top_level_only=True)} for p in SOURCES}
    # A package's __init__ importing its own submodules is how packages re-export; not a cycle.
    state: dict[str, int] = {}
    cycles: list[list[str]] = []

    def visit(node: str, trail: list[str]) -> None:
        state[node] = 1
        for nxt in sorted(graph.get(node, ())):
            if nxt not in graph or nxt.startswith(node + "."):
                continue
            if state.get(nxt) == 1:
                cycles.append(trail[trail.index(nxt):] + [nxt] if nxt in trail else [node, nxt])
            elif not state.get(nxt):
                visit(nxt, trail + [nxt])
        state[node] = 2

    for module in sorted(graph):
        if not state.get(module):
            visit(module, [module])
    assert not cycles, "\n".join(" -> ".join(c) for c in cycles)


def test_no_long_functions():
    long = [
        f"{path.relative_to(PACKAGE)}:{node.lineno} {node.name} ({node.end_lineno - node.lineno + 1} lines)"
        for path in SOURCES
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
        and node.end_lineno is not None
        and node.end_lineno - node.lineno + 1 > 80
    ]
    assert not long, "\n".join(long)


# The support test is read rule by rule (docs/adr/0059-named-support-rules.md): each
# module of verify/ one concern, each function one step.
VERIFY_MODULE_LINES = 500
VERIFY_FUNCTION_LINES = 60


def test_the_support_test_stays_readable():
    too_long = []
    for path in sorted((PACKAGE / "verify").glob("*.py")):
        text = path.read_text(encoding="utf-8")
        if (n := len(text.splitlines())) > VERIFY_MODULE_LINES:
            too_long.append(f"verify/{path.name}: {n} lines (at most {VERIFY_MODULE_LINES})")
        too_long += [
            f"verify/{path.name}:{node.lineno} {node.name}: {node.end_lineno - node.lineno + 1} lines"
            f" (at most {VERIFY_FUNCTION_LINES})"
            for node in ast.walk(ast.parse(text))
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
            and node.end_lineno is not None
            and node.end_lineno - node.lineno + 1 > VERIFY_FUNCTION_LINES
        ]
    assert not too_long, "\n".join(too_long)


@pytest.mark.parametrize(
    ("module", "source"),
    [
        ("tether.generate.fake", "from ..guard.answercheck import check_answer\n"),
        ("tether.generate.fake", "def f():\n    from tether.verify import check\n"),
        ("tether.verify.fake", "from ..store import Store\n"),
        ("tether.verify.fake", "from .. import generate\n"),
        ("tether.text.fake", "from ..retrieve.search import retrieve\n"),
        ("tether.guard.fake", "from ..service import app\n"),
        ("tether.ops.fake", "import tether.cli\n"),
        ("tether.verify.fake", "from ..readers import support\n"),
        ("tether.readers.fake", "from ..judges import nli\n"),
    ],
)
def test_the_checker_sees_a_forbidden_import(tmp_path: Path, module: str, source: str):
    path = tmp_path / "fake.py"
    path.write_text(source, encoding="utf-8")
    assert forbidden(path, module)


def test_the_checker_passes_an_allowed_import(tmp_path: Path):
    path = tmp_path / "fake.py"
    path.write_text("from ..verify import check\nfrom ..text.terms import stem\nfrom ..records import Hit\n")
    assert forbidden(path, "tether.guard.fake") == []
