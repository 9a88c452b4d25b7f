# SPDX-License-Identifier: Apache-2.0
"""The table layer on file formats 2.1 / 2.2, lance_cpp next to pylance 14.0.2:

  * nested field projection: ``to_table(columns=["s.a"])``, scanners, filters on nested
    fields, ``take`` and ``LanceFragment.take`` give exactly what pylance gives (names,
    types, nullability, metadata, values), errors where pylance errs;
  * commits planned against an older version (a stale ``LanceDataset.commit`` of an Append,
    a stale ``delete``) over every kind of transaction pylance writes: lance_cpp rebases
    where pylance does, conflicts where pylance does, and the data read afterwards is the
    same; the regression of an append after pylance appended to an empty lance_cpp dataset;
  * appends keep the dataset's file version; datasets pylance made of mixed 2.x file
    versions read and append; legacy datasets read but refuse appends.
"""

from __future__ import annotations

import shutil
from typing import Any, Callable, Dict, List

import lance
import pyarrow as pa
import pytest
from lance.fragment import write_fragments as py_write_fragments


def _rows(a: int, b: int) -> pa.Table:
    return pa.table({"x": pa.array(range(a, b), pa.int64()),
                     "name": pa.array([f"n{i}" for i in range(a, b)], pa.string())})


def _data_file_versions(uri: str) -> List[str]:
    return [f"{f.file_major_version}.{f.file_minor_version}"
            for frag in lance.dataset(uri).get_fragments() for f in frag.data_files()]


def _same(got: pa.Table, want: pa.Table, what: str) -> None:
    assert got.schema.equals(want.schema, check_metadata=True), \
        f"{what}: schema\n{got.schema}\n--- pylance:\n{want.schema}"
    assert got.to_pylist() == want.to_pylist(), f"{what}: values"


# -- nested field projection -------------------------------------------------------------

STRUCT = pa.struct([pa.field("a", pa.int32(), nullable=False), pa.field("b", pa.string()),
                    pa.field("c", pa.struct([pa.field("d", pa.int64())]))])
ITEM = pa.struct([pa.field("x", pa.int32()), pa.field("y", pa.string())])
NESTED_SCHEMA = pa.schema([
    pa.field("id", pa.int64(), nullable=False),
    pa.field("s", STRUCT, metadata={"k": "v"}),
    pa.field("t", pa.struct([pa.field("a", pa.int32(), nullable=False,
                                      metadata={"m": "1"})]), nullable=False),
    pa.field("l", pa.list_(pa.field("item", ITEM))),
], metadata={"sm": "x"})


def _nested_table(n: int = 9) -> pa.Table:
    s = [None if i % 4 == 2 else
         {"a": 10 * i, "b": None if i % 3 == 1 else f"b{i}",
          "c": None if i % 5 == 1 else {"d": None if i % 4 == 3 else (i * 7919) % 1009}}
         for i in range(n)]
    return pa.table({"id": list(range(n)), "s": s, "t": [{"a": -i} for i in range(n)],
                     "l": [None if i == 4 else [{"x": i, "y": "y"}] * (i % 3)
                           for i in range(n)]}, schema=NESTED_SCHEMA)


@pytest.fixture(params=["pylance-2.1", "pylance-2.2", "lance_cpp-2.1", "lance_cpp-2.2"])
def nested(request, lance_cpp, tmp_path):
    """(pylance's dataset, lance_cpp's dataset) of the nested table in 3 fragments: the
    same pylance-written files, or lance_cpp reading its own files next to pylance reading
    its own (pylance projects "s.a" as the struct's raw child, so on lance_cpp's files,
    whose non-nullable leaves under null structs carry placeholders rather than nulls, it
    would report the placeholders)."""
    writer, version = request.param.split("-")
    theirs = str(tmp_path / "pylance.lance")
    lance.write_dataset(_nested_table(), theirs, data_storage_version=version,
                        max_rows_per_file=3)
    ours = theirs
    if writer == "lance_cpp":
        ours = str(tmp_path / "lance_cpp.lance")
        lance_cpp.write_dataset(_nested_table(), ours, data_storage_version=version,
                                max_rows_per_file=3)
    return lance.dataset(theirs), lance_cpp.dataset(ours)


PROJECTIONS = [["s.a"], ["s.b", "id"], ["s", "s.a"], ["s.a", "s"], ["s.c.d"], ["s.c"],
               ["s.c", "s.c.d"], ["id", "s.c.d", "s.b"], ["t.a"], ["t.a", "s.a", "id"],
               ["s.zz"], ["l.item"], ["l.item.x"], ["s.a", "s.a"], ["nope.a"], ["s.a.b"]]


