# SPDX-License-Identifier: Apache-2.0
"""lance_cpp.ray on a local Ray (2 CPUs): lance-ray's read_lance / write_lance /
LanceFragmentWriter / LanceFragmentCommitter, through a URI and through a namespace whose
calls are counted per worker process."""

import collections
import os
from ray import cloudpickle

import pyarrow as pa
import pytest

import ray  # noqa: E402,F401 - Ray is a pinned requirement: a missing one fails

import lance_cpp  # noqa: E402
import lance_cpp.ray as lr  # noqa: E402

import _ray_ns  # noqa: E402


@pytest.fixture(scope="module")
def ray_local():
    import ray as _ray
    here = os.path.dirname(os.path.abspath(__file__))
    path = os.pathsep.join([here, os.environ.get("PYTHONPATH", "")])
    _ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False,
              runtime_env={"env_vars": {"PYTHONPATH": path}})
    yield _ray
    _ray.shutdown()


SCHEMA = pa.schema([pa.field("id", pa.int64()), pa.field("name", pa.string())])


def rows(start, n):
    ids = list(range(start, start + n))
    return pa.table({"id": ids, "name": [None if i % 7 == 0 else f"n{i}" for i in ids]},
                    schema=SCHEMA)


def ray_rows(ray_local, start, n, blocks):
    return ray_local.data.from_arrow(rows(start, n)).repartition(blocks)


def sorted_ids(table):
    return sorted(table.column("id").to_pylist())


def test_write_then_read_by_uri(ray_local, tmp_path):
    uri = str(tmp_path / "t.lance")
    lr.write_lance(ray_rows(ray_local, 0, 1000, 4), uri, max_rows_per_file=200)
    ds = lance_cpp.dataset(uri)
    assert ds.version == 1  # one commit, by the driver
    assert ds.count_rows() == 1000
    assert len(ds.get_fragments()) >= 5
    got = lr.read_lance(uri, columns=["id"], filter="id % 10 = 3").to_arrow_refs()
    table = pa.concat_tables(ray_local.get(got))
    assert table.column_names == ["id"]
    assert sorted_ids(table) == list(range(3, 1000, 10))

    lr.write_lance(ray_rows(ray_local, 1000, 100, 2), uri, mode="append")
    ds = lance_cpp.dataset(uri)
    assert ds.version == 2 and ds.count_rows() == 1100
    lr.write_lance(ray_rows(ray_local, 5000, 10, 2), uri, mode="overwrite")
    ds = lance_cpp.dataset(uri)
    assert ds.version == 3
    assert sorted_ids(ds.to_table()) == list(range(5000, 5010))


def test_namespace_calls_per_worker_process(ray_local, tmp_path):
    log = str(tmp_path / "calls.log")
    props = {"root": str(tmp_path / "ns"), "log_path": log}
    impl = "_ray_ns.LoggingDirectoryNamespace"
    lr.write_lance(ray_rows(ray_local, 0, 400, 4), table_id=["t"], namespace_impl=impl,
                   namespace_properties=props, max_rows_per_file=50)
    calls = _ray_ns.calls(log)
    driver = str(os.getpid())
    # The driver declares once; each worker process describes at most once (its first
    # fragment: the table's options), however many tasks it ran.
    assert [op for pid, op in calls if pid == driver] == ["declare_table"]
    writers = collections.Counter(pid for pid, op in calls if pid != driver)
    assert writers and all(n == 1 for n in writers.values()), calls
    table = pa.concat_tables(ray_local.get(
        lr.read_lance(table_id=["t"], namespace_impl=impl, namespace_properties=props,
                      filter="id >= 100").to_arrow_refs()))
    assert sorted_ids(table) == list(range(100, 400))
    reads = _ray_ns.calls(log)[1 + sum(writers.values()):]
    per_pid = collections.Counter(pid for pid, op in reads if op == "describe_table")
    # The driver describes once; each worker process at most once, however many tasks.
    assert all(n == 1 for n in per_pid.values()), per_pid
    assert per_pid[driver] == 1


def test_fragment_writer_and_committer(ray_local, tmp_path):
    uri = str(tmp_path / "f.lance")
    schema = SCHEMA
    written = ray_rows(ray_local, 0, 300, 3).map_batches(
        lr.LanceFragmentWriter(uri, schema=schema, max_rows_per_file=64),
        batch_format="pyarrow", batch_size=None)
    written.write_datasink(lr.LanceFragmentCommitter(uri, schema=schema))
    ds = lance_cpp.dataset(uri)
    assert ds.version == 1
    assert sorted_ids(ds.to_table()) == list(range(300))


