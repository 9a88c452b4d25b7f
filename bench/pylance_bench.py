# SPDX-License-Identifier: Apache-2.0
"""Real Lance (pylance) side of `make bench` (scripts/run_bench.sh; docs/benchmarks.md).

  pylance_bench.py gen  --out DATA.arrow [--out-v22 DATA22.arrow --take-out IDX.i64]
                        [--rows N] [--seed S] [--take-rows K] [--take-seed T]
      generates the benchmark data deterministically and writes it as an Arrow IPC file,
      which both engines load (so both write byte-identical input); optionally the file
      format 2.2 data (the same columns plus c, n, u: see generate_v22) and the rows to
      take (K distinct row numbers in random order, little-endian int64).
  pylance_bench.py write --input DATA.arrow --workdir DIR --out OUT.json [--reps N]
                         [--format 2.0|2.2] [--dataset URI]
      times lance.write_dataset (data_storage_version --format, default 2.0) 1+N times
      (the first is a warm-up) and keeps the last as URI (default DIR/pylance.lance).
  pylance_bench.py scan --input DATA.arrow --dataset URI --out OUT.json [--reps N]
                        [--take IDX.i64]
      times ds.to_table() and ds.count_rows("x > 1000.0") on a dataset, 1+N times each,
      and with --take ds.take(indices) (all columns); records each data file's per-column
      bytes and encodings (lance.file.LanceFileReader, untimed); --scan-only: the scan
      alone.
  pylance_bench.py s3 --source s3://BUCKET/DS --bucket BUCKET --out OUT.json [--reps N]
                      --rows-per-file R
      the S3 part on the same RGW as bench/s3_benchmark.cc (env LANCE_S3_*): scans of
      lance-cpp's dataset, writes of the same rows, scans of pylance's own (see cmd_s3).

Wall clock (time.perf_counter); process CPU time (time.process_time, all threads) is
recorded next to it, and the peak RSS of each timed run (VmHWM after a reset through
/proc/self/clear_refs just before it). Every read is checked against DATA.
"""

import argparse
import json
import os
import re
import shutil
import statistics
import sys
import time

import lance
import lance.file
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


CATEGORIES = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel",
              "india", "juliett", "kilo", "lima", "mike", "november", "oscar", "papa"]
WORDS = ["data", "lance", "arrow", "index", "vector", "table", "query", "file", "page",
         "block", "column", "search"]


def generate_v22(rows, seed, batch_rows):
    """The file format 2.2 data: the columns of generate() (identical values), then three
    columns for the 2.2 encodings that the first four do not exercise, from their own
    generator (seed + 1) so that the first four stay as they were:
      c utf8, one of 16 words (uniform): low cardinality -> dictionary encoding;
      n int32 uniform [0, 1000), null with probability 0.1 -> bit-packing with nulls;
      u utf8 "https://example.com/<word>/<word>?id=<0..99999>" (12 words): FSST."""
    batches, schema = generate(rows, seed, batch_rows)
    rng = np.random.default_rng(seed + 1)
    cats = np.array(CATEGORIES, dtype=object)
    c = pa.array(cats[rng.integers(0, len(CATEGORIES), rows)], pa.string())
    n_values = rng.integers(0, 1000, rows).astype(np.int32)
    n_null = rng.random(rows) < 0.1
    n = pa.array(n_values, pa.int32(), mask=n_null)
    w1 = rng.integers(0, len(WORDS), rows)
    w2 = rng.integers(0, len(WORDS), rows)
    num = rng.integers(0, 100000, rows)
    u = pa.array([f"https://example.com/{WORDS[a]}/{WORDS[b]}?id={k}"
                  for a, b, k in zip(w1.tolist(), w2.tolist(), num.tolist())], pa.string())
    table = pa.Table.from_batches(batches, schema)
    table = table.append_column(pa.field("c", pa.string()), c)
    table = table.append_column(pa.field("n", pa.int32()), n)
    table = table.append_column(pa.field("u", pa.string()), u)
    return table.combine_chunks().to_batches(max_chunksize=batch_rows), table.schema


