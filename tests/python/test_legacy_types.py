# SPDX-License-Identifier: Apache-2.0
"""Dictionary and null columns of legacy (file format 0.1) datasets, lance_cpp next to
pylance 14.0.2, which wrote them with ``data_storage_version="legacy"``:

  * ``to_table`` and ``take`` give pylance's schema (dictionary columns stay dictionary
    columns, null columns null) and values, nested ones too;
  * a null row of a dictionary column reads as dictionary value 0: the file stores the
    index Arrow had under the null (0) and no validity, in pylance and here alike;
  * where pylance's writer stored indices past the one dictionary it keeps (chunks with
    dictionaries of their own), both fail;
  * ``IS [NOT] NULL`` filters see the nulls pylance sees: a dictionary column's come
    from its values (empty strings), a null column's slots are all null;
  * one knowing difference: an empty value in the dictionary of a non-nullable column.
    pylance reads empty dictionary values as nulls and then fails on its own non-nullable
    column; lance_cpp keeps them empty, as it (and pylance) do for plain strings there.
"""

from __future__ import annotations

import lance
import pyarrow as pa
import pytest


def _same(got: pa.Table, want: pa.Table, what: str) -> None:
    assert got.schema.equals(want.schema, check_metadata=True), \
        f"{what}: schema\n{got.schema}\n--- pylance:\n{want.schema}"
    assert got.to_pylist() == want.to_pylist(), f"{what}: values"


def _write_legacy(table: pa.Table, uri: str, **kwargs) -> None:
    lance.write_dataset(table, uri, data_storage_version="legacy", **kwargs)


def _dictionary_table(n: int = 23) -> pa.Table:
    words = ["apple", "kiwi", None, "fig", "", "kiwi"]
    d = pa.array([words[(i * 5) % len(words)] for i in range(n)]).dictionary_encode()
    holes = pa.DictionaryArray.from_arrays(
        pa.array([(i * 3) % 4 for i in range(n)], pa.int16()),
        pa.array(["p", None, "", "q"]))
    small = pa.DictionaryArray.from_arrays(
        pa.array([i % 3 for i in range(n)], pa.int8()), pa.array([b"\x00", b"z", b""]))
    large = pa.DictionaryArray.from_arrays(
        pa.array([(i * 7) % 2 for i in range(n)], pa.uint32()),
        pa.array(["long" * 5, "x"], pa.large_string()))
    ints = pa.array([None if i % 5 == 2 else (i % 4) * 10 - 15 for i in range(n)],
                    pa.int64()).dictionary_encode()
    u16 = pa.DictionaryArray.from_arrays(
        pa.array([(i * 3) % 5 for i in range(n)], pa.uint8()),
        pa.array([0, 65535, 7, 300, 1], pa.uint16()))
    st = pa.StructArray.from_arrays(
        [pa.array([["u", None, "v"][i % 3] for i in range(n)]).dictionary_encode(),
         pa.array(range(n), pa.int32())], names=["d", "i"])
    lst = pa.array([[["m", "n", "o"][(i + k) % 3] for k in range(i % 4)] for i in range(n)],
                   pa.list_(pa.dictionary(pa.int32(), pa.string())))
    d_nn = pa.array([["r", "s"][i % 2] for i in range(n)]).dictionary_encode()
    schema = pa.schema([
        pa.field("id", pa.int64(), nullable=False), pa.field("d", d.type),
        pa.field("holes", holes.type), pa.field("small", small.type),
        pa.field("large", large.type), pa.field("ints", ints.type),
        pa.field("u16", u16.type), pa.field("st", st.type), pa.field("lst", lst.type),
        pa.field("d_nn", d_nn.type, nullable=False)])
    return pa.Table.from_arrays(
        [pa.array(range(n), pa.int64()), d, holes, small, large, ints, u16, st, lst, d_nn],
        schema=schema)


TAKES = [[0], [22, 0, 5, 5, 13], list(range(23)), [12, 11, 4, 3], [21, 1, 17, 8]]


def test_legacy_dictionary_columns_read_as_pylance(lance_cpp, tmp_path):
    uri = str(tmp_path / "dict.lance")
    # 2 files (12 and 11 rows: pylance fills whole batches) of batches of 4 rows.
    _write_legacy(_dictionary_table(), uri, max_rows_per_group=4, max_rows_per_file=10)
    theirs, ours = lance.dataset(uri), lance_cpp.dataset(uri)
    assert ours.data_storage_version == "0.1"
    assert [f.count_rows() for f in ours.get_fragments()] == [12, 11]
    assert ours.schema.equals(theirs.schema, check_metadata=True)
    want = theirs.to_table()
    assert pa.types.is_dictionary(want.schema.field("d").type)
    _same(ours.to_table(), want, "to_table")
    for columns in (["d"], ["lst", "ints"], ["st", "id"], ["u16", "large", "small"]):
        _same(ours.to_table(columns=columns), theirs.to_table(columns=columns),
              f"to_table({columns})")
    for indices in TAKES:
        _same(ours.take(indices), theirs.take(indices), f"take({indices})")
        _same(ours.take(indices, columns=["holes", "d"]),
              theirs.take(indices, columns=["holes", "d"]), f"take({indices}) projected")