def _outcome(f: Callable[[], pa.Table]):
    try:
        return f()
    except (KeyboardInterrupt, SystemExit):
        raise
    except BaseException as e:  # pylance panics on some (a pyo3 BaseException)
        return e


def _check(what: str, theirs: Callable[[], pa.Table], ours: Callable[[], pa.Table]):
    want, got = _outcome(theirs), _outcome(ours)
    if isinstance(want, BaseException):
        assert isinstance(got, Exception), f"{what}: pylance raised {want!r}, lance_cpp gave " \
                                           f"{got}"
        return
    assert not isinstance(got, BaseException), f"{what}: lance_cpp raised {got!r}"
    _same(got, want, what)


@pytest.mark.parametrize("columns", PROJECTIONS, ids=lambda c: ",".join(c))
def test_nested_projection_as_pylance(nested, columns):
    theirs, ours = nested
    _check(f"to_table({columns})", lambda: theirs.to_table(columns=columns),
           lambda: ours.to_table(columns=columns))
    _check(f"scanner({columns}, filter, row id)",
           lambda: theirs.scanner(columns=columns, filter="id >= 2", with_row_id=True,
                                  limit=4, offset=1).to_table(),
           lambda: ours.scanner(columns=columns, filter="id >= 2", with_row_id=True,
                                limit=4, offset=1).to_table())
    if columns not in (["s.zz"],):  # pylance panics taking a missing nested field
        for indices in ([7, 0, 2, 2, 5], [0, 1, 5, 8]):  # unsorted: no schema metadata
            _check(f"take({indices}, {columns})",
                   lambda: theirs.take(indices, columns=columns),
                   lambda: ours.take(indices, columns=columns))
    for mine, frag in zip(ours.get_fragments(), theirs.get_fragments()):
        if columns not in (["s.zz"],):  # pylance gives `s: struct<>` of nulls there
            _check(f"fragment {frag.fragment_id} take({columns})",
                   lambda: frag.take([0, 2, 2], columns=columns),
                   lambda: mine.take([0, 2, 2], columns=columns))
        _check(f"fragment {frag.fragment_id} to_table({columns})",
               lambda: frag.to_table(columns=columns), lambda: mine.to_table(columns=columns))


@pytest.mark.parametrize("flt", ["s.a > 30", "s.c.d = 400", "s.b IS NULL", "s IS NULL",
                                 "t.a < -3 AND s.c IS NOT NULL", "s.zz > 1"])
def test_filters_on_nested_fields(nested, flt):
    theirs, ours = nested
    for columns in (None, ["id", "s.a"]):
        _check(f"to_table({columns}, filter={flt!r})",
               lambda: theirs.to_table(columns=columns, filter=flt),
               lambda: ours.to_table(columns=columns, filter=flt))
    want = _outcome(lambda: theirs.count_rows(filter=flt))
    got = _outcome(lambda: ours.count_rows(filter=flt))
    assert isinstance(got, BaseException) == isinstance(want, BaseException), (want, got)
    if not isinstance(want, BaseException):
        assert got == want


def test_nested_projection_in_the_cli(lance_cpp, tmp_path):
    import json
    import os
    import subprocess
    from pathlib import Path

    build = Path(os.environ.get("LANCE_PYTHON_BUILD_DIR", "build/python")).parent
    cli = build / "cli" / "lance-cpp"
    if not cli.exists():
        pytest.fail(f"lance-cpp not found at {cli} (build it: ninja lance-cpp)")
    uri = str(tmp_path / "nested.lance")
    lance_cpp.write_dataset(_nested_table(), uri)
    out = subprocess.run([str(cli), "scan", uri, "--columns", "id,s.c.d", "--format", "jsonl",
                          "--limit", "4"], capture_output=True, text=True, check=True).stdout
    want = lance.dataset(uri).to_table(columns=["id", "s.c.d"], limit=4).to_pylist()
    assert [json.loads(line) for line in out.splitlines()] == want
    out = subprocess.run([str(cli), "take", uri, "--rows", "3,0", "--columns", "s.a",
                          "--format", "jsonl"], capture_output=True, text=True,
                         check=True).stdout
    assert [json.loads(line) for line in out.splitlines()] == \
        lance.dataset(uri).take([3, 0], columns=["s.a"]).to_pylist()
    bad = subprocess.run([str(cli), "scan", uri, "--columns", "s.zz"], capture_output=True,
                         text=True)
    assert bad.returncode != 0 and "zz" in bad.stderr


