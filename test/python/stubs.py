# RUN: %PYTHON %s | FileCheck %s
# The hand-kept .pyi stubs match the modules: every public name of
# mlir_tracking.ir / .passmanager / .rewrite is in the stub and every stub
# name exists; for every class, the public members agree both ways.

import ast
import os

import mlir_tracking
from mlir_tracking import ir, passmanager, rewrite


def run(f):
    print("\nTEST:", f.__name__)
    f()
    return f


ANNOTATED = set()


def stub_names(path):
    tree = ast.parse(open(path).read())
    top, classes = set(), {}
    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            top.add(node.name)
            members = set()
            for item in node.body:
                if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef,
                                     ast.ClassDef)):
                    # Methods, and nested classes (IntegerType.Signedness).
                    members.add(item.name)
                elif isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name):
                    # Annotated attributes may be set on instances or by
                    # subclasses: checked one way only (see check()).
                    members.add(item.target.id)
                    ANNOTATED.add((node.name, item.target.id))
                elif isinstance(item, ast.Assign):
                    members.update(t.id for t in item.targets if isinstance(t, ast.Name))
            classes[node.name] = members
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            top.add(node.name)
        elif isinstance(node, ast.Assign):
            # An alias (`ExternalPass = Pass`).
            top.update(t.id for t in node.targets if isinstance(t, ast.Name))
    return {n for n in top if not n.startswith("_")}, classes


def runtime_members(cls):
    names = set()
    for klass in cls.__mro__:
        if klass.__module__ in ("builtins", "pybind11_builtins", "enum"):
            continue
        names.update(klass.__dict__)
    if hasattr(cls, "__members__"):
        # Enum members are listed; `name`/`value` come with every enum.
        names.update(cls.__members__)
        names -= {"name", "value"}
    return {n for n in names if not n.startswith("_")}


def is_extension_class(cls):
    return cls.__module__.startswith("mlir_tracking._mlirTracking")


def check(module, stub_file):
    path = os.path.join(os.path.dirname(mlir_tracking.__file__), stub_file)
    top, classes = stub_names(path)
    public = {n for n in getattr(module, "__all__", dir(module)) if not n.startswith("_")}
    problems = []
    problems += [f"{n}: in the module, not in {stub_file}" for n in sorted(public - top)]
    problems += [f"{n}: in {stub_file}, not in the module" for n in sorted(top - public)]
    for name in sorted(public & set(classes)):
        cls = getattr(module, name)
        if not isinstance(cls, type):
            continue
        stub_members = {m for m in classes[name] if not m.startswith("_")}
        # Members the stub lists on a base class count for subclasses.
        for base in cls.__mro__[1:]:
            stub_members |= {m for m in classes.get(base.__name__, ()) if not m.startswith("_")}
        actual = runtime_members(cls)
        problems += [f"{name}.{m}: in the module, not in {stub_file}" for m in sorted(actual - stub_members)]
        # Pure-Python classes set instance attributes in __init__: only the
        # extension's classes can be checked this way round.
        if is_extension_class(cls):
            problems += [f"{name}.{m}: in {stub_file}, not in the module"
                         for m in sorted(stub_members - actual)
                         if not any((c, m) in ANNOTATED for c in [name] + [b.__name__ for b in cls.__mro__])]
    return problems


# CHECK-LABEL: TEST: test_ir_stub
# CHECK-NEXT: problems: 0
@run
def test_ir_stub():
    problems = check(ir, "ir.pyi")
    for p in problems:
        print(p)
    print("problems:", len(problems))


# CHECK-LABEL: TEST: test_passmanager_stub
# CHECK-NEXT: problems: 0
@run
def test_passmanager_stub():
    problems = check(passmanager, "passmanager.pyi")
    for p in problems:
        print(p)
    print("problems:", len(problems))


# CHECK-LABEL: TEST: test_rewrite_stub
# CHECK-NEXT: problems: 0
@run
def test_rewrite_stub():
    problems = check(rewrite, "rewrite.pyi")
    for p in problems:
        print(p)
    print("problems:", len(problems))


# A stub that misses a name is reported (the check can fail).
# CHECK-LABEL: TEST: test_check_detects_missing
# CHECK-NEXT: IntegerType.width: in the module, not in the stub
@run
def test_check_detects_missing():
    path = os.path.join(os.path.dirname(mlir_tracking.__file__), "ir.pyi")
    top, classes = stub_names(path)
    classes["IntegerType"].discard("width")
    missing = runtime_members(ir.IntegerType) - classes["IntegerType"] - classes["Type"]
    for m in sorted(missing):
        print(f"IntegerType.{m}: in the module, not in the stub")
