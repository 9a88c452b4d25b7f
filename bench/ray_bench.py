# SPDX-License-Identifier: Apache-2.0
"""The Ray part of `make bench` (scripts/run_bench.sh): lance_cpp.ray against lance-ray
(pylance) on the same job, on a local Ray of 2 CPUs and the benchmark's RGW.

  ray_bench.py --out OUT.json [--rows N] [--blocks B] [--reps R]

The job: a Ray Dataset of N generated rows (id int64, x float64 uniform in [0, 1), s a
16-letter string, v fixed_size_list<float32, 32>), materialized once in Ray's object store,
written by each engine's ``write_lance`` (mode create, lance-ray's defaults for the file
sizes, data_storage_version 2.2) as a new table of one directory namespace on the RGW
(bench/ray_bench_ns.py, which vends the RGW's keys with an expiry and logs its calls), then
read back by the same engine's ``read_lance`` with the filter ``x < 0.5`` into the driver
(ray.get of every block). One warm-up repetition (it starts the worker processes), then R
timed ones; the engines alternate which goes first. After the last repetition each engine
reads the other's table with the same filter: the four results must be equal (rows sorted
by id), else the run records the difference and exits 1.

MB/s: write = the data's Arrow bytes (Ray's size_bytes) / median seconds of the
write_lance call; read = the result's Arrow bytes / median seconds from read_lance to the
last block in the driver. Namespace calls: describe_table and declare_table per job
(write + read), counted by the namespace in every process of the job.

Environment: LANCE_S3_ENDPOINT, LANCE_S3_REGION, LANCE_S3_ACCESS_KEY, LANCE_S3_SECRET_KEY,
LANCE_S3_BUCKET (scripts/rgw.sh start), and lance_cpp on PYTHONPATH.
"""

import argparse
import collections
import json
import os
import statistics
import sys
import tempfile
import time
import uuid

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

HERE = os.path.dirname(os.path.abspath(__file__))
FILTER = "x < 0.5"
IMPL = "ray_bench_ns.VendingDirectoryNamespace"
SCHEMA = pa.schema([pa.field("id", pa.int64()), pa.field("x", pa.float64()),
                    pa.field("s", pa.string()), pa.field("v", pa.list_(pa.float32(), 32))])


def log(msg):
    print(f"[ray-bench] {msg}", file=sys.stderr, flush=True)


def generate(batch):
    """The rows of a block of ray.data.range, from their ids alone (seeded by the first)."""
    ids = np.asarray(batch["id"], dtype=np.int64)
    n = len(ids)
    rng = np.random.default_rng(int(ids[0]) if n else 0)
    letters = rng.integers(ord("a"), ord("z") + 1, size=n * 16, dtype=np.uint8)
    offsets = np.arange(0, n * 16 + 1, 16, dtype=np.int32)
    s = pa.StringArray.from_buffers(n, pa.py_buffer(offsets), pa.py_buffer(letters))
    v = pa.FixedSizeListArray.from_arrays(pa.array(rng.random(n * 32, dtype=np.float32)), 32)
    return pa.Table.from_arrays([pa.array(ids), pa.array(rng.random(n)), s, v],
                                schema=SCHEMA)


