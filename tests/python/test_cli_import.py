# SPDX-License-Identifier: Apache-2.0
"""`lance-cpp import` streams its input: CSV and JSON lines much larger than the process's
peak memory, Arrow IPC files and streams, schema inference from a prefix with errors that
name the line, the progress bar on a terminal only (and --quiet), Parquet refused clearly.
Every dataset is read back with pylance."""
import json
import os
import pty
import subprocess
from pathlib import Path

import lance
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest

from _cli import cli_bin, read_terminal, run


def run_measured(*args):
    """Runs `lance-cpp --stats ARGS` and returns (returncode, stdout, stderr (with the
    stats lines, for failure messages), peak RSS in bytes). The peak is the process's own
    VmHWM, printed by --stats: ru_maxrss as a parent sees it (/usr/bin/time, wait4) can
    carry the high-water mark of the image before exec."""
    proc = subprocess.run([str(cli_bin()), "--stats"] + [str(a) for a in args],
                          capture_output=True, text=True, timeout=300)
    lines = proc.stderr.splitlines(keepends=True)
    peaks = [int(line.split("peak_rss_bytes=")[1]) for line in lines
             if line.startswith("stats: process peak_rss_bytes=")]
    assert len(peaks) == 1, proc.stderr
    assert peaks[0] > 0, "VmHWM missing from /proc/self/status"
    return proc.returncode, proc.stdout, proc.stderr, peaks[0]


PAD = "x" * 200
BLOCK_ROWS = 10_000


def write_blocks(path: Path, header: bytes, line_format: bytes, blocks: int) -> int:
    """Writes `blocks` copies of a template of BLOCK_ROWS rows whose ids are made unique
    and increasing by the block number (fast: one bytes.replace per block). Returns the
    number of rows; row r (0-based) has id int(f"{r // BLOCK_ROWS + 1}{r % BLOCK_ROWS:05d}")
    and s = PAD + str(r % BLOCK_ROWS % 97)."""
    template = b"".join(line_format % (i, PAD.encode(), i % 97) for i in range(BLOCK_ROWS))
    with open(path, "wb") as f:
        f.write(header)
        for b in range(1, blocks + 1):
            f.write(template.replace(b"@", str(b).encode()))
    return blocks * BLOCK_ROWS


def expected_id(r: int) -> int:
    return int(f"{r // BLOCK_ROWS + 1}{r % BLOCK_ROWS:05d}")


def check_big_dataset(uri: Path, rows: int):
    ds = lance.dataset(str(uri))
    assert ds.count_rows() == rows
    ids = ds.to_table(columns=["id"]).column("id")
    assert ids.type == pa.int64()
    assert pc.sum(ids).as_py() == sum(expected_id(r) for r in range(rows))
    for r in (0, 1, BLOCK_ROWS + 5, rows - 1):
        got = ds.take([r]).to_pylist()[0]
        assert got == {"id": expected_id(r), "s": PAD + str(r % BLOCK_ROWS % 97)}, r


def check_streamed(tmp_path, name, header, line_format, blocks, extra=()):
    src = tmp_path / name
    rows = write_blocks(src, header, line_format, blocks)
    size = src.stat().st_size
    uri = tmp_path / (name + ".lance")
    # Small data files, so that the writer's own buffers stay small too.
    rc, out, err, rss = run_measured("import", src, uri, "--max-rows-per-file", "32768",
                                     *extra)
    assert rc == 0, err
    assert out == ""
    assert f"imported {rows} rows" in err
    # The input is read in 1 MiB chunks: the process holds far less than the input.
    assert rss < size / 2.5, f"peak RSS {rss / 1e6:.0f} MB for {size / 1e6:.0f} MB: {err}"
    src.unlink()
    check_big_dataset(uri, rows)


def test_big_csv_streams_with_bounded_memory(tmp_path):
    check_streamed(tmp_path, "big.csv", b"id,s\n", b"@%05d,%s%d\n", 70)


def test_big_json_lines_stream_with_bounded_memory(tmp_path):
    check_streamed(tmp_path, "big.jsonl", b"", b'{"id": @%05d, "s": "%s%d"}\n', 60)


def ipc_table():
    n = 5000
    return pa.table({
        "id": pa.array(range(n), pa.int64()),
        "f": pa.array([i / 4 for i in range(n)], pa.float32()),
        "name": pa.array([None if i % 11 == 0 else f"n{i}" for i in range(n)]),
        "tags": pa.array([[f"t{i % 3}"] * (i % 4) for i in range(n)],
                         pa.list_(pa.string())),
        "color": pa.array([["red", "green", "blue"][i % 3] for i in range(n)]
                          ).dictionary_encode(),
    })