# -- commits over every transaction pylance writes ---------------------------------------

# Operations of pylance 14 on a dataset of x = 0..9 in fragments of 3 rows (transaction
# kind in the comment).
PYLANCE_OPS: Dict[str, Callable[[Any], Any]] = {
    "append": lambda ds: lance.write_dataset(_rows(100, 103), ds.uri, mode="append"),
    "append_empty": lambda ds: lance.write_dataset(_rows(0, 0), ds.uri, mode="append"),
    "delete_first_fragment": lambda ds: ds.delete("x = 1"),  # Delete of fragment 0
    "delete_other_fragment": lambda ds: ds.delete("x = 7"),
    "overwrite": lambda ds: lance.write_dataset(_rows(50, 52), ds.uri, mode="overwrite"),
    "create_index": lambda ds: ds.create_scalar_index("x", "BTREE"),  # CreateIndex
    "compact": lambda ds: ds.optimize.compact_files(target_rows_per_fragment=1000),  # Rewrite
    "add_columns": lambda ds: ds.add_columns({"y": "x * 2"}),  # Merge
    "drop_columns": lambda ds: ds.drop_columns(["name"]),  # Project
    "rename": lambda ds: ds.alter_columns({"path": "name", "name": "label"}),  # Project
    "update": lambda ds: ds.update({"name": "'u'"}, where="x = 1"),  # Update
    "merge_insert": lambda ds: ds.merge_insert("x").when_matched_update_all()
    .when_not_matched_insert_all().execute(_rows(8, 12)),  # Update
    "restore": lambda ds: lance.dataset(ds.uri, version=1).restore(),  # Restore
    "update_config": lambda ds: ds.update_config({"k": "v"}),  # UpdateConfig
    "schema_metadata": lambda ds: ds.update_schema_metadata({"k": "v"}),  # UpdateConfig
}


@pytest.mark.parametrize("op", list(PYLANCE_OPS))
def test_stale_commits_over_every_pylance_operation(lance_cpp, tmp_path, op):
    """Both implementations commit an Append (fragments written before pylance's
    operation) and a delete planned against the version before it: lance_cpp must
    succeed exactly where pylance does (then read the same rows), and otherwise raise a
    Conflict (never "cannot apply ... transaction")."""
    outcome = {}
    for who, mod in (("pylance", lance), ("lance_cpp", lance_cpp)):
        uri = str(tmp_path / f"{who}.lance")
        lance_cpp.write_dataset(_rows(0, 10), uri, max_rows_per_file=3)
        if who == "pylance":
            frags = py_write_fragments(_rows(200, 202), uri)
        else:
            frags = lance_cpp.fragment.write_fragments(_rows(200, 202), uri)
        stale = mod.dataset(uri)
        PYLANCE_OPS[op](lance.dataset(uri))
        try:
            mod.LanceDataset.commit(uri, mod.LanceOperation.Append(frags), read_version=1)
            appended = "ok"
        except Exception as e:
            appended = e
        try:
            stale.delete("x = 2")
            deleted = "ok"
        except Exception as e:
            deleted = e
        table = lance.dataset(uri).to_table()
        outcome[who] = (appended, deleted, table.sort_by(table.column_names[0]))
    theirs, ours = outcome["pylance"], outcome["lance_cpp"]
    for what, want, got in (("append", theirs[0], ours[0]), ("delete", theirs[1], ours[1])):
        if want == "ok":
            assert got == "ok", f"stale {what} over pylance's {op}: lance_cpp raised {got!r}"
        else:
            assert isinstance(got, lance_cpp.LanceError) and "Conflict" in str(got), \
                f"stale {what} over pylance's {op}: pylance raised {want!r}, lance_cpp " \
                f"gave {got!r}"
    assert ours[2].equals(theirs[2]), f"after {op}:\n{ours[2]}\n--- pylance:\n{theirs[2]}"
    # And lance_cpp reads what it made, as pylance does.
    assert lance_cpp.dataset(str(tmp_path / "lance_cpp.lance")).to_table() \
        .sort_by(ours[2].column_names[0]).equals(ours[2])