def summary(samples):
    return {"samples_s": samples, "median_s": statistics.median(samples)}


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out", required=True)
    p.add_argument("--rows", type=int, default=4_000_000)
    p.add_argument("--blocks", type=int, default=32)
    p.add_argument("--reps", type=int, default=3)
    args = p.parse_args()

    import ray
    import lance_ray
    import lance_cpp.ray as lcr

    import ray_bench_ns

    engines = {"lance_cpp": lcr, "lance_ray": lance_ray}
    path = os.pathsep.join([HERE, os.environ.get("PYTHONPATH", "")])
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False,
             runtime_env={"env_vars": {"PYTHONPATH": path}})
    try:
        data = ray.data.range(args.rows, override_num_blocks=args.blocks).map_batches(
            generate, batch_format="pyarrow", batch_size=None).materialize()
        logical_bytes = data.size_bytes()
        log(f"{args.rows:,} rows in {args.blocks} blocks, {logical_bytes:,} bytes in Ray")
        workdir = tempfile.mkdtemp(prefix="ray-bench-")
        calls_log = os.path.join(workdir, "calls.log")
        root = (f"s3://{os.environ['LANCE_S3_BUCKET']}/ray-bench-"
                f"{time.strftime('%Y%m%d-%H%M%S')}-{uuid.uuid4().hex[:6]}")
        props = {"root": root, "ttl_s": "3600", "log_path": calls_log}
        ns = {"namespace_impl": IMPL, "namespace_properties": props}

        def job_calls(since):
            # The calls logged since `since`: by operation, the processes that made them,
            # and where the next job's calls start.
            logged = ray_bench_ns.calls(calls_log)
            got = logged[since:]
            return dict(collections.Counter(op for _, op in got)), \
                len({pid for pid, _ in got}), len(logged)

        def read(engine, table):
            refs = engine.read_lance(table_id=[table], filter=FILTER, **ns).to_arrow_refs()
            return pa.concat_tables(ray.get(refs)).sort_by("id")

        res = {name: {"write_s": [], "read_s": [], "write_calls": [], "read_calls": [],
                      "processes": []} for name in engines}
        results = {}
        n_calls = 0
        for rep in range(args.reps + 1):
            order = list(engines) if rep % 2 == 0 else list(reversed(list(engines)))
            for name in order:
                engine = engines[name]
                table = f"{name}_{rep}"
                t0 = time.perf_counter()
                engine.write_lance(data, table_id=[table], data_storage_version="2.2", **ns)
                t1 = time.perf_counter()
                wcalls, wproc, n_calls = job_calls(n_calls)
                t2 = time.perf_counter()
                got = read(engine, table)
                t3 = time.perf_counter()
                rcalls, rproc, n_calls = job_calls(n_calls)
                results[name] = (table, got)
                log(f"{'warm-up' if rep == 0 else f'rep {rep}'} {name}: write {t1 - t0:.2f} s "
                    f"{wcalls}, read {t3 - t2:.2f} s ({got.num_rows:,} rows) {rcalls}")
                if rep == 0:
                    continue
                r = res[name]
                r["write_s"].append(t1 - t0)
                r["read_s"].append(t3 - t2)
                r["write_calls"].append(wcalls)
                r["read_calls"].append(rcalls)
                r["processes"].append([wproc, rproc])

        # The outputs of each read equal by the other engine.
        (ours_table, ours), (theirs_table, theirs) = results["lance_cpp"], results["lance_ray"]
        cross = {"lance_cpp reads lance_ray's": read(lcr, theirs_table),
                 "lance_ray reads lance_cpp's": read(lance_ray, ours_table),
                 "lance_ray reads its own": theirs}
        source = pa.concat_tables(ray.get(data.to_arrow_refs()))
        expected_rows = pc.sum(pc.less(source.column("x"), 0.5).cast(pa.int64())).as_py()
        mismatches = [what for what, t in cross.items() if not t.equals(ours)]
        if ours.num_rows != expected_rows:
            mismatches.append(f"lance_cpp's read: {ours.num_rows} rows, {expected_rows} match")

        secret_in_tasks = _secret_in_write_tasks(lcr, ours_table, theirs_table, ns)
        out = {
            "rows": args.rows, "blocks": args.blocks, "reps": args.reps,
            "logical_bytes": logical_bytes, "filter": FILTER,
            "result_rows": ours.num_rows, "result_bytes": ours.nbytes,
            "data_storage_version": "2.2", "root": root, "ray_cpus": 2,
            "namespace": IMPL, "versions": {"ray": ray.__version__,
                                            "lance_ray": _version("lance-ray"),
                                            "pylance": _version("pylance")},
            "cross_reads_equal": not mismatches, "mismatches": mismatches,
            "secret_in_write_task": secret_in_tasks,
        }
        for name, r in res.items():
            describes = [c.get("describe_table", 0) + r["read_calls"][i].get("describe_table", 0)
                         for i, c in enumerate(r["write_calls"])]
            declares = [c.get("declare_table", 0) + r["read_calls"][i].get("declare_table", 0)
                        for i, c in enumerate(r["write_calls"])]
            out[name] = {"write": summary(r["write_s"]), "read": summary(r["read_s"]),
                         "write_calls": r["write_calls"], "read_calls": r["read_calls"],
                         "calling_processes": r["processes"],
                         "describe_calls_per_job": describes,
                         "declare_calls_per_job": declares}
        with open(args.out, "w") as f:
            json.dump(out, f, indent=2)
        if mismatches:
            log(f"the reads differ: {mismatches}")
            return 1
        return 0
    finally:
        ray.shutdown()


def _secret_in_write_tasks(lcr, ours_table, theirs_table, ns):
    """Whether the vended secret is in what a write task of each engine receives: its
    datasink after the driver's on_write_start (an append to the table it wrote),
    pickled as Ray sends it."""
    from lance_ray.datasink import LanceDatasink as TheirSink
    from ray import cloudpickle

    secret = os.environ["LANCE_S3_SECRET_KEY"].encode()
    ours = lcr.LanceDatasink(lcr._TableSpec(None, [ours_table], None, ns["namespace_impl"],
                                            ns["namespace_properties"]), mode="append")
    ours.on_write_start(SCHEMA)
    theirs = TheirSink(table_id=[theirs_table], mode="append", **ns)
    theirs.on_write_start(SCHEMA)
    return {"lance_cpp": secret in cloudpickle.dumps(ours),
            "lance_ray": secret in cloudpickle.dumps(theirs)}


def _version(dist):
    from importlib.metadata import version
    return version(dist)


if __name__ == "__main__":
    sys.exit(main())
