# SPDX-License-Identifier: Apache-2.0
"""kill -9 of lance-cpp writers at seeded points (crashlib.py): after every kill the
dataset is exactly one committed version -- the model after the last `done`, or after
the op in flight -- for lance_cpp and for real Lance, versions list in both, and the next
writer goes on from there (leftovers never block). Then `lance-cpp cleanup --dry-run`
lists the orphans of the killed writes and nothing a kept version references.

Seeded (LANCE_CRASH_SEED, default 15): a failure names the seed, track and version.
Knobs: LANCE_CRASH_KILLS (random kills on local disk, default 220),
LANCE_CRASH_S3_KILLS (random kills on RGW, default 12). The RGW part needs LANCE_S3_*
(scripts/run_tests.sh); it fails, never skips, without.
"""

import os
import sys
import time

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import crashlib  # noqa: E402

SEED = int(os.environ.get("LANCE_CRASH_SEED", "15"))


def _tool(var: str, rel: str) -> str:
    path = os.environ.get(var)
    if not path:
        root = os.environ.get("LANCE_SOURCE_DIR", os.path.join(os.path.dirname(__file__),
                                                               "..", ".."))
        path = os.path.join(root, "build", rel)
    if not os.path.exists(path):
        pytest.fail(f"{path} not found: build it and set {var}")
    return path


@pytest.fixture(scope="module")
def writer():
    return _tool("LANCE_CRASH_WRITER", "tests/crash/crash_writer")


@pytest.fixture(scope="module")
def cli():
    return _tool("LANCE_CPP_BIN", "cli/lance-cpp")


def test_kills_local(tmp_path, writer, cli):
    started = time.monotonic()
    # Without fsync (a kill -9 loses nothing the kernel holds; the store calls and their
    # order are the same); make soak runs with the library's default, fsync on.
    h = crashlib.Harness(writer, str(tmp_path), SEED, fsync=False)
    base = str(tmp_path)
    # Every store step of a create, in three modes (before the call, torn, after it),
    # each on a fresh dataset that a new writer then creates despite the leftovers.
    create_steps = h.sweep_create(base)
    assert create_steps >= 4  # data file open + close, .txn, manifest (+ version hint)

    # Every store step of each other kind of op, on one dataset.
    t = h.track(base, "sweep")
    t.run_writer(3)
    h._record(t, 0)
    steps = {kind: h.sweep(t, kind) for kind in ("append", "overwrite", "delete",
                                                   "fragments")}
    assert steps["delete"] >= 3  # deletion file, .txn, manifest
    assert steps["append"] >= 4
    assert steps["fragments"] >= 4

    # Seeded random moments over a seeded random mix of ops.
    r = h.track(base, "random")
    h.random_kills(r, int(os.environ.get("LANCE_CRASH_KILLS", "220")), max_delay=0.2)
    # The random track got far enough to have history and orphans to clean.
    assert r.version >= 10, r.version

    orphans = crashlib.check_orphans(h, r, cli)
    summary = h.summary(started, seed=SEED, store="local",
                        steps_per_op=dict(steps, create=create_steps), **orphans)
    crashlib.write_summary(summary)
    assert h.kills >= 300, summary
    assert {"create", "append", "overwrite", "delete", "fragments"} <= set(h.by_kind)
    assert orphans["orphan_data_files"] > 0  # killed writes left data files behind


def test_kills_rgw(tmp_path, writer):
    opts = crashlib.s3_options()
    if opts is None:
        pytest.fail("LANCE_S3_ENDPOINT is not set: run through scripts/run_tests.sh, or "
                    "eval the RGW environment (scripts/rgw.sh start)")
    started = time.monotonic()
    h = crashlib.Harness(writer, str(tmp_path), SEED + 1, opts=opts)
    base = crashlib.s3_base()
    # A data file of ~11 MB is a multipart upload of 5 MiB parts: kills before it, inside
    # it (every 3 MiB: at 6 MiB the first part has been sent) and torn at each of its
    # steps, then at the commit's steps.
    big = h.track(base, "large")
    big.run_writer(1)
    h._record(big, 0)
    large_steps = h.sweep(big, "append_large", modes=("kill", "tear"))
    assert h.by_step.get("stream_write", 0) >= 4, dict(h.by_step)
    t = h.track(base, "small")
    t.run_writer(2)
    h._record(t, 0)
    append_steps = h.sweep(t, "append", modes=("kill",))
    h.random_kills(t, int(os.environ.get("LANCE_CRASH_S3_KILLS", "12")), max_delay=1.0,
                   ops=8)
    summary = h.summary(started, seed=SEED + 1, store="rgw",
                        steps_per_op={"append_large": large_steps, "append": append_steps})
    crashlib.write_summary(summary)
    assert h.kills >= 24, summary
