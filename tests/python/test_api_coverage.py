# SPDX-License-Identifier: Apache-2.0
"""docs/python.md's pylance API coverage section is what scripts/python_api_coverage.py
generates from pylance 14.0.2 and the lance_cpp of this build: adding (or losing) a
pylance method without regenerating the section fails here."""

import importlib.util
import os
from pathlib import Path

from conftest import _import_lance_cpp

SOURCE = Path(os.environ.get("LANCE_SOURCE_DIR", Path(__file__).resolve().parents[2]))
SCRIPT = SOURCE / "scripts" / "python_api_coverage.py"
DOC = SOURCE / "docs" / "python.md"


def _script():
    spec = importlib.util.spec_from_file_location("python_api_coverage", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_committed_section_is_what_the_script_generates():
    _import_lance_cpp()
    cov = _script()
    generated = cov.render(cov.collect())
    committed = cov.section_of(DOC.read_text())
    assert committed is not None, f"{DOC} has no API coverage section"
    assert committed == generated, (
        "docs/python.md's API coverage section is out of date: run "
        "scripts/python_api_coverage.py --write")


def test_script_sees_what_exists_and_what_refuses(lance_cpp):
    cov = _script()
    groups = dict(cov.collect())
    rows = {name: (present, reason) for name, present, reason in groups["LanceDataset"]}
    # Present, missing with a reason from the table, missing by pattern.
    assert rows["sample"] == (True, "")
    assert rows["__len__"] == (True, "")
    assert rows["sql"] == (False, "no SQL engine (DataFusion)")
    assert rows["create_index"] == (False, "indices (scalar / vector) are not implemented")
    scanner = {name: (present, reason) for name, present, reason in groups["LanceScanner"]}
    # A method that exists only to refuse counts as missing, with its reason.
    assert scanner["explain_plan"][0] is False
    assert "NotImplementedError" in scanner["explain_plan"][1]
    assert scanner["to_pandas"] == (True, "")
    # Every pylance name is listed once per group.
    import lance

    listed = [name for name, _, _ in groups["LanceDataset"]]
    assert len(listed) == len(set(listed))
    assert {n for n in dir(lance.LanceDataset) if not n.startswith("_")} <= set(listed)


def test_write_replaces_only_the_section(tmp_path, lance_cpp):
    cov = _script()
    doc = tmp_path / "python.md"
    doc.write_text("# title\n\nbefore\n")
    section = cov.render(cov.collect())
    cov.write(doc, section)
    text = doc.read_text()
    assert text.startswith("# title\n\nbefore\n") and cov.section_of(text) == section
    doc.write_text(text.replace("| yes |", "| maybe |", 1) + "after\n")
    assert cov.main(["--check", "--doc", str(doc)]) == 1
    cov.write(doc, section)
    assert cov.main(["--check", "--doc", str(doc)]) == 0
    assert doc.read_text().endswith(cov.END + "\nafter\n")