def test_append_after_pylance_appended_to_an_empty_dataset(lance_cpp, tmp_path):
    """The regression: lance_cpp writes an empty dataset, pylance appends (nothing, then
    rows), lance_cpp appends (nothing, then rows), also through a commit planned before
    all of them; both read the same."""
    uri = str(tmp_path / "empty.lance")
    lance_cpp.write_dataset(_rows(0, 0), uri)
    lance.write_dataset(_rows(0, 0), uri, mode="append")
    lance.write_dataset(_rows(0, 3), uri, mode="append")
    frags = lance_cpp.fragment.write_fragments(_rows(10, 12), uri)
    lance_cpp.write_dataset(_rows(0, 0), uri, mode="append")
    ds = lance_cpp.write_dataset(_rows(3, 5), uri, mode="append")
    assert ds.version == 5
    ds = lance_cpp.LanceDataset.commit(uri, lance_cpp.LanceOperation.Append(frags),
                                       read_version=1)
    assert ds.version == 6
    lance.write_dataset(_rows(5, 6), uri, mode="append")
    want = lance.dataset(uri).to_table()
    assert sorted(want["x"].to_pylist()) == [0, 1, 2, 3, 4, 5, 10, 11]
    assert lance_cpp.dataset(uri).to_table().equals(want)
    kinds = [type(t.operation).__name__ for t in lance.dataset(uri).get_transactions(7)]
    assert kinds == ["Append"] * 6 + ["Overwrite"], kinds


# -- storage versions of appends ---------------------------------------------------------

@pytest.mark.parametrize("version", ["2.0", "2.1", "2.2"])
def test_appends_keep_the_datasets_version(lance_cpp, tmp_path, version):
    uri = str(tmp_path / "t.lance")
    lance_cpp.write_dataset(_rows(0, 3), uri, data_storage_version=version)
    for asked in ("2.0", "2.1", "2.2", None):
        lance_cpp.write_dataset(_rows(3, 4), uri, mode="append", data_storage_version=asked)
    lance.write_dataset(_rows(4, 5), uri, mode="append")  # pylance keeps it too
    frags = lance_cpp.fragment.write_fragments(_rows(5, 6), uri, data_storage_version="2.2")
    lance_cpp.LanceDataset.commit(uri, lance_cpp.LanceOperation.Append(frags),
                                  read_version=lance_cpp.dataset(uri).version)
    assert _data_file_versions(uri) == [version] * 7
    theirs = lance.dataset(uri)
    assert theirs.data_storage_version == version
    ours = lance_cpp.dataset(uri)
    assert ours.data_storage_version == version
    assert ours.to_table().equals(theirs.to_table())
    assert ours.to_table()["x"].to_pylist() == [0, 1, 2, 3, 3, 3, 3, 4, 5]


@pytest.mark.parametrize("other", ["2.1", "2.0"])
def test_datasets_pylance_made_of_mixed_versions(lance_cpp, tmp_path, other):
    """pylance appends files of the version it is asked for (and sets the paired manifest
    flag 256, "mixed data-file versions"): lance_cpp reads, takes, deletes and appends
    (in the dataset's own version); pylance reads the result."""
    uri = str(tmp_path / "mixed.lance")
    lance.write_dataset(_rows(0, 4), uri, data_storage_version="2.2")
    lance.write_dataset(_rows(4, 7), uri, mode="append", data_storage_version=other)
    assert _data_file_versions(uri) == ["2.2", other]
    ours = lance_cpp.dataset(uri)
    assert ours.data_storage_version == "2.2"
    assert ours.to_table().equals(lance.dataset(uri).to_table())
    _same(ours.take([6, 0, 4]), lance.dataset(uri).take([6, 0, 4]), "take")
    ours.delete("x = 5")
    lance_cpp.write_dataset(_rows(7, 9), uri, mode="append")
    assert _data_file_versions(uri) == ["2.2", other, "2.2"]
    theirs = lance.dataset(uri)
    assert theirs.to_table()["x"].to_pylist() == [0, 1, 2, 3, 4, 6, 7, 8]
    assert lance_cpp.dataset(uri).to_table().equals(theirs.to_table())
    lance.write_dataset(_rows(9, 10), uri, mode="append")
    assert lance_cpp.dataset(uri).count_rows() == 9


def test_legacy_datasets_are_read_not_appended(lance_cpp, tmp_path):
    uri = str(tmp_path / "legacy.lance")
    lance.write_dataset(_rows(0, 5), uri, data_storage_version="legacy")
    ours = lance_cpp.dataset(uri)
    assert ours.data_storage_version == "0.1"
    assert ours.to_table().equals(lance.dataset(uri).to_table())
    with pytest.raises(NotImplementedError, match="legacy"):
        lance_cpp.write_dataset(_rows(5, 6), uri, mode="append")
    assert lance.dataset(uri).version == 1
    # Deletes only write deletion files: allowed, and pylance reads them.
    ours.delete("x = 0")
    assert lance.dataset(uri).to_table()["x"].to_pylist() == [1, 2, 3, 4]
    # Overwriting makes it a 2.2 dataset.
    lance_cpp.write_dataset(_rows(0, 2), uri, mode="overwrite")
    assert lance.dataset(uri).data_storage_version == "2.2"


