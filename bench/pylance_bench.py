# SPDX-License-Identifier: Apache-2.0
"""Real Lance (pylance) side of `make bench` (scripts/run_bench.sh; docs/benchmarks.md).

  pylance_bench.py gen  --out DATA.arrow [--rows N] [--seed S]
      generates the benchmark data deterministically and writes it as an Arrow IPC file,
      which both engines load (so both write byte-identical input).
  pylance_bench.py write --input DATA.arrow --workdir DIR --out OUT.json [--reps N]
      times lance.write_dataset (file format 2.0) 1+N times (the first is a warm-up) and
      keeps the last as DIR/pylance.lance.
  pylance_bench.py scan --input DATA.arrow --dataset URI --out OUT.json [--reps N]
      times ds.to_table() and ds.count_rows("x > 1000.0") on a dataset, 1+N times each.

Wall clock (time.perf_counter); process CPU time (time.process_time, all threads) is
recorded next to it. Every read is checked against DATA.
"""

import argparse
import json
import os
import shutil
import statistics
import sys
import time

import lance
import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

FILTER = "x > 1000.0"


def log(msg):
    print(f"[pylance] {msg}", file=sys.stderr, flush=True)


# ------------------------------------------------------------------------------------------
# Data


def generate(rows, seed, batch_rows):
    """1M rows: id int64 = row number, x float64 uniform [0, 2000), s 16-character string
    (random lowercase letters), v fixed_size_list<float32, 128> (uniform [0, 1))."""
    rng = np.random.default_rng(seed)
    ids = np.arange(rows, dtype=np.int64)
    x = rng.uniform(0.0, 2000.0, rows)
    letters = rng.integers(ord("a"), ord("z") + 1, size=rows * 16, dtype=np.uint8)
    offsets = np.arange(0, rows * 16 + 1, 16, dtype=np.int32)
    s = pa.StringArray.from_buffers(rows, pa.py_buffer(offsets), pa.py_buffer(letters))
    v = rng.random(rows * 128, dtype=np.float32)
    v = pa.FixedSizeListArray.from_arrays(pa.array(v), 128)
    schema = pa.schema(
        [
            pa.field("id", pa.int64()),
            pa.field("x", pa.float64()),
            pa.field("s", pa.string()),
            pa.field("v", pa.list_(pa.float32(), 128)),
        ]
    )
    table = pa.Table.from_arrays([pa.array(ids), pa.array(x), s, v], schema=schema)
    return table.combine_chunks().to_batches(max_chunksize=batch_rows), schema


def cmd_gen(args):
    batches, schema = generate(args.rows, args.seed, args.batch_rows)
    tmp = args.out + ".tmp"
    with pa.OSFile(tmp, "wb") as f, pa.ipc.new_file(f, schema) as w:
        for b in batches:
            w.write_batch(b)
    os.replace(tmp, args.out)
    log(f"generated {args.rows} rows (seed {args.seed}) in {len(batches)} batches -> {args.out}")


def load(path):
    with pa.OSFile(path, "rb") as f:  # reads into memory (not a memory map), as lance-cpp
        return pa.ipc.open_file(f).read_all()


# ------------------------------------------------------------------------------------------
# Timing


def time_it(fn, warmup, reps, before=None):
    wall, cpu, warm = [], [], []
    for i in range(warmup + reps):
        if before:
            before(i)
        c0, t0 = time.process_time(), time.perf_counter()
        fn(i)
        t1, c1 = time.perf_counter(), time.process_time()
        if i >= warmup:
            wall.append(t1 - t0)
            cpu.append(c1 - c0)
        else:
            warm.append(t1 - t0)
    return wall, cpu, warm


def summarize(samples, nbytes):
    wall, cpu, warm = samples
    med = statistics.median(wall)
    return {
        "bytes": nbytes,
        "median_s": med,
        "best_s": min(wall),
        "mb_s": nbytes / med / 1e6,
        "best_mb_s": nbytes / min(wall) / 1e6,
        "cpu_median_s": statistics.median(cpu),
        "samples_s": wall,
        "cpu_samples_s": cpu,
        "warmup_samples_s": warm,
    }


def tree_bytes(path):
    n = 0
    for root, _, files in os.walk(path):
        n += sum(os.path.getsize(os.path.join(root, f)) for f in files)
    return n


# ------------------------------------------------------------------------------------------
# Benchmarks


