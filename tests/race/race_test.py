# SPDX-License-Identifier: Apache-2.0
"""Race harness: N lance-cpp processes x M threads and pylance processes appending,
deleting and overwriting one dataset at once, on local disk and on the test RGW (S3 commits
use conditional PUT). Every operation is logged by its writer (tests/race/race_writer.py)
with its outcome; the verification is tied to which commits succeeded:

  * the successful commits are exactly versions 2..latest, one each (version 1 is the
    dataset this driver creates), so no failed operation left a version;
  * replaying the operations of versions 2..v on a model gives exactly the table of
    version v (lance-cpp reads every version, pylance the final one; rows compared), and
    the transaction pylance reads for version v is that operation (kind, delete predicate);
  * every failure is the conflict real Lance (pylance 14) reports for it: an Append or
    Delete loses only to an Overwrite committed after it started (incompatible; a Delete
    re-plans itself on retryable conflicts); an Overwrite wins over everything committed
    since its read version (a late one, planned on an old version, too) except another
    Overwrite (retryable); "contention" (retries exhausted) is counted, not an error;
  * the summary (one JSON line) goes to stdout and $LANCE_TEST_LOG_DIR/race-summary.json.

Knobs: LANCE_RACE_COMMITS (operations per store, default 180), LANCE_RACE_SEED (default
15), LANCE_RACE_STORES (default "local,s3"; S3 needs the LANCE_S3_* variables of the test
RGW: missing ones are an error, not a skip).
"""
import json
import os
import subprocess
import sys
import tempfile
import time
import uuid
from collections import Counter, defaultdict
from typing import Dict, List, Optional, Tuple

HERE = os.path.dirname(os.path.abspath(__file__))
CPP_PROCESSES, CPP_THREADS = 3, 4
PY_PROCESSES, PY_THREADS = 2, 2


def fail(msg: str) -> None:
    print(f"race: FAILED: {msg}", file=sys.stderr)
    sys.exit(1)


def s3_options() -> Tuple[str, Dict[str, str]]:
    need = ["LANCE_S3_ENDPOINT", "LANCE_S3_REGION", "LANCE_S3_ACCESS_KEY",
            "LANCE_S3_SECRET_KEY", "LANCE_S3_BUCKET"]
    missing = [n for n in need if not os.environ.get(n)]
    if missing:
        fail(f"the S3 race needs the test RGW: {', '.join(missing)} not set "
             "(run through scripts/run_tests.sh, or LANCE_RACE_STORES=local)")
    e = os.environ
    opts = {"aws_endpoint": e["LANCE_S3_ENDPOINT"], "aws_region": e["LANCE_S3_REGION"],
            "aws_access_key_id": e["LANCE_S3_ACCESS_KEY"],
            "aws_secret_access_key": e["LANCE_S3_SECRET_KEY"], "allow_http": "true"}
    uri = f"s3://{e['LANCE_S3_BUCKET']}/race-{uuid.uuid4().hex[:12]}/ds.lance"
    return uri, opts


def sorted_rows(table) -> List[Tuple[int, str]]:
    return sorted(zip(table["id"].to_pylist(), table["tag"].to_pylist()))


