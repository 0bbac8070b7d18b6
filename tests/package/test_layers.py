"""The import direction is the architecture: a test over the source (ast), so a wrong import fails CI.

Layers (docs/architecture.md): ``core`` (pure: standard library + numpy) <- ``analysis`` and
``excel`` <- ``udfs`` (the facade xlwings loads); ``batch`` (recalc, safety, xlsxpatch) imports the
core and the Excel layer only (never ``udfs``, hence never xlwings; never templates, formats or the
cli), and its third-party packages inside functions only, so that ``import xlbridge.batch.recalc``
stays cheap; ``templates`` (the template workbooks: the core and the Excel layer's declarations,
openpyxl; never the batch layer, which the cli composes with it); ``formats`` (PBN, USEBIO, the
results site) the core, through the public ``xlbridge`` package or directly; ``cli`` composes every layer but
``udfs``. No module imports another module's private (underscore) name, nor reaches one
through a module attribute.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PKG = Path(__file__).resolve().parents[2] / "xlbridge"

#: Third-party packages that only some layers may use.
OPTIONAL = {"xlwings", "openpyxl", "formulas", "matplotlib", "pandas", "defusedxml", "tqdm", "schedula", "scipy",
            "starlette", "uvicorn", "python_multipart", "multipart", "argon2"}

#: layer (the first part of a module's path under xlbridge/) -> (xlbridge layers it may import,
#: optional packages it may import at module level, optional packages it may import inside functions)
LAYERS = {
    "core": ({"core"}, set(), set()),
    "analysis": ({"core", "analysis"}, set(), {"matplotlib"}),
    "excel": ({"core", "excel"}, set(), {"xlwings", "pythoncom", "win32com"}),
    "udfs": ({"excel"}, set(), set()),
    "templates": ({"core", "excel", "templates"}, {"openpyxl"}, set()),
    "batch": ({"core", "excel", "batch"}, set(), {"openpyxl", "formulas", "schedula", "defusedxml", "tqdm"}),
    # the file formats (PBN, USEBIO, the results site): the core, through the public ``xlbridge``
    # package (layer None) or directly; reading and writing workbooks inside functions only
    "formats": ({None, "core", "formats"}, set(), {"openpyxl", "defusedxml"}),
    # the one command composes every layer but the xlwings facade; heavy packages inside functions
    "cli": ({None, "core", "excel", "batch", "templates", "formats", "analysis", "cli", "serve"}, set(),
            {"openpyxl", "formulas", "defusedxml", "tqdm"}),
    # the club's server (xlbridge serve): runs the command (cli) in processes of its own, the batch layer's
    # guard, the file formats, the core; the Excel functions for Office.js from the facade xlwings loads
    # (xlbridge.udfs) and xlwings' server code, inside functions; only the command line imports it
    "serve": ({None, "core", "batch", "formats", "cli", "serve", "udfs"}, set(),
              {"xlwings", "starlette", "uvicorn", "python_multipart", "argon2"}),
}


def test_nothing_but_the_command_imports_the_server():
    for module, path in MODULES.items():
        if _layer(module) in ("serve", "cli"):
            continue
        for target, name, _top in _imports(module, path):
            assert not target.startswith("xlbridge.serve") and not (target == "xlbridge" and name == "serve"), \
                f"{module} imports the server"


def _modules():
    for path in sorted(PKG.rglob("*.py")):
        rel = path.relative_to(PKG.parent).with_suffix("")
        parts = list(rel.parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        yield ".".join(parts), path


MODULES = dict(_modules())


def _layer(module: str) -> str | None:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else None


def _resolve(module: str, path: Path, node: ast.ImportFrom) -> str:
    if not node.level:
        return node.module or ""
    package = module.split(".") if path.name == "__init__.py" else module.split(".")[:-1]
    base = package[: len(package) - node.level + 1]
    return ".".join(base + ([node.module] if node.module else []))


def _imports(module: str, path: Path):
    """(imported module, imported name or None, at module level?) for every import in the file."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    inside = set()  # inside a function, or under ``if TYPE_CHECKING:`` (never run): not module level
    for fn in ast.walk(tree):
        typing_only = isinstance(fn, ast.If) and isinstance(fn.test, ast.Name) and fn.test.id == "TYPE_CHECKING"
        if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)) or typing_only:
            inside.update(id(n) for n in ast.walk(fn) if n is not fn)
    for node in ast.walk(tree):
        top = id(node) not in inside
        if isinstance(node, ast.Import):
            for a in node.names:
                yield a.name, None, top
        elif isinstance(node, ast.ImportFrom):
            target = _resolve(module, path, node)
            for a in node.names:
                yield target, a.name, top