# -- take past the end --------------------------------------------------------------------

@pytest.mark.parametrize("indices", [[4, 0, 99], [7, 2, 5, 1000], [9, 3]])
def test_take_drops_positions_past_the_end_as_pylance(lance_cpp, tmp_path, indices):
    """pylance 14 drops take positions past the last row when at least one is valid; code
    written for it relies on that."""
    uri = str(tmp_path / "t.lance")
    lance.write_dataset(_rows(0, 8), uri)
    want = lance.dataset(uri).take(indices)
    got = lance_cpp.dataset(uri).take(indices)
    assert got.num_rows == len([i for i in indices if i < 8])
    _same(got, want, f"take({indices})")


def test_take_of_only_positions_past_the_end_fails_as_pylance(lance_cpp, tmp_path):
    uri = str(tmp_path / "t.lance")
    lance.write_dataset(_rows(0, 8), uri)
    with pytest.raises(OSError, match="non-existent fragment"):
        lance.dataset(uri).take([99])
    with pytest.raises(lance_cpp.LanceError, match="99"):
        lance_cpp.dataset(uri).take([99])


# -- blob columns -------------------------------------------------------------------------

@pytest.mark.parametrize("version", ["2.1", "2.2"])
def test_blob_columns_are_refused_and_the_others_read(lance_cpp, tmp_path, version):
    """pylance's blob columns (`lance-encoding:blob`; blob v2 in 2.2, with sidecar files for
    large values) are not read here: projecting one is NotImplemented naming it, never wrong
    data; every other column of such a table reads, scans and takes as in pylance."""
    uri = str(tmp_path / "blob.lance")
    schema = pa.schema([pa.field("id", pa.int64()),
                        pa.field("b", pa.large_binary(),
                                 metadata={"lance-encoding:blob": "true"})])
    table = pa.table({"id": [1, 2, 3, 4],
                      "b": [b"abc", None, b"x" * 100_000, b""]}, schema=schema)
    lance.write_dataset(table, uri, data_storage_version=version)
    want = lance.dataset(uri)
    got = lance_cpp.dataset(uri)
    assert got.count_rows() == 4
    _same(got.to_table(columns=["id"]), want.to_table(columns=["id"]), "scan id")
    _same(got.to_table(columns=["id"], filter="id > 1"),
          want.to_table(columns=["id"], filter="id > 1"), "filtered scan id")
    _same(got.take([3, 0], columns=["id"]), want.take([3, 0], columns=["id"]), "take id")
    with pytest.raises(NotImplementedError, match="blob"):
        got.to_table()
    with pytest.raises(NotImplementedError, match="blob"):
        got.take([0])


# -- empty structs --------------------------------------------------------------------------

@pytest.mark.parametrize("version", ["2.1", "2.2"])
def test_empty_structs_as_pylance(lance_cpp, tmp_path, version):
    """An empty struct column: Lance stores it as an all-null page that says nothing about
    validity; both read pylance's and ours as valid rows. With nulls or inside a list both
    refuse to write it (the nulls would be lost)."""
    table = pa.table({"id": [1, 2, 3], "e": pa.array([{}, {}, {}], pa.struct([]))})
    theirs, ours = str(tmp_path / "theirs.lance"), str(tmp_path / "ours.lance")
    lance.write_dataset(table, theirs, data_storage_version=version)
    lance_cpp.write_dataset(table, ours, data_storage_version=version)
    for uri in (theirs, ours):
        want = lance.dataset(uri).to_table()
        assert want["e"].to_pylist() == [{}, {}, {}]
        _same(lance_cpp.dataset(uri).to_table(), want, f"scan {uri}")
        _same(lance_cpp.dataset(uri).take([2, 0]), lance.dataset(uri).take([2, 0]),
              f"take {uri}")
    refused = [
        pa.table({"e": pa.array([{}, None, {}], pa.struct([]))}),
        pa.table({"e": pa.array([[{}], []], pa.list_(pa.struct([])))}),
    ]
    for i, bad in enumerate(refused):
        with pytest.raises(OSError, match="[Ee]mpty struct"):
            lance.write_dataset(bad, str(tmp_path / f"p{i}.lance"), data_storage_version=version)
        with pytest.raises(NotImplementedError, match="empty struct"):
            lance_cpp.write_dataset(bad, str(tmp_path / f"c{i}.lance"),
                                    data_storage_version=version)
