# SPDX-License-Identifier: Apache-2.0
"""The `_rowid` column of a scan with row ids, next to real Lance's: same place (last),
same values (row addresses: fragment id << 32 | offset), same field."""

from __future__ import annotations

import lance
import pyarrow as pa

from conftest import read_ipc


def test_row_id_values_and_field_match_real_lance(fixtures_dir, interop, node, session_dir):
    uri = fixtures_dir / "basic_v20_v1names.lance"
    got = interop.read(uri, with_row_id=True)
    py = lance.dataset(str(uri)).to_table(with_row_id=True)
    out = session_dir / "row-ids-node.arrow"
    node.run_ok([{"op": "read", "uri": uri, "out": out, "with_row_id": True}])
    js = read_ipc(out)
    assert got.schema.names[-1] == py.schema.names[-1] == js.schema.names[-1] == "_rowid"
    assert got.column("_rowid").to_pylist() == py.column("_rowid").to_pylist()
    assert got.column("_rowid").to_pylist() == js.column("_rowid").to_pylist()
    # The fixture's second fragment starts at row address 1 << 32 (its row 0 is deleted).
    assert (1 << 32) + 1 in set(got.column("_rowid").to_pylist())
    # Both real Lances declare `_rowid: uint64` nullable.
    assert py.schema.field("_rowid") == js.schema.field("_rowid") == pa.field("_rowid", pa.uint64())
    assert got.schema.field("_rowid") == py.schema.field("_rowid"), (
        f"lance-cpp declares {got.schema.field('_rowid')}, real Lance {py.schema.field('_rowid')}")