def assert_same_rows(uri, table):
    got = lance.dataset(str(uri)).to_table()
    assert got.num_rows == table.num_rows
    for name in ("id", "f", "name", "tags"):
        assert got.column(name).to_pylist() == table.column(name).to_pylist(), name
    assert got.column("color").to_pylist() == table.column("color").to_pylist()


def test_ipc_file_and_stream_inputs(tmp_path):
    table = ipc_table()
    batches = table.to_batches(max_chunksize=700)
    file_path, stream_path = tmp_path / "in.arrow", tmp_path / "in.arrows"
    with pa.ipc.new_file(str(file_path), table.schema) as w:
        for b in batches:
            w.write_batch(b)
    with pa.ipc.new_stream(str(stream_path), table.schema) as w:
        for b in batches:
            w.write_batch(b)
    for src, name in ((file_path, "f.lance"), (stream_path, "s.lance")):
        proc = run("import", src, tmp_path / name, "--json")
        doc = json.loads(proc.stdout)
        assert doc["rows_written"] == table.num_rows
        assert_same_rows(tmp_path / name, table)
    # The stream format from stdin; `--format arrow` tells the two apart by the magic.
    with open(stream_path, "rb") as f:
        run("import", "-", tmp_path / "stdin.lance", "--format", "arrows", stdin=f)
    assert_same_rows(tmp_path / "stdin.lance", table)
    run("import", file_path, tmp_path / "auto.lance", "--format", "arrow")
    assert_same_rows(tmp_path / "auto.lance", table)
    # The file format needs its footer: not from a pipe.
    with open(file_path, "rb") as f:
        proc = subprocess.run(f"cat {file_path} | {cli_bin()} import - {tmp_path / 'p.lance'}"
                              " --format arrow", shell=True, capture_output=True, text=True)
    assert proc.returncode != 0
    assert proc.returncode == 2 and "IPC file format" in proc.stderr, proc.stderr
    # Append an IPC stream to the dataset made from the file.
    run("import", stream_path, tmp_path / "f.lance", "--mode", "append")
    assert lance.dataset(str(tmp_path / "f.lance")).count_rows() == 2 * table.num_rows


@pytest.mark.parametrize("kind", ["file", "stream"])
def test_big_ipc_inputs_stream_with_bounded_memory(tmp_path, kind):
    # 200 batches of ~1.1 MB: the reader holds one at a time (the file format by its
    # footer's blocks, the stream format message by message).
    n = 5000
    batch = pa.record_batch({"id": pa.array(range(n), pa.int64()),
                             "s": pa.array([PAD + str(i) for i in range(n)])})
    src = tmp_path / ("big.arrow" if kind == "file" else "big.arrows")
    opener = pa.ipc.new_file if kind == "file" else pa.ipc.new_stream
    with opener(str(src), batch.schema) as w:
        for _ in range(200):
            w.write_batch(batch)
    size = src.stat().st_size
    rc, out, err, rss = run_measured("import", src, tmp_path / "b.lance",
                                     "--max-rows-per-file", "32768")
    assert rc == 0, err
    assert out == ""
    assert rss < size / 2.5, f"peak RSS {rss / 1e6:.0f} MB for {size / 1e6:.0f} MB: {err}"
    ds = lance.dataset(str(tmp_path / "b.lance"))
    assert ds.count_rows() == 200 * n
    assert ds.take([n * 199 + 17]).to_pylist() == [{"id": 17, "s": PAD + "17"}]


def test_ipc_stream_dictionary_replacement_and_truncation(tmp_path):
    # Each batch carries its own dictionary for "c": the stream sends a replacement
    # before the second batch, which must decode against it (not the first).
    schema = pa.schema([("c", pa.dictionary(pa.int32(), pa.string()))])
    b1 = pa.record_batch([pa.array(["a", "b", "a"]).dictionary_encode()], schema=schema)
    b2 = pa.record_batch([pa.array(["x", "y", "z", "x"]).dictionary_encode()], schema=schema)
    src = tmp_path / "dict.arrows"
    with pa.ipc.new_stream(str(src), schema) as w:
        w.write_batch(b1)
        w.write_batch(b2)
    run("import", src, tmp_path / "d.lance")
    got = lance.dataset(str(tmp_path / "d.lance")).to_table().column("c").to_pylist()
    assert got == ["a", "b", "a", "x", "y", "z", "x"]
    # A stream cut inside a message is an error (nothing committed), not a crash.
    data = src.read_bytes()
    cut = tmp_path / "cut.arrows"
    cut.write_bytes(data[: len(data) - 40])
    proc = run("import", cut, tmp_path / "cut.lance", check=False)
    assert proc.returncode == 1, proc.stderr
    assert "ends inside" in proc.stderr
    assert not list((tmp_path / "cut.lance").glob("_versions/*"))