def test_every_module_is_seen():
    assert "xlbridge.core.contract" in MODULES and "xlbridge.excel.functions" in MODULES and "xlbridge.udfs" in MODULES
    assert "xlbridge.templates.pairs" in MODULES and "xlbridge.templates.styling" in MODULES
    assert "xlbridge.batch.recalc" in MODULES and "xlbridge.batch.guard.safety" in MODULES
    assert all(_layer(m) in LAYERS for m in MODULES if m.startswith(("xlbridge.core", "xlbridge.excel",
                                                                      "xlbridge.analysis", "xlbridge.templates",
                                                                      "xlbridge.batch", "xlbridge.formats",
                                                                      "xlbridge.cli", "xlbridge.serve")))
    assert "xlbridge.cli" in MODULES and "xlbridge.formats.pbn" in MODULES
    assert "xlbridge.serve.app" in MODULES and _layer("xlbridge.serve.app") == "serve"


@pytest.mark.parametrize("module", sorted(m for m in MODULES if _layer(m) in LAYERS))
def test_layer_rules(module):
    allowed, top_ok, lazy_ok = LAYERS[_layer(module)]
    for target, name, top in _imports(module, MODULES[module]):
        root = target.split(".")[0]
        if root == "xlbridge":
            layer = _layer(target) if target != "xlbridge" else None
            if layer is None and name is not None:  # from xlbridge import x: x is the layer
                layer = name if f"xlbridge.{name}" in MODULES else None
            assert layer in allowed, f"{module} imports {target}{'.' + name if name else ''} (layer {layer})"
        elif root in OPTIONAL or root in ("pythoncom", "win32com"):
            assert (root in top_ok) if top else (root in top_ok or root in lazy_ok), \
                f"{module} imports {root} {'at module level' if top else 'inside a function'}"


def test_core_imports_only_the_standard_library_and_numpy():
    import sys

    stdlib = set(sys.stdlib_module_names) | {"__future__"}
    for module, path in MODULES.items():
        if _layer(module) != "core":
            continue
        for target, _, _ in _imports(module, path):
            root = target.split(".")[0]
            assert root in stdlib or root in ("numpy", "xlbridge"), f"{module} imports {target}"


@pytest.mark.parametrize("module", sorted(MODULES))
def test_no_private_name_of_another_module(module):
    path = MODULES[module]
    for target, name, _ in _imports(module, path):
        if target.startswith("xlbridge") and name and name.startswith("_") and not name.startswith("__"):
            assert target == module, f"{module} imports {name} from {target}"
    # nor through an imported module: ``cells._show`` where ``cells`` is another xlbridge module
    tree = ast.parse(path.read_text(encoding="utf-8"))
    modules = {a.asname or a.name for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)
               and _resolve(module, path, n).startswith("xlbridge") for a in n.names
               if f"{_resolve(module, path, n)}.{a.name}" in MODULES}
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in modules:
            assert not (node.attr.startswith("_") and not node.attr.startswith("__")), \
                f"{module} uses {node.value.id}.{node.attr}"


