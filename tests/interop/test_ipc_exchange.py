# SPDX-License-Identifier: Apache-2.0
"""The Arrow IPC files lance-interop exchanges with pyarrow: compressed output, and
compressed, multi-batch input (lance-cpp's IPC reader and writer next to pyarrow's)."""

from __future__ import annotations

import lance
import pyarrow as pa
import pytest

import datagen
from conftest import assert_tables_equal, read_ipc


def test_zstd_output_reads_in_pyarrow(fixtures_dir, interop, tmp_path):
    uri = fixtures_dir / "basic_v20_v2names.lance"
    out = tmp_path / "zstd.arrow"
    interop.run("read", uri, out, "--zstd", "--with-row-id")
    assert_tables_equal(read_ipc(out), interop.read(uri, with_row_id=True), key="_rowid")


@pytest.mark.parametrize("compression", [None, "lz4", "zstd"])
def test_compressed_multi_batch_input(tmp_path, interop, compression):
    data = datagen.random_dataset(77, datagen.TypeProfile(), num_columns=12,
                                  cover=("large_list", "struct", "float16", "timestamp"))
    table = pa.concat_tables([data.batch(0, 100), data.batch(100, 57), data.batch(157, 1)])
    src = tmp_path / "in.arrow"
    options = pa.ipc.IpcWriteOptions(compression=compression)
    with pa.OSFile(str(src), "wb") as sink, pa.ipc.new_file(sink, table.schema,
                                                             options=options) as writer:
        for batch in table.to_batches():
            writer.write_batch(batch)
    uri = tmp_path / "from-ipc.lance"
    interop.run("write", src, uri, "--mode", "create")
    assert_tables_equal(lance.dataset(str(uri)).to_table(), table)