def write_ipc(path, batches, schema):
    tmp = path + ".tmp"
    with pa.OSFile(tmp, "wb") as f, pa.ipc.new_file(f, schema) as w:
        for b in batches:
            w.write_batch(b)
    os.replace(tmp, path)


def cmd_gen(args):
    batches, schema = generate(args.rows, args.seed, args.batch_rows)
    write_ipc(args.out, batches, schema)
    log(f"generated {args.rows} rows (seed {args.seed}) in {len(batches)} batches -> {args.out}")
    if args.out_v22:
        batches, schema = generate_v22(args.rows, args.seed, args.batch_rows)
        write_ipc(args.out_v22, batches, schema)
        log(f"generated the 2.2 data ({len(schema)} columns) -> {args.out_v22}")
    if args.take_out:
        # Distinct rows in random (unsorted) order, as a user would pass them.
        k = min(args.take_rows, args.rows)
        idx = np.random.default_rng(args.take_seed).choice(args.rows, k, replace=False)
        tmp = args.take_out + ".tmp"
        idx.astype("<i8").tofile(tmp)
        os.replace(tmp, args.take_out)
        log(f"{k} take indices (seed {args.take_seed}) -> {args.take_out}")


def load(path):
    with pa.OSFile(path, "rb") as f:  # reads into memory (not a memory map), as lance-cpp
        return pa.ipc.open_file(f).read_all()


# ------------------------------------------------------------------------------------------
# Timing


def reset_peak_rss():
    """Sets the peak RSS (VmHWM) back to the current RSS (as bench/bench_util.h)."""
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")


def status_mb(field):
    """A kB field of /proc/self/status (VmHWM, VmRSS) in MB (1e6 bytes)."""
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1]) * 1024 / 1e6
    sys.exit(f"pylance_bench: no {field} in /proc/self/status")


class Samples(list):
    """(wall, cpu, warm-up wall) and per timed run the peak RSS and the RSS before it."""


def time_it(fn, warmup, reps, before=None):
    wall, cpu, warm, peak, before_rss = [], [], [], [], []
    for i in range(warmup + reps):
        if before:
            before(i)
        reset_peak_rss()
        rss0 = status_mb("VmRSS")
        c0, t0 = time.process_time(), time.perf_counter()
        fn(i)
        t1, c1 = time.perf_counter(), time.process_time()
        hwm = status_mb("VmHWM")
        if i >= warmup:
            wall.append(t1 - t0)
            cpu.append(c1 - c0)
            peak.append(hwm)
            before_rss.append(rss0)
        else:
            warm.append(t1 - t0)
    s = Samples([wall, cpu, warm])
    s.peak, s.before_rss = peak, before_rss
    return s