def test_a_failed_job_commits_nothing(ray_local, tmp_path):
    uri = str(tmp_path / "fail.lance")
    lr.write_lance(ray_rows(ray_local, 0, 10, 1), uri)

    def explode(batch):
        if 15 in batch["id"].to_pylist():
            raise RuntimeError("worker failed mid-write")
        return batch

    job = ray_rows(ray_local, 10, 20, 2).map_batches(explode, batch_format="pyarrow")
    with pytest.raises(ray_local.exceptions.RayError, match="worker failed mid-write"):
        lr.write_lance(job, uri, mode="append")
    ds = lance_cpp.dataset(uri)
    assert ds.version == 1 and ds.count_rows() == 10


def test_tasks_carry_no_vended_credentials(ray_local, tmp_path):
    secret = "RAY-VENDED-SECRET-" + os.urandom(6).hex()
    (tmp_path / "secret").write_text(secret)
    props = {"root": str(tmp_path / "ns"), "log_path": str(tmp_path / "calls.log"),
             "secret_file": str(tmp_path / "secret")}
    impl = "_ray_ns.LoggingDirectoryNamespace"
    spec = lr._TableSpec(None, ["t"], None, impl, props)
    # What a write task receives: the sink after the driver declared the table.
    sink = lr.LanceDatasink(spec)
    sink.on_write_start(SCHEMA)
    assert secret.encode() not in cloudpickle.dumps(sink)
    lr.write_lance(ray_rows(ray_local, 0, 20, 2), table_id=["t2"], namespace_impl=impl,
                   namespace_properties=props)
    spec = lr._TableSpec(None, ["t2"], None, impl, props)
    # What a read task receives: the datasource after the driver described the table.
    source = lr.LanceDatasource(spec)
    blob = cloudpickle.dumps(source) + b"".join(
        cloudpickle.dumps(t) for t in source.get_read_tasks(2))
    assert secret.encode() not in blob


def test_rgw_job_outlives_its_vended_keys(ray_local, tmp_path):
    """On RGW with keys that live 8 s and are revoked right after: a write and a read that
    take longer succeed, every worker refreshing by itself; the driver declares once."""
    import time

    import _vending

    s3 = _vending.S3Env()
    props = {"root": s3.unique_uri("ray"), "ttl_s": "8", "log_path": str(tmp_path / "c.log")}
    impl = "_ray_ns.RgwVendingNamespace"

    def slow(batch):
        time.sleep(3)
        return batch

    started = time.monotonic()
    data = ray_rows(ray_local, 0, 800, 8).map_batches(slow, batch_format="pyarrow",
                                                      batch_size=None)
    lr.write_lance(data, table_id=["t"], namespace_impl=impl, namespace_properties=props,
                   max_rows_per_file=50)
    read = lr.read_lance(table_id=["t"], namespace_impl=impl, namespace_properties=props,
                         filter="id >= 100", override_num_blocks=4).map_batches(
                             slow, batch_format="pyarrow", batch_size=None)
    table = pa.concat_tables(ray_local.get(read.to_arrow_refs()))
    elapsed = time.monotonic() - started
    assert sorted_ids(table) == list(range(100, 800))
    assert elapsed > 9, elapsed  # the job outlived the first keys (8 s + revocation)
    calls = _ray_ns.timed_calls(props["log_path"])
    driver = str(os.getpid())
    assert [op for pid, op, _ in calls if pid == driver].count("declare_table") == 1
    describes = collections.Counter(pid for pid, op, _ in calls if op == "describe_table")
    assert any(pid != driver for pid in describes), calls
    # One describe per process per key lifetime: never more than the windows the job
    # spans, whatever the number of tasks each process ran.
    windows = int(elapsed // 8) + 1
    assert all(n <= windows for n in describes.values()), (describes, elapsed, calls)


def test_a_worker_killed_mid_write_leaves_the_previous_version(ray_local, tmp_path):
    import signal

    uri = str(tmp_path / "killed.lance")
    lr.write_lance(ray_rows(ray_local, 0, 10, 1), uri)
    marker = tmp_path / "killed-once"

    def write_then_die(batch):
        # The first task to see id 15 writes its fragment, then is killed (SIGKILL) before
        # it can report it; no task is retried, so the job fails.
        if 15 in batch["id"].to_pylist() and not marker.exists():
            marker.write_text("x")
            lr._write_fragments(lr._TableSpec(uri, None, None, None, None), uri, batch,
                                SCHEMA, 1000, None)
            os.kill(os.getpid(), signal.SIGKILL)
        return batch

    job = ray_rows(ray_local, 10, 20, 2).map_batches(
        write_then_die, batch_format="pyarrow", batch_size=None, max_retries=0)
    with pytest.raises(ray_local.exceptions.RayError) as failed:
        lr.write_lance(job, uri, mode="append", ray_remote_args={"max_retries": 0})
    # The worker died (no Python exception of ours): Ray reports a crashed worker.
    assert "died" in str(failed.value) or "crash" in str(failed.value).lower(), failed.value
    assert marker.exists()
    ds = lance_cpp.dataset(uri)
    assert ds.version == 1 and ds.count_rows() == 10
    assert [v["version"] for v in ds.versions()] == [1]
