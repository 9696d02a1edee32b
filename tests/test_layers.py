"""The layers of DESIGN.md, checked on every import in the code (top-level and inside
functions): rules (pure) <- vision, synth <- the game at the table <- commands, training, web.
A lower layer never imports a higher one, the web app never imports a command, and the rules
import no OpenCV, NumPy, onnxruntime or Flask."""

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

LAYERS = [
    ("scanner.errors", 0),
    ("scanner.inputs", 0),
    ("scanner.shipped", 0),
    ("scanner.rules", 0),
    ("scanner.vision", 1),
    ("scanner.synth", 1),
    ("scanner.changes", 2),
    ("scanner.corrections", 2),
    ("scanner.events", 2),
    ("scanner.referee", 2),
    ("scanner.record", 2),
    ("scanner.session", 2),
    ("scanner.store", 2),
    ("scanner.training", 3),
    ("scanner.commands", 3),
    ("scanner.cli", 3),
    ("scanner.__main__", 3),
    ("webui", 3),
]
IMPURE = ("cv2", "numpy", "onnxruntime", "flask", "sqlite3", "waitress")


def layer(module: str) -> tuple[str, int] | None:
    found = [(name, n) for name, n in LAYERS if module == name or module.startswith(name + ".")]
    return max(found, key=lambda x: len(x[0])) if found else None


def imports() -> list[tuple[str, str, int]]:
    """(importing module, imported module, line) for every import of scanner or webui code."""
    out = []
    for path in [*ROOT.glob("scanner/**/*.py"), *ROOT.glob("webui/**/*.py")]:
        rel = path.relative_to(ROOT).with_suffix("")
        module = ".".join(rel.parts[:-1] if rel.name == "__init__" else rel.parts)
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
            elif isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            else:
                continue
            for name in names:
                out.append((module, name, node.lineno))
    return out


def violations(found: list[tuple[str, str, int]]) -> list[str]:
    wrong = []
    for src, dst, line in found:
        a, b = layer(src), layer(dst)
        if src.startswith("scanner.rules") and dst.split(".")[0] in IMPURE:
            wrong.append(f"{src}:{line} (the rules) imports {dst}")
        if a is None or b is None:
            continue
        if b[1] > a[1]:
            wrong.append(f"{src}:{line} imports {dst}")
        elif a[0] == "webui" and b[0] in ("scanner.commands", "scanner.cli", "scanner.training"):
            wrong.append(f"{src}:{line} (the web app) imports {dst}")
    return wrong


def test_no_layer_imports_a_higher_one_and_the_rules_are_pure():
    assert violations(imports()) == []


def cycles(found: list[tuple[str, str, int]]) -> list[list[str]]:
    """Groups of modules that import each other, directly or round a loop (Tarjan)."""
    graph: dict[str, set[str]] = {}
    for src, dst, _ in found:
        graph.setdefault(src, set()).add(dst)
    graph = {m: {d for d in ds if d in graph and d != m} for m, ds in graph.items()}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                out.append(sorted(group))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def test_no_modules_import_each_other():
    """Not even from inside a function: a loop means two modules are one, split wrongly."""
    assert cycles(imports()) == []
    assert cycles([("a", "b", 1), ("b", "c", 2), ("c", "a", 3), ("c", "d", 4)]) == [["a", "b", "c"]]


def test_every_module_has_a_layer():
    """A new module outside every layer would escape the check."""
    modules = {src for src, _, _ in imports()}
    assert modules and [m for m in sorted(modules) if layer(m) is None] == []


def test_the_check_sees_the_imports_it_judges():
    found = imports()
    assert ("scanner.session", "scanner.referee", 0) not in found  # lines are real
    assert any(s == "scanner.session" and d == "scanner.referee" for s, d, _ in found)
    assert any(s == "webui.table" and d.startswith("scanner.vision") for s, d, _ in found)
    assert layer("scanner.rules.final.scoring") == ("scanner.rules", 0)
    assert layer("webui.live") == ("webui", 3)
    bad = [
        ("scanner.rules.state", "scanner.vision.layout", 3),
        ("scanner.session", "webui.live", 4),
        ("webui.api", "scanner.commands.vision", 5),
        ("scanner.rules.game", "numpy", 6),
        ("scanner.commands.serve", "webui", 7),  # the command that serves the app: allowed
    ]
    assert len(violations(bad)) == 4


def test_the_architecture_page_lists_every_module_and_no_other():
    """docs/ARCHITECTURE.md's table has one line per module: kept true here."""
    page = (ROOT / "docs" / "ARCHITECTURE.md").read_text(encoding="utf-8")
    listed = set(re.findall(r"^\| `((?:scanner|webui)/[\w/]+\.py)` \|", page, re.M))
    modules = {
        str(p.relative_to(ROOT))
        for p in [*ROOT.glob("scanner/**/*.py"), *ROOT.glob("webui/**/*.py")]
    } - {"scanner/rules/__init__.py", "scanner/vision/__init__.py"}
    assert listed == modules, {"missing": modules - listed, "gone": listed - modules}