def summarize(samples, nbytes):
    wall, cpu, warm = samples
    med = statistics.median(wall)
    return {
        # Peak RSS of the operation: the largest VmHWM of the timed runs, each measured
        # from a reset just before the run (reset_peak_rss).
        "peak_rss_mb": max(samples.peak),
        "peak_rss_samples_mb": samples.peak,
        "rss_before_samples_mb": samples.before_rss,
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


def load_indices(path):
    return np.fromfile(path, dtype="<i8")


def encoding_summary(page):
    """A short name of a page's encoding: the layout and compression names in its text
    (e.g. "MiniBlockLayout InlineBitpacking"), which is all a size comparison needs."""
    names = re.findall(r"\b([A-Z][A-Za-z0-9]+)\s*[({]", str(page.encoding))
    skip = {"Some", "ArrayEncoding", "PageLayout", "CompressiveEncoding", "Buffer",
            "Nullable", "NoNull", "NoNulls", "BufferCompression"}
    out = []
    for n in names:
        if n not in skip and n not in out:
            out.append(n)
    for scheme in re.findall(r"scheme:\s*CompressionAlgorithm(\w+)", str(page.encoding)):
        if scheme not in out:
            out.append(scheme)
    return " ".join(out)


def data_file_stats(uri, schema):
    """Per data file: its bytes, and per top-level column its bytes (all of the column's
    pages and buffers, file_statistics) and encodings (of its pages, most frequent
    first). Top-level columns map to file columns in order when each is one column
    (true of this benchmark's schema for 2.1+; 2.0 has one per field, also in order)."""
    data = os.path.join(uri, "data")
    files = []
    for name in sorted(os.listdir(data)):
        if not name.endswith(".lance"):
            continue
        path = os.path.join(data, name)
        r = lance.file.LanceFileReader(path)
        st = r.file_statistics()
        md = r.metadata()
        cols = []
        for i, cs in enumerate(st.columns):
            encs = {}
            for page in md.columns[i].pages if i < len(md.columns) else []:
                e = encoding_summary(page)
                encs[e] = encs.get(e, 0) + 1
            cols.append({
                "column": schema.names[i] if len(st.columns) == len(schema.names) else i,
                "bytes": cs.size_bytes,
                "pages": cs.num_pages,
                "encodings": [e for e, _ in sorted(encs.items(), key=lambda kv: -kv[1])],
            })
        files.append({"file": name, "bytes": os.path.getsize(path),
                      "major_minor": [md.major_version, md.minor_version], "columns": cols})
    return files


def touch_pages(t):
    """Reads one byte of every 4 KiB page of every buffer of the scan's result, as
    dataset_benchmark.cc's TouchPages does for lance-cpp (whose local scans return views of
    mapped files): a result counts as read once its memory has been touched."""
    total = 0
    for column in t.columns:
        for chunk in column.chunks:
            for buf in chunk.buffers():
                if buf is not None and buf.size > 0:
                    total += int(np.frombuffer(buf, dtype=np.uint8)[::4096].sum())
    return total


def bench_reads(uri, table, expected_count, warmup, reps, take_path=None, scan_only=False):
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
        touch_pages(t)
        nbytes[0] = t.nbytes

    samples = time_it(scan, warmup, reps)
    out["scan"] = summarize(samples, nbytes[0])
    if scan_only:
        t = ds.to_table()  # correctness, untimed, after the timed runs
        if not t.equals(table):
            sys.exit(f"pylance_bench: scan of {uri} differs from the input data")
        out["scan_batches"] = len(t.to_batches())
        return out

    def count(_):
        n = ds.count_rows(FILTER)
        if n != expected_count:
            sys.exit(f"pylance_bench: count_rows({FILTER}) = {n}, expected {expected_count}")

    out["count_filter"] = summarize(time_it(count, warmup, reps), table.column("x").nbytes)
    out["count_filter"]["filter"] = FILTER
    out["count_filter"]["result"] = expected_count

    if take_path:
        indices = load_indices(take_path)
        expected_ids = pa.array(indices, pa.int64())
        idx_arg = pa.array(indices, pa.int64())  # an Arrow array: no list conversion timed
        taken = [None]

        def take(_):
            t = ds.take(idx_arg)
            # Cheap check of every call: id is the row number.
            if t.num_rows != len(indices) or not t.column("id").equals(
                    pa.chunked_array([expected_ids])):
                sys.exit(f"pylance_bench: take of {uri} returned wrong rows")
            taken[0] = t

        samples = time_it(take, warmup, reps)
        out["take"] = summarize(samples, taken[0].nbytes)
        out["take"]["rows"] = len(indices)
        out["take"]["rows_s"] = len(indices) / out["take"]["median_s"]
        out["take"]["best_rows_s"] = len(indices) / out["take"]["best_s"]
        if not taken[0].equals(table.take(expected_ids)):  # untimed, the whole rows
            sys.exit(f"pylance_bench: take of {uri} differs from the input rows")

    t = ds.to_table()  # correctness, untimed, after the timed runs (as lance-cpp)
    if not t.equals(table):
        sys.exit(f"pylance_bench: scan of {uri} differs from the input data")
    out["scan_batches"] = len(t.to_batches())
    files = data_file_stats(uri, table.schema)
    out["data_file_bytes"] = sum(f["bytes"] for f in files)
    out["data_files"] = files
    return out


def bench_write(table, workdir, final_uri, warmup, reps, version):
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
        lance.write_dataset(table, final_uri if i == last else tmp,
                            data_storage_version=version)

    samples = time_it(write, warmup, reps, before)
    if os.path.exists(tmp):
        shutil.rmtree(tmp)
    out = summarize(samples, table.nbytes)
    out["disk_bytes"] = tree_bytes(final_uri)
    out["data_storage_version"] = version
    out["data_file_bytes"] = tree_bytes(os.path.join(final_uri, "data"))
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
        "column_bytes": {name: table.column(name).nbytes for name in table.column_names},
    }
    return table, expected, out