def _graph(modules=None) -> dict:
    """{module: the xlbridge modules it imports}, every import counted (inside functions too: an import
    deferred to dodge a circle is still a circle)."""
    modules = MODULES if modules is None else modules
    graph = {}
    for module, path in modules.items():
        out = set()
        for target, name, _ in _imports(module, path):
            if not target.startswith("xlbridge"):
                continue
            if name is not None and f"{target}.{name}" in modules:  # from package import module
                out.add(f"{target}.{name}")
            elif target in modules:
                out.add(target)
        out.discard(module)
        graph[module] = out
    return graph


def _circles(graph: dict) -> list:
    """The strongly connected groups of more than one module (Tarjan's algorithm, iterative)."""
    index: dict = {}
    low: dict = {}
    stack: list = []
    on_stack: set = set()
    found = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                group = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.append(member)
                    if member == node:
                        break
                if len(group) > 1:
                    found.append(sorted(group))
    return found


def test_no_import_circle_anywhere():
    assert _circles(_graph()) == []


def test_the_circle_check_finds_a_circle(tmp_path):
    # a -> b -> c -> a, the last import deferred into a function: still a circle
    pkg = tmp_path / "xlbridge" / "batch"
    pkg.mkdir(parents=True)
    (pkg / "a.py").write_text("from .b import x\n", encoding="utf-8")
    (pkg / "b.py").write_text("from . import c\n", encoding="utf-8")
    (pkg / "c.py").write_text("def f():\n    from .a import y\n", encoding="utf-8")
    (pkg / "d.py").write_text("from .a import z\n", encoding="utf-8")
    mods = {f"xlbridge.batch.{n}": pkg / f"{n}.py" for n in "abcd"}
    assert _circles(_graph(mods)) == [["xlbridge.batch.a", "xlbridge.batch.b", "xlbridge.batch.c"]]


def test_the_batch_layer_is_four_stages():
    # the command's steps as packages, each saying in its docstring what comes in and what goes out;
    # the words both reading and writing use (cell references, layouts) below both
    for stage in ("guard", "read", "evaluate", "write"):
        doc = ast.get_docstring(ast.parse(MODULES[f"xlbridge.batch.{stage}"].read_text(encoding="utf-8")))
        assert doc and "In:" in doc and "Out:" in doc, stage
    graph = _graph()
    # cells imports no stage at all, the guard included (the guard imports cells: issue 51's circle)
    assert not any(t.startswith("xlbridge.batch.") for t in graph["xlbridge.batch.cells"])
    assert not any(t.startswith("xlbridge.batch.write") for m in MODULES if m.startswith("xlbridge.batch.read")
                   for t in graph[m])


def test_the_rules_catch_a_bad_import(tmp_path):
    # the checks themselves can fail: a core module importing the Excel layer, and a private name
    bad = tmp_path / "xlbridge" / "core" / "bad.py"
    bad.parent.mkdir(parents=True)
    bad.write_text("from ..excel.cells import _scalar\nimport matplotlib\n", encoding="utf-8")
    found = list(_imports("xlbridge.core.bad", bad))
    assert ("xlbridge.excel.cells", "_scalar", True) in found and ("matplotlib", None, True) in found
    allowed, top_ok, _ = LAYERS["core"]
    assert _layer("xlbridge.excel.cells") not in allowed and "matplotlib" not in top_ok
    # the templates may not import the batch layer (the cli composes building and recalculating)
    assert _layer("xlbridge.batch.recalc") not in LAYERS["templates"][0] and "formulas" not in LAYERS["templates"][1]
    # the batch layer may not reach the templates, the formats, the cli nor the xlwings facade
    allowed, top_ok, lazy_ok = LAYERS["batch"]
    assert not allowed & {"templates", "formats", "cli", "udfs"} and "formulas" not in top_ok
    # the formats may not reach the Excel layer, the batch layer, the templates nor the cli
    assert not LAYERS["formats"][0] & {"excel", "batch", "templates", "cli", "udfs"}
    assert "udfs" not in LAYERS["cli"][0]