def run_store(store: str, commits: int, seed: int, workdir: str) -> dict:
    import lance
    import lance_cpp
    import pyarrow as pa
    sys.path.insert(0, HERE)
    from race_writer import SCHEMA  # noqa: E402

    if store == "local":
        uri, so = os.path.join(workdir, "local", "ds.lance"), {}
    else:
        uri, so = s3_options()
    writers = CPP_PROCESSES * CPP_THREADS + PY_PROCESSES * PY_THREADS
    ops = max(1, -(-commits // writers))
    seed_rows = pa.table({"id": pa.array([0, 1], pa.int64()),
                          "tag": pa.array(["seed", "seed"])}, schema=SCHEMA)
    lance_cpp.write_dataset(seed_rows, uri, mode="create", storage_options=so or None)

    start = time.monotonic()
    procs = []
    logs = []
    env = dict(os.environ, LANCE_RACE_STORAGE_OPTIONS=json.dumps(so))
    for p in range(CPP_PROCESSES + PY_PROCESSES):
        engine = "cpp" if p < CPP_PROCESSES else "py"
        log = os.path.join(workdir, f"{store}-writer{p}.jsonl")
        logs.append(log)
        cmd = [sys.executable, os.path.join(HERE, "race_writer.py"), "--engine", engine,
               "--uri", uri, "--writer", str(p), "--ops", str(ops), "--seed", str(seed),
               "--threads", str(CPP_THREADS if engine == "cpp" else PY_THREADS),
               "--log", log]
        procs.append(subprocess.Popen(cmd, env=env))
    for proc in procs:
        if proc.wait() != 0:
            fail(f"{store}: writer exited with {proc.returncode}")
    race_seconds = time.monotonic() - start

    recs = []
    for log in logs:
        with open(log, encoding="utf-8") as f:
            recs.extend(json.loads(line) for line in f if line.strip())
    if len(recs) != ops * writers:
        fail(f"{store}: {len(recs)} operations logged, {ops * writers} attempted")

    # -- every successful commit is exactly one version, and nothing else is ------------
    ok = [r for r in recs if r["outcome"] == "ok"]
    by_version: Dict[int, dict] = {}
    for r in ok:
        if r["version"] in by_version:
            fail(f"{store}: {r['tag']} and {by_version[r['version']]['tag']} both report "
                 f"version {r['version']}")
        by_version[r["version"]] = r
    final_cpp = lance_cpp.dataset(uri, storage_options=so or None)
    latest = final_cpp.version
    if sorted(by_version) != list(range(2, latest + 1)):
        missing = sorted(set(range(2, latest + 1)) - set(by_version))
        extra = sorted(set(by_version) - set(range(2, latest + 1)))
        fail(f"{store}: versions without a successful operation {missing[:10]}, "
             f"successes beyond the latest version {latest}: {extra[:10]}")

    # -- replay on a model; compare every version (lance-cpp) and the last (pylance) ----
    py_ds = lance.dataset(uri, storage_options=so or None)
    model: List[Tuple[int, str]] = [(0, "seed"), (1, "seed")]
    late_won = 0
    for v in range(2, latest + 1):
        r = by_version[v]
        got = sorted_rows(final_cpp.checkout_version(v).to_table())
        if r["kind"] == "delete":
            model = [row for row in model if row[1] != r["target"]]
        else:
            mine = [(r["first"] + i, r["tag"]) for i in range(r["n"])]
            model = sorted((model if r["kind"] == "append" else []) + mine)
        if got != model:
            fail(f"{store}: version {v} ({r['kind']} {r['tag']}) has {len(got)} rows, the "
                 f"model {len(model)}: {sorted(set(got) ^ set(model))[:6]}")
        txn = py_ds.read_transaction(v)
        name = type(txn.operation).__name__
        if name.lower() != r["kind"]:
            fail(f"{store}: version {v}'s transaction is {name}, its writer did {r['kind']}")
        if r["kind"] == "delete" and txn.operation.predicate != r["predicate"]:
            fail(f"{store}: version {v} deleted {txn.operation.predicate!r}, "
                 f"expected {r['predicate']!r}")
        if r["kind"] == "overwrite" and r.get("late") and v > r["read"] + 1:
            late_won += 1
    final_py = sorted_rows(py_ds.to_table())
    if final_py != model:
        fail(f"{store}: pylance reads {len(final_py)} rows at version {latest}, the model "
             f"has {len(model)}")

    # -- every failure is the conflict Lance reports for that pair ----------------------
    overwrite_versions = sorted(v for v, r in by_version.items() if r["kind"] == "overwrite")
    for r in recs:
        if r["outcome"] == "ok":
            continue
        if r["outcome"] == "other" or "pre" not in r:
            fail(f"{store}: {r['kind']} {r['tag']} failed with a non-conflict error: "
                 f"{r.get('error')}")
        post = r.get("post", latest)
        start_version = r.get("read", r["pre"])
        winners = [v for v in overwrite_versions if start_version < v <= post]
        if r["kind"] == "overwrite":
            # It wins over everything but another Overwrite (retryable in pylance 14).
            if r["outcome"] != "contention" and not (r["outcome"] == "retryable" and winners):
                fail(f"{store}: an Overwrite lost ({r['tag']}, {r['outcome']}) with no "
                     f"Overwrite committed between versions {start_version} and {post}: "
                     f"{r.get('error')}")
        elif r["outcome"] == "incompatible" and not winners:
            fail(f"{store}: {r['kind']} {r['tag']} got an incompatible conflict but no "
                 f"Overwrite committed between versions {start_version} and {post}: "
                 f"{r.get('error')}")
        elif r["outcome"] == "retryable" and r["kind"] == "append":
            fail(f"{store}: an Append failed with a retryable conflict (Lance rebases an "
                 f"Append over everything but Overwrite/Restore): {r.get('error')}")

    by_engine = defaultdict(Counter)
    for r in recs:
        by_engine[r["engine"]]["attempted"] += 1
        by_engine[r["engine"]][r["outcome"] if r["outcome"] != "ok" else "succeeded"] += 1
    kinds = Counter(f"{r['kind']}:{r['outcome']}" for r in recs)
    return {"store": store, "attempted": len(recs), "succeeded": len(ok),
            "conflicts": {k: sum(1 for r in recs if r["outcome"] == k)
                          for k in ("retryable", "incompatible", "contention")},
            "late_overwrites_won": late_won, "versions": latest,
            "by_engine": {k: dict(v) for k, v in sorted(by_engine.items())},
            "by_kind": dict(sorted(kinds.items())),
            "race_seconds": round(race_seconds, 1),
            "total_seconds": round(time.monotonic() - start, 1)}


def main() -> None:
    commits = int(os.environ.get("LANCE_RACE_COMMITS", "180"))
    seed = int(os.environ.get("LANCE_RACE_SEED", "15"))
    stores = [s for s in os.environ.get("LANCE_RACE_STORES", "local,s3").split(",") if s]
    results = []
    with tempfile.TemporaryDirectory(prefix="lance-race-") as workdir:
        for store in stores:
            if store not in ("local", "s3"):
                fail(f"unknown store {store!r} in LANCE_RACE_STORES")
            results.append(run_store(store, commits, seed, workdir))
    summary = {"test": "race", "seed": seed, "commits_per_store": commits,
               "writers": {"cpp": f"{CPP_PROCESSES}x{CPP_THREADS}",
                           "py": f"{PY_PROCESSES}x{PY_THREADS}"},
               "attempted": sum(r["attempted"] for r in results),
               "succeeded": sum(r["succeeded"] for r in results),
               "stores": results}
    line = json.dumps(summary, sort_keys=False)
    print(line)
    log_dir: Optional[str] = os.environ.get("LANCE_TEST_LOG_DIR")
    if log_dir:
        os.makedirs(log_dir, exist_ok=True)
        with open(os.path.join(log_dir, "race-summary.json"), "w", encoding="utf-8") as f:
            f.write(line + "\n")


if __name__ == "__main__":
    main()