def run_on_pty(*args):
    """Runs lance-cpp with stderr on a pseudo-terminal and stdout on a pipe; returns
    (returncode, stdout, what the terminal received)."""
    master, slave = pty.openpty()
    proc = subprocess.Popen([str(cli_bin())] + [str(a) for a in args],
                            stdout=subprocess.PIPE, stderr=slave)
    os.close(slave)
    received = read_terminal(master)
    out = proc.stdout.read()
    proc.stdout.close()
    proc.wait(timeout=60)
    return proc.returncode, out.decode(), received


def small_csv(tmp_path):
    src = tmp_path / "small.csv"
    src.write_text("id,name\n" + "".join(f"{i},n{i}\n" for i in range(3000)))
    return src


def test_progress_bar_on_a_terminal_only(tmp_path):
    src = small_csv(tmp_path)
    rc, out, tty = run_on_pty("import", src, tmp_path / "a.lance")
    assert rc == 0, tty
    assert out == ""  # nothing extra on stdout
    assert "\rimporting [" in tty and "3,000 rows" in tty and "100%" in tty, tty
    assert "imported 3000 rows" in tty
    # --quiet: only the summary.
    rc, out, tty = run_on_pty("import", src, tmp_path / "b.lance", "--quiet")
    assert rc == 0 and out == ""
    assert "importing" not in tty and "\r" not in tty.replace("\r\n", "\n")
    assert "imported 3000 rows" in tty
    # stderr on a pipe: no bar either, stdout the same (empty, or the --json document).
    proc = run("import", src, tmp_path / "c.lance")
    assert proc.stdout == ""
    assert proc.stderr == f"imported 3000 rows into {tmp_path / 'c.lance'} (create, version 1)\n"
    rc, out, tty = run_on_pty("import", src, tmp_path / "d.lance", "--json")
    assert rc == 0
    assert json.loads(out)["rows_written"] == 3000
    assert "importing [" in tty


def test_progress_bar_from_stdin_has_no_share(tmp_path):
    src = small_csv(tmp_path)
    master, slave = pty.openpty()
    with open(src, "rb") as f:
        data = f.read()
    proc = subprocess.Popen([str(cli_bin()), "import", "-", str(tmp_path / "e.lance"),
                             "--format", "csv"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=slave)
    os.close(slave)
    proc.stdin.write(data)
    proc.stdin.close()
    tty = read_terminal(master)
    proc.wait(timeout=60)
    assert proc.returncode == 0, tty
    assert "importing 3,000 rows" in tty and "%" not in tty, tty


def test_rows_past_the_sample_that_do_not_fit_name_the_line(tmp_path):
    src = tmp_path / "late.csv"
    src.write_text("n,s\n" + "".join(f"{i},a\n" for i in range(10)) + "1.5,b\n")
    proc = run("import", src, tmp_path / "x.lance", "--infer-rows", "5", check=False)
    assert proc.returncode == 2
    assert "line 12, column 'n'" in proc.stderr
    assert "inferred from the first 5 rows" in proc.stderr and "--schema" in proc.stderr
    assert not (tmp_path / "x.lance").exists() or not list((tmp_path / "x.lance").glob(
        "_versions/*"))
    # With the default sample (20480 rows) the same short file widens to float64.
    run("import", src, tmp_path / "y.lance")
    assert lance.dataset(str(tmp_path / "y.lance")).schema.field("n").type == pa.float64()
    # Past the default sample: an error naming the line, the schema makes it work.
    big = tmp_path / "late_default.jsonl"
    big.write_text("".join(f'{{"n": {i}}}\n' for i in range(20480)) + '{"n": "x"}\n')
    proc = run("import", big, tmp_path / "z.lance", check=False)
    assert proc.returncode == 2
    assert "line 20481, column 'n'" in proc.stderr and "20480 rows" in proc.stderr
    schema = tmp_path / "schema.json"
    schema.write_text('[{"name": "n", "type": "utf8"}]')
    big.write_text("".join(f'{{"n": "{i}"}}\n' for i in range(20480)) + '{"n": "x"}\n')
    run("import", big, tmp_path / "z2.lance", "--schema", schema)
    assert lance.dataset(str(tmp_path / "z2.lance")).count_rows() == 20481


def test_parquet_is_refused_clearly(tmp_path):
    src = tmp_path / "in.parquet"
    pq.write_table(pa.table({"a": [1, 2]}), str(src))
    proc = run("import", src, tmp_path / "p.lance", check=False)
    assert proc.returncode == 1
    assert "Parquet" in proc.stderr and "no Parquet library" in proc.stderr
    assert proc.stdout == ""
    proc = run("import", tmp_path / "in.bin", tmp_path / "p.lance", "--format", "parquet",
               check=False)
    assert "Parquet" in proc.stderr
