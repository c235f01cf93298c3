"""The direction of imports in server/ (docs/architecture.md): rules <- store <- service <- edge,
no layer importing one above it, and no import cycle anywhere.

Every import counts: the ones inside functions (a lazy import that closes a cycle is still a
cycle) and the ones under `if TYPE_CHECKING:` (a type-only cycle still ties the two modules
together). Read from the AST."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

SERVER = Path(__file__).resolve().parent.parent / "server"

# Lowest first. A module may import its own layer and the ones below it. A new module of
# server/ must be placed here (the test says so).
SHARED = 0  # small helpers every layer may use
RULES = 1  # the pure rules core: commands in, events out
STORE = 2  # the database: events in, snapshots out
SERVICE = 3  # what runs beside the store: fan-out, the timer, views built from the log
EDGE = 4  # HTTP, sockets, their encoding, the app factory and the command line

LAYER_NAMES = {SHARED: "shared", RULES: "rules", STORE: "store", SERVICE: "service", EDGE: "edge"}
# A package of server/ is a layer, named by its folder: a new folder must be placed here (the test
# says so). The root's own modules (the app factory, `python -m server`, gunicorn's settings) are
# the edge.
FOLDERS: dict[str, int] = {
    "core": SHARED,  # settings, coded errors, names, JSON text, library shims, catalogues
    "runtime": SHARED,  # the worker process: collector, heap trim, stall monitor, offload
    "rules": RULES,
    "store": STORE,
    "service": SERVICE,  # the application layer: tables, tournament, Swiss, seats; hub, timer
    "projections": SERVICE,  # the floor, the sheet, the event's public page, read from the log
    "api": EDGE,
    "cli": EDGE,
}
ROOT_MODULES = {"server", "server.__main__", "server.gunicorn_conf"}

# Cycles known and not yet undone, each as its exact set of modules: a new cycle, or another
# module drawn into one of these, fails the test.
KNOWN_CYCLES: list[set[str]] = []


def module_name(path: Path) -> str:
    parts = list(path.relative_to(SERVER.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


MODULES = {module_name(path): path for path in sorted(SERVER.rglob("*.py"))}


def has_layer(module: str) -> bool:
    parts = module.split(".")
    return module in ROOT_MODULES or (len(parts) > 1 and parts[1] in FOLDERS)


def layer_of(module: str) -> int:
    return EDGE if module in ROOT_MODULES else FOLDERS[module.split(".")[1]]


def imports_in(tree: ast.AST, package: str) -> set[str]:
    """The modules of server/ that the code `tree` (of a module in `package`) imports."""
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                target = ".".join([*base, *([node.module] if node.module else [])])
            else:
                target = node.module or ""
            for alias in node.names:
                sub = f"{target}.{alias.name}"
                found.add(sub if sub in MODULES else target)
    return {name for name in found if name in MODULES}


def imports_of(module: str) -> set[str]:
    """The modules of server/ that `module` imports, anywhere in its file."""
    path = MODULES[module]
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return imports_in(tree, package) - {module}


GRAPH = {module: imports_of(module) for module in MODULES}


def cycles(graph: dict[str, set[str]]) -> list[set[str]]:
    """The strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[set[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph[node]):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = set()
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.add(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(component)

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_the_graph_is_read() -> None:
    # The walk must see both kinds of import, or the checks below would pass on nothing.
    assert "server.store.models" in GRAPH["server.store.tournament"]  # `from .models import`
    assert "server.rules.registration" in GRAPH["server.rules.match"]
    assert "server.api.web" in GRAPH["server.api.event_page"]  # inside a function
    assert "server.rules" in GRAPH["server.store.events"]
    assert len(GRAPH) > 40


@pytest.mark.parametrize("module", sorted(MODULES))
def test_every_module_has_a_layer(module: str) -> None:
    assert has_layer(module), (
        f"{module} is in no layer's folder: move it into one, or add its folder to FOLDERS"
    )


@pytest.mark.parametrize("folder", sorted(FOLDERS))
def test_every_layer_folder_says_what_it_holds(folder: str) -> None:
    opening = ast.get_docstring(ast.parse((SERVER / folder / "__init__.py").read_text()))
    assert opening, f"server/{folder}/__init__.py opens with no docstring"


def test_a_module_outside_the_folders_has_no_layer() -> None:
    assert not has_layer("server.loose")
    assert layer_of("server.api.ws") == EDGE and layer_of("server.core.config") == SHARED


def test_no_layer_imports_one_above_it() -> None:
    upward = [
        f"{module} ({LAYER_NAMES[layer_of(module)]}) imports {target} "
        f"({LAYER_NAMES[layer_of(target)]})"
        for module, targets in sorted(GRAPH.items())
        for target in sorted(targets)
        if layer_of(target) > layer_of(module)
    ]
    assert upward == []


def test_no_import_cycle_but_the_known_ones() -> None:
    found = cycles(GRAPH)
    new = [sorted(component) for component in found if component not in KNOWN_CYCLES]
    assert new == [], "import cycles (lazy imports included)"
    gone = [sorted(known) for known in KNOWN_CYCLES if known not in found]
    assert gone == [], "a known cycle is gone: take it out of KNOWN_CYCLES"


def test_a_type_only_import_counts() -> None:
    source = (
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .events import EventStore\n"
    )
    assert imports_in(ast.parse(source), "server.store") == {"server.store.events"}


def test_the_cycle_finder_finds_a_lazy_cycle() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert cycles(graph) == [{"a", "b", "c"}]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_the_system_actor_is_made_once() -> None:
    """`SYSTEM_ACTOR` (server/rules/base.py) is the server's own actor; nothing builds another."""
    made = []
    for module, path in MODULES.items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "Actor":
                args = [*node.args, *(k.value for k in node.keywords if k.arg == "role")]
                if any(isinstance(a, ast.Constant) and a.value == "system" for a in args):
                    made.append(f"{module}:{node.lineno}")
    assert len(made) == 1 and made[0].startswith("server.rules.base:"), made


# -- the edge calls services --------------------------------------------------------------------

EDGE_MODULES = sorted(m for m in MODULES if m in ROOT_MODULES or m.split(".")[1] in ("api", "cli"))
# The application layer's services and the per-app objects built over them: made in the app
# factory (`server/__init__.py`, the one composition root) and nowhere else in server/.
COMPOSED = {
    "Services",
    "TableService",
    "Tournament",
    "SwissService",
    "SeatService",
    "Lists",
    "EventCache",
    "FeedRegistry",
    "Sessions",
    "LoginThrottle",
}


def model_names() -> set[str]:
    """The peewee models of server/store: the classes built on `BaseModel` (or on a model)."""
    bases: dict[str, set[str]] = {}
    for module, path in MODULES.items():
        if module.startswith("server.store"):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.ClassDef):
                    bases[node.name] = {
                        getattr(b, "id", getattr(b, "attr", "")) for b in node.bases
                    }
    found = {"BaseModel"}
    while True:
        more = {name for name, of in bases.items() if of & found} - found
        if not more:
            return found
        found |= more


MODELS = model_names()


def imported_names(module: str) -> set[str]:
    """The names `module` takes from other modules of server/ (`from x import name`)."""
    tree = ast.parse(MODULES[module].read_text(encoding="utf-8"))
    return {
        alias.name
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom)
        and (node.level or (node.module or "").startswith("server"))
        for alias in node.names
    }