def bench_reads(uri, table, expected_count, warmup, reps):
    ds = lance.dataset(uri)
    out = {
        "fragments": len(ds.get_fragments()),
        "data_storage_version": ds.data_storage_version,
        "disk_bytes": tree_bytes(uri),
    }
    nbytes = [0]

    def scan(_):
        t = ds.to_table()
        if t.num_rows != table.num_rows:
            sys.exit("pylance_bench: scan returned a wrong number of rows")
        nbytes[0] = t.nbytes

    samples = time_it(scan, warmup, reps)
    out["scan"] = summarize(samples, nbytes[0])

    def count(_):
        n = ds.count_rows(FILTER)
        if n != expected_count:
            sys.exit(f"pylance_bench: count_rows({FILTER}) = {n}, expected {expected_count}")

    out["count_filter"] = summarize(time_it(count, warmup, reps), table.column("x").nbytes)
    out["count_filter"]["filter"] = FILTER
    out["count_filter"]["result"] = expected_count

    t = ds.to_table()  # correctness, untimed, after the timed runs (as lance-cpp)
    if not t.equals(table):
        sys.exit(f"pylance_bench: scan of {uri} differs from the input data")
    out["scan_batches"] = len(t.to_batches())
    return out


def bench_write(table, workdir, final_uri, warmup, reps):
    tmp = os.path.join(workdir, "pylance-write-tmp.lance")
    last = warmup + reps - 1
    disk = [0]

    def before(i):  # untimed: drop the previous copy, flush dirty pages
        if os.path.exists(tmp):
            disk[0] = tree_bytes(tmp)
            shutil.rmtree(tmp)
        if i == last:
            shutil.rmtree(final_uri, ignore_errors=True)
        os.sync()

    def write(i):
        # Defaults: mode create, max_rows_per_file 1024*1024, max_rows_per_group 1024.
        lance.write_dataset(table, final_uri if i == last else tmp, data_storage_version="2.0")

    samples = time_it(write, warmup, reps, before)
    if os.path.exists(tmp):
        shutil.rmtree(tmp)
    out = summarize(samples, table.nbytes)
    out["disk_bytes"] = tree_bytes(final_uri)
    os.sync()
    return out


def common(args):
    t0 = time.perf_counter()
    table = load(args.input)
    expected = pc.sum(pc.greater(table.column("x"), 1000.0)).as_py()
    log(f"loaded {table.num_rows} rows, {table.nbytes} logical bytes in "
        f"{time.perf_counter() - t0:.2f} s")
    out = {
        "engine": "pylance",
        "pylance_version": lance.__version__,
        "pyarrow_version": pa.__version__,
        "reps": args.reps,
        "warmup": args.warmup,
        "cpu_count": os.cpu_count(),
        "rows": table.num_rows,
        "logical_bytes": table.nbytes,
        "x_bytes": table.column("x").nbytes,
    }
    return table, expected, out


def write_json(path, out):
    with open(path, "w") as f:
        json.dump(out, f, indent=2)
        f.write("\n")


def cmd_write(args):
    table, _, out = common(args)
    uri = os.path.join(args.workdir, "pylance.lance")
    log("write")
    out["write"] = bench_write(table, args.workdir, uri, args.warmup, args.reps)
    out["dataset"] = uri
    write_json(args.out, out)


def cmd_scan(args):
    table, expected, out = common(args)
    log(f"reads of {args.dataset}")
    out["dataset"] = args.dataset
    out["reads"] = bench_reads(args.dataset, table, expected, args.warmup, args.reps)
    write_json(args.out, out)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    sub = p.add_subparsers(dest="cmd", required=True)
    g = sub.add_parser("gen")
    g.add_argument("--out", required=True)
    g.add_argument("--rows", type=int, default=1_000_000)
    g.add_argument("--seed", type=int, default=42)
    g.add_argument("--batch-rows", type=int, default=131072)
    for name in ("write", "scan"):
        s = sub.add_parser(name)
        s.add_argument("--input", required=True)
        s.add_argument("--out", required=True)
        s.add_argument("--reps", type=int, default=5)
        s.add_argument("--warmup", type=int, default=1)
        if name == "write":
            s.add_argument("--workdir", required=True)
        else:
            s.add_argument("--dataset", required=True)
    args = p.parse_args()
    {"gen": cmd_gen, "write": cmd_write, "scan": cmd_scan}[args.cmd](args)


if __name__ == "__main__":
    main()
