# SPDX-License-Identifier: Apache-2.0
"""One writer process of the race harness (tests/race/race_test.py).

Runs `--threads` threads that each perform `--ops` operations on one dataset with either
engine (`--engine cpp`: the build's lance_cpp package, `--engine py`: pylance), and writes
one JSON line per operation to `--log`:

  {"tag", "engine", "kind": append|delete|overwrite, "late": bool, "pre": version seen
   before the operation (a lower bound of its read version), "read": read version (delete,
   late overwrite), "outcome": ok|retryable|incompatible|contention|other,
   "version": committed version (ok), "post": latest version after a failure,
   "target": the tag a delete removes, "predicate", "error", and the rows an append or
   overwrite wrote: ids first .. first + n - 1}

Every row carries the tag of the operation that wrote it (column `tag`) and a unique id,
so the driver can tie each version of the dataset to the operation that committed it.
"""
import argparse
import json
import os
import random
import threading
import time

import pyarrow as pa

SCHEMA = pa.schema([pa.field("id", pa.int64()), pa.field("tag", pa.string())])


def rows(tag: str, first_id: int, n: int) -> pa.Table:
    return pa.table({"id": pa.array(range(first_id, first_id + n), pa.int64()),
                     "tag": pa.array([tag] * n, pa.string())}, schema=SCHEMA)


def classify(engine: str, exc: BaseException) -> str:
    """Lance's error kinds: retryable commit conflict, incompatible commit conflict, too
    much write contention (retries exhausted), anything else."""
    text = str(exc)
    if engine == "cpp":
        if getattr(exc, "code", "") == "Conflict":
            if "gave up after" in text:
                return "contention"
            return "retryable" if getattr(exc, "retryable", False) else "incompatible"
        return "other"
    if "Too many concurrent writers" in text or "Failed to commit the transaction after" in text:
        return "contention"
    if "Retryable commit conflict" in text:
        return "retryable"
    if "Incompatible transaction" in text or "Commit conflict for version" in text:
        return "incompatible"
    return "other"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--engine", choices=["cpp", "py"], required=True)
    ap.add_argument("--uri", required=True)
    ap.add_argument("--writer", type=int, required=True)
    ap.add_argument("--threads", type=int, default=4)
    ap.add_argument("--ops", type=int, default=10)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--log", required=True)
    args = ap.parse_args()
    if args.engine == "cpp":
        import lance_cpp as lance
    else:
        import lance
    # Storage options (S3 keys) come through the environment, never the command line.
    so = json.loads(os.environ.get("LANCE_RACE_STORAGE_OPTIONS", "{}")) or None
    out = open(args.log, "w", encoding="utf-8")
    out_lock = threading.Lock()

    def latest() -> "lance.LanceDataset":
        return lance.dataset(args.uri, storage_options=so)

    def worker(thread: int) -> None:
        rng = random.Random(args.seed * 1000003 + args.writer * 1009 + thread)
        for k in range(args.ops):
            tag = f"{args.engine}{args.writer}t{thread}o{k}"
            first_id = (args.writer * 100 + thread) * 100000 + k * 100
            roll = rng.random()
            kind = "append" if roll < 0.6 else ("delete" if roll < 0.85 else "overwrite")
            late = kind == "overwrite" and rng.random() < 0.5
            n = rng.randint(1, 4)
            rec = {"tag": tag, "engine": args.engine, "writer": args.writer,
                   "thread": thread, "kind": kind, "late": late, "first": first_id, "n": n}
            try:
                ds = latest()
                rec["pre"] = ds.version
                if kind == "append":
                    r = lance.write_dataset(rows(tag, first_id, n), args.uri,
                                            mode="append", storage_options=so)
                    rec["version"] = r.version
                elif kind == "delete":
                    tags = sorted(set(ds.to_table(columns=["tag"])["tag"].to_pylist()))
                    target = rng.choice(tags) if tags else "none"
                    # The negative id matches no row: it makes the predicate (kept in the
                    # transaction) unique to this operation.
                    pred = f"tag = '{target}' OR id = -{first_id + 1}"
                    rec.update(target=target, predicate=pred, read=ds.version)
                    ds.delete(pred)
                    rec["version"] = ds.version
                elif not late:
                    r = lance.write_dataset(rows(tag, first_id, n), args.uri,
                                            mode="overwrite", storage_options=so)
                    rec["version"] = r.version
                else:
                    # A late Overwrite: planned on the version read above, committed after
                    # others had time to commit. Lance lets it win.
                    frags = lance.fragment.write_fragments(
                        rows(tag, first_id, n), args.uri,
                        storage_options=so)
                    time.sleep(rng.uniform(0.0, 0.2))
                    op = lance.LanceOperation.Overwrite(SCHEMA, frags)
                    r = lance.LanceDataset.commit(args.uri, op, read_version=ds.version,
                                                  storage_options=so)
                    rec["read"] = ds.version
                    rec["version"] = r.version
                rec["outcome"] = "ok"
            except Exception as e:  # noqa: BLE001 - every failure is logged and judged
                rec["outcome"] = classify(args.engine, e)
                rec["error"] = f"{type(e).__name__}: {e}"[:600]
                try:
                    rec["post"] = latest().version
                except Exception as e2:  # noqa: BLE001
                    rec["post_error"] = str(e2)[:200]
            with out_lock:
                out.write(json.dumps(rec) + "\n")
                out.flush()

    threads = [threading.Thread(target=worker, args=(t,)) for t in range(args.threads)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    out.close()


if __name__ == "__main__":
    main()