def write_json(path, out):
    with open(path, "w") as f:
        json.dump(out, f, indent=2)
        f.write("\n")


def cmd_write(args):
    table, _, out = common(args)
    uri = args.dataset or os.path.join(args.workdir, "pylance.lance")
    log(f"write (file format {args.format}) -> {uri}")
    out["write"] = bench_write(table, args.workdir, uri, args.warmup, args.reps, args.format)
    out["dataset"] = uri
    write_json(args.out, out)


def cmd_scan(args):
    table, expected, out = common(args)
    log(f"reads of {args.dataset}")
    out["dataset"] = args.dataset
    out["reads"] = bench_reads(args.dataset, table, expected, args.warmup, args.reps,
                               args.take, args.scan_only)
    write_json(args.out, out)


# ------------------------------------------------------------------------------------------
# S3 (the S3 part of `make bench`, next to bench/s3_benchmark.cc on the same RGW)


def s3_env():
    """The RGW of scripts/rgw.sh (its `export` lines): pylance's storage options and a
    pyarrow S3 file system (for the untimed deletes between writes)."""
    need = ["LANCE_S3_ENDPOINT", "LANCE_S3_REGION", "LANCE_S3_ACCESS_KEY",
            "LANCE_S3_SECRET_KEY"]
    missing = [k for k in need if not os.environ.get(k)]
    if missing:
        sys.exit(f"pylance_bench: {', '.join(missing)} not set (scripts/rgw.sh start prints "
                 "them)")
    e = {k: os.environ[k] for k in need}
    so = {"aws_endpoint": e["LANCE_S3_ENDPOINT"], "aws_region": e["LANCE_S3_REGION"],
          "aws_access_key_id": e["LANCE_S3_ACCESS_KEY"],
          "aws_secret_access_key": e["LANCE_S3_SECRET_KEY"], "allow_http": "true"}
    import pyarrow.fs as pafs
    host = e["LANCE_S3_ENDPOINT"].split("://", 1)[-1].rstrip("/")
    fs = pafs.S3FileSystem(access_key=e["LANCE_S3_ACCESS_KEY"],
                           secret_key=e["LANCE_S3_SECRET_KEY"], region=e["LANCE_S3_REGION"],
                           endpoint_override=host, scheme="http")
    return so, fs


def s3_stream_scan(uri, so):
    """Dataset open + a streamed full scan of all columns (batches dropped), as
    s3_benchmark's ScanOnce: returns (rows, sum of id)."""
    ds = lance.dataset(uri, storage_options=so)
    rows, id_sum = 0, 0
    for b in ds.to_batches():
        rows += b.num_rows
        id_sum += pc.sum(b.column("id")).as_py() or 0
    return rows, id_sum