def test_legacy_dictionary_null_rows_read_as_value_0(lance_cpp, tmp_path):
    uri = str(tmp_path / "nulls.lance")
    _write_legacy(pa.table({"x": pa.array(["a", "b", None, "a"]).dictionary_encode()}), uri)
    want = lance.dataset(uri).to_table()
    got = lance_cpp.dataset(uri).to_table()
    _same(got, want, "to_table")
    # Not what was written: the file cannot tell the null row from an "a".
    assert got["x"].to_pylist() == ["a", "b", "a", "a"]
    assert got["x"].null_count == 0
    _same(lance_cpp.dataset(uri).take([2, 1]), lance.dataset(uri).take([2, 1]), "take")


def test_legacy_null_columns_read_as_pylance(lance_cpp, tmp_path):
    uri = str(tmp_path / "null.lance")
    n = 14
    table = pa.table({
        "id": pa.array(range(n), pa.int64()),
        "n": pa.nulls(n),
        "st": pa.StructArray.from_arrays([pa.nulls(n), pa.array(range(n), pa.int32())],
                                         names=["z", "i"]),
        "l": pa.array([[None] * (i % 3) for i in range(n)], pa.list_(pa.null())),
    })
    _write_legacy(table, uri, max_rows_per_group=4, max_rows_per_file=8)
    theirs, ours = lance.dataset(uri), lance_cpp.dataset(uri)
    assert ours.schema.equals(theirs.schema, check_metadata=True)
    _same(ours.to_table(), theirs.to_table(), "to_table")
    _same(ours.to_table(columns=["n"]), theirs.to_table(columns=["n"]), "to_table(n)")
    for indices in ([13, 0, 6, 6], [3], list(range(n))):
        _same(ours.take(indices), theirs.take(indices), f"take({indices})")


def test_legacy_dictionary_indices_past_the_stored_dictionary_fail(lance_cpp, tmp_path):
    # pylance stores the dictionary of the first batch only; the second chunk's index 2
    # ("x") points past it.
    uri = str(tmp_path / "bad.lance")
    chunks = pa.chunked_array([pa.array(["a", "b", None, "a"]).dictionary_encode(),
                               pa.array(["z", "y", "x"]).dictionary_encode()])
    _write_legacy(pa.table({"x": chunks}), uri, max_rows_per_group=4)
    with pytest.raises(Exception, match="dictionary key 2"):
        lance.dataset(uri).to_table()
    with pytest.raises(lance_cpp.LanceError, match="dictionary index 2"):
        lance_cpp.dataset(uri).to_table()
    with pytest.raises(lance_cpp.LanceError, match="dictionary index 2"):
        lance_cpp.dataset(uri).take([6])
    # The rows whose indices fit read alike.
    _same(lance_cpp.dataset(uri).take([5, 0, 2]), lance.dataset(uri).take([5, 0, 2]),
          "take of readable rows")


def test_legacy_non_nullable_dictionary_keeps_empty_values(lance_cpp, tmp_path):
    uri = str(tmp_path / "nn.lance")
    arr = pa.DictionaryArray.from_arrays(pa.array([0, 1, 2, 1], pa.int32()),
                                         pa.array(["x", "", "z"]))
    schema = pa.schema([pa.field("x", arr.type, nullable=False)])
    _write_legacy(pa.Table.from_arrays([arr], schema=schema), uri)
    with pytest.raises(Exception, match="unmasked nulls"):
        lance.dataset(uri).to_table()
    got = lance_cpp.dataset(uri).to_table()
    assert got.schema.equals(lance.dataset(uri).schema)
    assert got["x"].to_pylist() == ["x", "", "z", ""]


@pytest.mark.parametrize("where", ["d IS NULL", "d IS NOT NULL", "holes IS NULL",
                                   "st.d IS NULL", "n IS NULL", "n IS NOT NULL",
                                   "n IS NULL AND holes IS NOT NULL AND id > 3"])
def test_legacy_dictionary_and_null_columns_filter_as_pylance(lance_cpp, tmp_path, where):
    # The nulls of a legacy dictionary column are those of its dictionary values (empty
    # strings); a null column's slots are all null though it has no validity bitmap.
    uri = str(tmp_path / "filter.lance")
    table = _dictionary_table().append_column("n", pa.nulls(23))
    _write_legacy(table, uri, max_rows_per_group=4, max_rows_per_file=10)
    want = lance.dataset(uri).to_table(filter=where)
    _same(lance_cpp.dataset(uri).to_table(filter=where), want, f"filter {where}")
    assert lance_cpp.dataset(uri).count_rows(where) == want.num_rows
