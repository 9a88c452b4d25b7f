# SPDX-License-Identifier: Apache-2.0
"""The file-format-2.0 fixtures real Lance 8.0.0 wrote (tests/data/lance-8.0.0) read by
lance-cpp equal to what real Lance read from them (the *.expected.json files, dumped by
LanceDB-node), and equal to pylance's reading of the same versions."""

from __future__ import annotations

import json

import lance
import pyarrow as pa
import pytest

from conftest import assert_tables_equal

V20_FIXTURES = ["basic_v20_v1names", "basic_v20_v2names", "wide_v20"]


def js_type_name(t: pa.DataType) -> str:
    """apache-arrow (JS)'s String(type), as the expected JSON records it."""
    simple = {
        pa.bool_(): "Bool", pa.int8(): "Int8", pa.int16(): "Int16", pa.int32(): "Int32",
        pa.int64(): "Int64", pa.uint8(): "Uint8", pa.uint16(): "Uint16",
        pa.uint32(): "Uint32", pa.uint64(): "Uint64", pa.float16(): "Float16",
        pa.float32(): "Float32", pa.float64(): "Float64", pa.utf8(): "Utf8",
        pa.binary(): "Binary", pa.large_utf8(): "LargeUtf8", pa.large_binary(): "LargeBinary",
    }
    if t in simple:
        return simple[t]
    if pa.types.is_fixed_size_list(t):
        return f"FixedSizeList[{t.list_size}]<{js_type_name(t.value_type)}>"
    if pa.types.is_list(t):
        return f"List<{js_type_name(t.value_type)}>"
    if pa.types.is_struct(t):
        return "Struct<{" + ", ".join(f"{f.name}:{js_type_name(f.type)}" for f in t) + "}>"
    raise AssertionError(f"no JS name for {t}")


def js_value(value, t: pa.DataType):
    """A Python value of type t as dumpexpected.cjs wrote it to JSON."""
    if value is None:
        return None
    if t in (pa.int64(), pa.uint64()):
        return str(value)
    if pa.types.is_binary(t) or pa.types.is_large_binary(t) or pa.types.is_fixed_size_binary(t):
        return value.hex()
    if pa.types.is_list(t) or pa.types.is_large_list(t) or pa.types.is_fixed_size_list(t):
        return [js_value(v, t.value_type) for v in value]
    if pa.types.is_struct(t):
        return {f.name: js_value(value[f.name], f.type) for f in t}
    return value


@pytest.fixture(scope="module", params=V20_FIXTURES)
def fixture(request, fixtures_dir):
    name = request.param
    expected = json.loads((fixtures_dir / f"{name}.expected.json").read_text())
    return name, fixtures_dir / f"{name}.lance", expected


def test_reads_equal_to_expected_json(fixture, interop):
    name, uri, expected = fixture
    table = interop.read(uri, with_row_id=True)
    # Schema: names, JS type names and nullability, then the _rowid column.
    fields = [f for f in table.schema if f.name != "_rowid"]
    got_schema = [{"name": f.name, "type": js_type_name(f.type), "nullable": f.nullable}
                  for f in fields]
    assert got_schema == expected["schema"]
    assert table.schema.names[-1] == "_rowid"
    assert table.schema.field("_rowid").type == pa.uint64()
    assert table.num_rows == expected["count_rows"] == len(expected["rows"])
    types = {f.name: f.type for f in table.schema}
    got_rows = [{k: js_value(v, types[k]) for k, v in row.items()} for row in table.to_pylist()]
    # Same order as real Lance's scan (fragment order, then row order).
    for i, (got, want) in enumerate(zip(got_rows, expected["rows"])):
        assert got == want, f"{name}: row {i} differs"


def test_count_and_version(fixture, interop):
    name, uri, expected = fixture
    assert interop.count(uri) == expected["count_rows"]
    info = interop.info(uri)
    assert info["version"] == expected["version"]
    assert info["data_storage_version"] == "2.0"
    versions = interop.versions(uri)
    want = [v["version"] for v in lance.dataset(str(uri)).versions()]
    assert [v["version"] for v in versions] == want


FILTERS = {
    "basic": ["i32 > 500", "s IS NULL", "i32 >= 100 AND i32 < 1250 AND b = TRUE",
              "cat IN ('cat1', 'cat3')", "ni IS NOT NULL OR f32 < 10.0", "st.x > 600"],
    "wide": ["id >= 50", "doc IS NULL", "id IN (1, 5, 99, 1000)"],
}


def test_filters_match_pylance(fixture, interop):
    name, uri, _ = fixture
    ds = lance.dataset(str(uri))
    for predicate in FILTERS[name.split("_")[0]]:
        assert interop.count(uri, filter=predicate) == ds.count_rows(filter=predicate), predicate
        got = interop.read(uri, filter=predicate, with_row_id=True)
        want = ds.to_table(filter=predicate, with_row_id=True)
        assert_tables_equal(got, want, key="_rowid", what=predicate)


def test_every_version_matches_pylance(fixture, interop):
    name, uri, expected = fixture
    for version in range(1, expected["version"] + 1):
        got = interop.read(uri, version=version, with_row_id=True)
        want = lance.dataset(str(uri), version=version).to_table(with_row_id=True)
        assert_tables_equal(got, want, key="_rowid", what=f"version {version}")
        assert interop.count(uri, version=version) == want.num_rows


def test_projection_matches_pylance(fixture, interop):
    name, uri, _ = fixture
    ds = lance.dataset(str(uri))
    names = ds.schema.names
    columns = [names[-1], names[0]] if len(names) > 1 else names
    got = interop.read(uri, columns=columns)
    want = ds.to_table(columns=columns)
    assert got.schema.names == columns
    assert got.equals(want), "projection differs"
