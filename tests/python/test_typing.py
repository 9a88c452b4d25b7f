# SPDX-License-Identifier: Apache-2.0
"""The package's type information is where type checkers look for it.

A ``name.pyi`` next to ``name.py`` makes mypy and pyright read the stub and ignore the
module, so annotations in the .py silently stop counting (and the two drift apart). Only
the compiled extension (``_lance_cpp``) has a stub. The public .py modules carry their own
annotations instead; the second test checks that every public function and method of
``lance_cpp.file``, ``lance_cpp.io`` and ``lance_cpp.namespace`` is annotated.
"""

import importlib
import inspect
import os
from pathlib import Path

from conftest import _import_lance_cpp

SOURCE = Path(os.environ.get("LANCE_SOURCE_DIR", Path(__file__).resolve().parents[2]))
PACKAGE = SOURCE / "python" / "lance_cpp"


def shadowing_stubs(package: Path):
    """The .pyi files of `package` that sit next to a .py of the same name."""
    return sorted(p.name for p in package.glob("*.pyi") if p.with_suffix(".py").exists())


def test_no_stub_shadows_a_module(tmp_path):
    assert PACKAGE.is_dir(), PACKAGE
    assert shadowing_stubs(PACKAGE) == []
    # The extension's stub stays: there is no .py for a compiled module.
    assert (PACKAGE / "_lance_cpp.pyi").exists()
    assert (PACKAGE / "py.typed").exists()
    # The check itself finds a shadowing stub.
    (tmp_path / "mod.py").write_text("x: int = 1\n")
    (tmp_path / "mod.pyi").write_text("x: int\n")
    (tmp_path / "_ext.pyi").write_text("y: int\n")
    assert shadowing_stubs(tmp_path) == ["mod.pyi"]


def unannotated(module):
    """'qualname(param)' / 'qualname -> return' for each public function or method of
    `module` (defined in it) with a parameter or return value left unannotated."""
    missing = []

    def check(qualname, fn):
        sig = inspect.signature(fn)
        for name, param in sig.parameters.items():
            if name in ("self", "cls") or name.startswith("_"):
                continue
            if param.annotation is inspect.Parameter.empty:
                missing.append(f"{qualname}({name})")
        if sig.return_annotation is inspect.Signature.empty:
            missing.append(f"{qualname} -> return")

    for name, obj in vars(module).items():
        if name.startswith("_") or getattr(obj, "__module__", None) != module.__name__:
            continue
        if inspect.isfunction(obj):
            check(name, obj)
        elif inspect.isclass(obj):
            for attr, member in vars(obj).items():
                if attr.startswith("_") and attr not in ("__init__", "__enter__", "__exit__"):
                    continue
                if inspect.isfunction(member):
                    check(f"{name}.{attr}", member)
    return missing


def test_public_modules_are_annotated():
    _import_lance_cpp()
    for name in ("lance_cpp.file", "lance_cpp.io", "lance_cpp.namespace"):
        module = importlib.import_module(name)
        assert unannotated(module) == [], name