def cmd_s3(args):
    """pylance on the S3 dataset lance-cpp wrote (--source, kept by s3_benchmark --keep):
    1. loads it (untimed, the input of the writes: the same rows lance-cpp wrote);
    2. scans it N times (pylance on lance-cpp's S3 dataset);
    3. writes the table N times to s3://BUCKET/pyI.lance (file format and rows per file
       as lance-cpp's), deleting each copy but the last (untimed);
    4. scans its own last copy N times.
    Times in seconds; report.py turns them into MB/s of the same numerator as the rest of
    the S3 part (lance-cpp's data-file bytes)."""
    so, fs = s3_env()
    t0 = time.perf_counter()
    src = lance.dataset(args.source, storage_options=so)
    version = src.data_storage_version
    table = src.to_table()
    rows = table.num_rows
    id_sum = pc.sum(table.column("id")).as_py()
    log(f"loaded {rows} rows ({table.nbytes} logical bytes, file format {version}) from "
        f"{args.source} in {time.perf_counter() - t0:.1f} s")
    out = {"engine": "pylance", "pylance_version": lance.__version__, "reps": args.reps,
           "rows": rows, "logical_bytes": table.nbytes, "data_storage_version": version,
           "source": args.source, "bucket": args.bucket}

    def scan_of(uri):
        def run(_):
            got = s3_stream_scan(uri, so)
            if got != (rows, id_sum):
                sys.exit(f"pylance_bench: scan of {uri} returned {got}, expected "
                         f"{(rows, id_sum)}")
        return run

    log(f"scan of lance-cpp's dataset {args.source} x{args.reps}")
    out["scan_of_local"] = summarize(time_it(scan_of(args.source), 0, args.reps), table.nbytes)

    last = args.reps - 1
    uris = [f"s3://{args.bucket}/py{i}.lance" for i in range(args.reps)]

    def before(i):
        if i > 0:  # untimed: the previous copy goes (the RGW store is small)
            fs.delete_dir(uris[i - 1].split("://", 1)[1])

    def write(i):
        lance.write_dataset(table, uris[i], storage_options=so, data_storage_version=version,
                            max_rows_per_file=args.rows_per_file)

    log(f"write x{args.reps} (file format {version}, {args.rows_per_file} rows per file)")
    out["write"] = summarize(time_it(write, 0, args.reps, before), table.nbytes)
    own = uris[last]
    files = fs.get_file_info(pafs_selector(own.split("://", 1)[1] + "/data"))
    out["data_files"] = len(files)
    out["data_file_bytes"] = sum(f.size for f in files)
    # Correctness once (untimed): the copy equals the input.
    if not lance.dataset(own, storage_options=so).to_table().equals(table):
        sys.exit(f"pylance_bench: {own} differs from {args.source}")
    log(f"scan of its own dataset {own} x{args.reps}")
    out["scan"] = summarize(time_it(scan_of(own), 0, args.reps), table.nbytes)
    out["dataset"] = own
    write_json(args.out, out)
    log(" ".join(f"{k} {out[k]['median_s']:.2f} s" for k in ("scan_of_local", "write", "scan")))


def pafs_selector(path):
    import pyarrow.fs as pafs
    return pafs.FileSelector(path, recursive=True)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    sub = p.add_subparsers(dest="cmd", required=True)
    g = sub.add_parser("gen")
    g.add_argument("--out", required=True)
    g.add_argument("--rows", type=int, default=1_000_000)
    g.add_argument("--seed", type=int, default=42)
    g.add_argument("--batch-rows", type=int, default=131072)
    g.add_argument("--out-v22", help="also write the file format 2.2 data here")
    g.add_argument("--take-out", help="also write the take indices here")
    g.add_argument("--take-rows", type=int, default=10000)
    g.add_argument("--take-seed", type=int, default=7)
    for name in ("write", "scan"):
        s = sub.add_parser(name)
        s.add_argument("--input", required=True)
        s.add_argument("--out", required=True)
        s.add_argument("--reps", type=int, default=5)
        s.add_argument("--warmup", type=int, default=1)
        if name == "write":
            s.add_argument("--workdir", required=True)
            s.add_argument("--dataset", help="the dataset kept (default DIR/pylance.lance)")
            s.add_argument("--format", default="2.0", help="data_storage_version")
        else:
            s.add_argument("--dataset", required=True)
            s.add_argument("--take", help="int64 row numbers to take (gen --take-out)")
            s.add_argument("--scan-only", action="store_true",
                           help="the full scan only (no count_rows, no take)")
    s3 = sub.add_parser("s3")
    s3.add_argument("--source", required=True, help="lance-cpp's S3 dataset (s3://...)")
    s3.add_argument("--bucket", required=True)
    s3.add_argument("--out", required=True)
    s3.add_argument("--reps", type=int, default=3)
    s3.add_argument("--rows-per-file", type=int, required=True)
    args = p.parse_args()
    {"gen": cmd_gen, "write": cmd_write, "scan": cmd_scan, "s3": cmd_s3}[args.cmd](args)


if __name__ == "__main__":
    main()