def test_the_models_are_read() -> None:
    assert {"TableRow", "SeatRow", "StaffSession", "SwissPlayer", "TournamentEvent"} <= MODELS
    assert "EventStore" not in MODELS


def test_the_edge_never_imports_the_store() -> None:
    """server/api, server/cli and the root's modules call services; none imports a module of
    server/store (lazily or for a type either)."""
    assert len(EDGE_MODULES) > 30
    reached = [
        f"{module} imports {target}"
        for module in EDGE_MODULES
        for target in sorted(GRAPH[module])
        if target == "server.store" or target.startswith("server.store.")
    ]
    assert reached == []


def test_the_edge_imports_no_model() -> None:
    """Not even through a service's module: the edge gets rows' data from services."""
    found = [
        f"{module}: {name}"
        for module in EDGE_MODULES
        for name in sorted(imported_names(module) & MODELS)
    ]
    assert found == []


def test_the_services_are_built_only_in_the_app_factory() -> None:
    made: list[str] = []
    for module, path in MODULES.items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call):
                name = getattr(node.func, "id", None) or getattr(node.func, "attr", None)
                if name in COMPOSED:
                    made.append(f"{module}:{node.lineno} {name}")
    elsewhere = [m for m in made if not m.startswith("server:")]
    assert elsewhere == []
    # The root builds each of them (the check above would pass on a renamed class otherwise).
    assert {m.split(" ")[1] for m in made} == COMPOSED


def test_no_view_finds_a_service_by_its_own_extension_key() -> None:
    """One `app.extensions["duel_table"]` holds the `Services`; no `duel_table_*` key is set
    or read in an order that matters."""
    keys: list[str] = []
    for module, path in MODULES.items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            target = None
            if isinstance(node, ast.Subscript) and getattr(node.value, "attr", "") == "extensions":
                target = node.slice
            elif (
                isinstance(node, ast.Call)
                and getattr(node.func, "attr", "") in ("get", "setdefault")
                and getattr(node.func.value, "attr", "") == "extensions"  # type: ignore[attr-defined]
                and node.args
            ):
                target = node.args[0]
            if isinstance(target, ast.Constant) and str(target.value).startswith("duel_table"):
                keys.append(f"{module}:{node.lineno} {target.value}")
    assert keys and all(k.endswith(" duel_table") for k in keys), keys


def test_the_edge_reads_tables_through_the_table_service_not_its_store() -> None:
    """No view reaches past a service to the store under it (`services().store`,
    `self.tables.store`): the edge's reads are the table service's read methods. Only the
    composition root holds the store, to build the services over it."""
    reached = [
        f"{module}:{node.lineno}"
        for module in EDGE_MODULES
        if module not in ROOT_MODULES
        for node in ast.walk(ast.parse(MODULES[module].read_text(encoding="utf-8")))
        if isinstance(node, ast.Attribute) and node.attr == "store"
    ]
    assert reached == []


# -- the services ask repositories ----------------------------------------------------------------

APPLICATION_MODULES = sorted(
    m for m in MODULES if m.split(".")[1:2] in (["service"], ["projections"])
)
# `service/storage.py` opens the database for the app and the scripts (`bind`, `db`, the
# migrations): it is the one module of the layer that stands on the store's database handle.
OPENS_THE_DATABASE = {"server.service.storage"}


def third_party_imports(module: str) -> set[str]:
    """The top-level packages outside server/ that `module` imports, anywhere in its file."""
    tree = ast.parse(MODULES[module].read_text(encoding="utf-8"))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            found.add(node.module.split(".")[0])
    return found


def test_the_application_layer_imports_neither_peewee_nor_a_model() -> None:
    """server/service and server/projections ask the store's repositories (`TournamentRows`,
    `SwissRows`, `EventStore`); none runs a query itself: no peewee, no model by name, not
    the database (`db`) (the one module that opens the database aside)."""
    assert "server.service.tournament" in APPLICATION_MODULES
    assert "server.projections.event" in APPLICATION_MODULES
    found = [
        f"{module}: {name}"
        for module in APPLICATION_MODULES
        if module not in OPENS_THE_DATABASE
        for name in sorted(
            (imported_names(module) & (MODELS | {"db"}))
            | ({"peewee"} & third_party_imports(module))
        )
    ]
    assert found == []


def test_the_application_layer_check_sees_a_model_and_peewee() -> None:
    # The check above would pass on nothing if it could not see either kind of import.
    assert "TableRow" in imported_names("server.store.events") & MODELS
    assert "peewee" in third_party_imports("server.store.tournament")
    assert "peewee" not in third_party_imports("server.service.swiss")
