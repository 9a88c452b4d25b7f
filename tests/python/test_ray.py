# SPDX-License-Identifier: Apache-2.0
"""lance_cpp.ray on a local Ray (2 CPUs): lance-ray's read_lance / write_lance /
LanceFragmentWriter / LanceFragmentCommitter, through a URI and through a namespace whose
calls are counted per worker process."""

import collections
import os
import tempfile
from ray import cloudpickle

import pyarrow as pa
import pyarrow.compute as pc
import pytest

import ray  # noqa: E402,F401 - Ray is a pinned requirement: a missing one fails

import lance_cpp  # noqa: E402
import lance_cpp.ray as lr  # noqa: E402

import _ray_ns  # noqa: E402


def _ray_temp_dir():
    """Ray's session files (its logs, the workers' output) under the run's log directory,
    which the secrets scan of `make test` reads (scripts/scan_secrets.sh); Ray's default
    /tmp/ray without one, or when that path would make Ray's Unix sockets
    (<dir>/session_<time>_<pid>/sockets/plasma_store) longer than sun_path allows."""
    logs = os.environ.get("LANCE_TEST_LOG_DIR")
    if logs:
        path = os.path.join(os.path.abspath(logs), "ray")
        if len(path) + 64 < 107:
            return path
    return None


@pytest.fixture(scope="module")
def ray_local():
    import ray as _ray
    here = os.path.dirname(os.path.abspath(__file__))
    path = os.pathsep.join([here, os.environ.get("PYTHONPATH", "")])
    _ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False,
              _temp_dir=_ray_temp_dir(), runtime_env={"env_vars": {"PYTHONPATH": path}})
    yield _ray
    _ray.shutdown()


def ray_session_files(ray_local):
    """Every regular file of this Ray session (logs, workers' output)."""
    root = ray_local._private.worker._global_node.get_session_dir_path()
    for dirpath, _, names in os.walk(root):
        for name in names:
            p = os.path.join(dirpath, name)
            if os.path.isfile(p) and not os.path.islink(p):
                yield p


def assert_no_secret_in_ray_session(ray_local, secrets, canary):
    """No secret in any file of the session; the canary (printed by a worker) is found,
    so the scan does see the workers' output."""
    import time
    import urllib.parse

    needles = {}
    for secret in secrets:
        for form in {secret, urllib.parse.quote(secret, safe="")}:
            needles[form.encode()] = secret[:4] + "***"
    deadline = time.monotonic() + 20
    while True:  # the workers' output reaches its files asynchronously
        files = list(ray_session_files(ray_local))
        blobs = {}
        for p in files:
            try:
                with open(p, "rb") as f:
                    blobs[p] = f.read()
            except OSError:
                continue
        if any(canary.encode() in b for b in blobs.values()) or time.monotonic() > deadline:
            break
        time.sleep(0.5)
    assert any(canary.encode() in b for b in blobs.values()), \
        f"the canary is in none of {len(files)} session files: the scan sees nothing"
    hits = [(p, label) for p, b in blobs.items() for n, label in needles.items() if n in b]
    assert not hits, hits


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
    lr.write_lance(ray_rows(ray_local, 0, 1000, 4), uri, min_rows_per_file=1,
                   max_rows_per_file=200)
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
                   namespace_properties=props, min_rows_per_file=1, max_rows_per_file=50)
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


def test_lance_ray_arguments(ray_local, tmp_path):
    """min_rows_per_file gathers blocks (fewer, larger files), dataset_options picks the
    version read, LanceFragmentWriter's transform runs first; lance-ray arguments with no
    counterpart are refused unless at their default, unknown ones are a TypeError."""
    uri = str(tmp_path / "args.lance")
    lr.write_lance(ray_rows(ray_local, 0, 400, 8), uri, min_rows_per_file=200,
                   max_rows_per_file=1000)
    ds = lance_cpp.dataset(uri)
    assert ds.count_rows() == 400
    assert all(f.count_rows() >= 200 for f in ds.get_fragments()), \
        [f.count_rows() for f in ds.get_fragments()]
    lr.write_lance(ray_rows(ray_local, 400, 10, 1), uri, mode="append")
    old = pa.concat_tables(ray_local.get(lr.read_lance(
        uri, dataset_options={"version": 1}).to_arrow_refs()))
    assert sorted_ids(old) == list(range(400))

    def double(table):  # a generator of tables, as lance-ray's transform may be
        yield table
        yield table.set_column(0, "id", pc.add(table.column("id"), 10000))

    uri2 = str(tmp_path / "transformed.lance")
    ray_rows(ray_local, 0, 50, 2).map_batches(
        lr.LanceFragmentWriter(uri2, transform=double, schema=SCHEMA),
        batch_format="pyarrow", batch_size=None).write_datasink(
            lr.LanceFragmentCommitter(uri2, schema=SCHEMA))
    assert sorted_ids(lance_cpp.dataset(uri2).to_table()) == \
        list(range(50)) + list(range(10000, 10050))

    # A Dataset whose schema Ray knows only once it ran: the tasks bring it back.
    uri3 = str(tmp_path / "lazy.lance")
    lr.write_lance(ray_local.data.range(30, override_num_blocks=3).map_batches(
        lambda b: {"id": b["id"], "twice": b["id"] * 2}), uri3, min_rows_per_file=1)
    lazy = lance_cpp.dataset(uri3).to_table()
    assert lazy.column_names == ["id", "twice"] and sorted_ids(lazy) == list(range(30))

    with pytest.raises(NotImplementedError, match="enable_stable_row_ids"):
        lr.write_lance(ray_rows(ray_local, 0, 1, 1), uri, mode="append",
                       enable_stable_row_ids=True)
    with pytest.raises(TypeError, match="max_rows_per_fle"):
        lr.write_lance(ray_rows(ray_local, 0, 1, 1), uri, max_rows_per_fle=3)
    with pytest.raises(ValueError, match="min_rows_per_file"):
        lr.write_lance(ray_rows(ray_local, 0, 1, 1), uri, max_rows_per_file=10)
    assert lance_cpp.dataset(uri).version == 2  # nothing written by the refused calls


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


def slow_job_outlives_credentials(ray_local, impl, namespace_props, n, blocks, window_s,
                                  slow):
    """Writes ids 0..n (in `blocks` blocks) to table "t" of the namespace impl(props) and
    reads back those >= 100, every batch through `slow` both ways, so that the job
    outlives the first vended credentials (> 9 s). The driver declares once, the workers
    describe by themselves, each process at most once per `window_s` seconds of the job
    (whatever the number of tasks it ran). Returns the namespace calls, timed."""
    import time

    props = namespace_props
    started = time.monotonic()
    data = ray_rows(ray_local, 0, n, blocks).map_batches(slow, batch_format="pyarrow",
                                                         batch_size=None)
    lr.write_lance(data, table_id=["t"], namespace_impl=impl, namespace_properties=props,
                   min_rows_per_file=1, max_rows_per_file=50)
    read = lr.read_lance(table_id=["t"], namespace_impl=impl, namespace_properties=props,
                         filter="id >= 100", override_num_blocks=4).map_batches(
                             slow, batch_format="pyarrow", batch_size=None)
    table = pa.concat_tables(ray_local.get(read.to_arrow_refs()))
    elapsed = time.monotonic() - started
    assert sorted_ids(table) == list(range(100, n))
    assert elapsed > 9, elapsed  # the job outlived the first credentials
    calls = _ray_ns.timed_calls(props["log_path"])
    driver = str(os.getpid())
    assert [op for pid, op, _ in calls if pid == driver].count("declare_table") == 1
    describes = collections.Counter(pid for pid, op, _ in calls if op == "describe_table")
    assert any(pid != driver for pid in describes), calls
    windows = int(elapsed // window_s) + 1
    assert all(count <= windows for count in describes.values()), (describes, elapsed, calls)
    return calls


def test_rgw_job_outlives_its_vended_keys(ray_local, tmp_path):
    """On RGW with keys that live 8 s and are revoked right after: a write and a read that
    take longer succeed, every worker refreshing by itself; the driver declares once."""
    import time

    import _vending

    s3 = _vending.S3Env()
    # The vended secrets are kept outside the test's folder, which the run's secrets scan
    # reads (scripts/scan_secrets.sh), and removed with the test.
    secrets_dir = tempfile.TemporaryDirectory(prefix="ray-vended-")
    os.chmod(secrets_dir.name, 0o700)
    secrets_log = os.path.join(secrets_dir.name, "vended")
    props = {"root": s3.unique_uri("ray"), "ttl_s": "8", "log_path": str(tmp_path / "c.log"),
             "secrets_log": secrets_log}
    impl = "_ray_ns.RgwVendingNamespace"
    canary = "RAY-LOG-CANARY-" + os.urandom(6).hex()

    def slow(batch):
        print(canary, flush=True)  # into this worker's log file in the session
        time.sleep(3)
        return batch

    # A key lives 8 s (then it is revoked): one describe per process per 8 s window.
    calls = slow_job_outlives_credentials(ray_local, impl, props, 800, 8, 8, slow)
    # Neither the vended secrets nor the RGW's own key in Ray's logs.
    with secrets_dir:
        with open(secrets_log) as f:
            vended = f.read().split()
    assert len(vended) == len(calls), (len(vended), calls)
    assert_no_secret_in_ray_session(ray_local, vended + [s3.secret_key], canary)


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


GENERATED = pa.schema([pa.field("id", pa.int64()), pa.field("x", pa.float64()),
                       pa.field("s", pa.string()), pa.field("v", pa.list_(pa.float32(), 4))])


def generate(batch):
    """Rows made from their id alone (so the expected result is known): x in [0, 1), a
    string that is null every 7th row, a 4-float vector."""
    ids = batch["id"].to_pylist()
    return pa.table({
        "id": ids,
        "x": [(i * 7919 % 1000) / 1000.0 for i in ids],
        "s": [None if i % 7 == 0 else f"row-{i}" for i in ids],
        "v": [[float(i), i / 2.0, -1.0, i % 5] for i in ids],
    }, schema=GENERATED)


def test_side_by_side_with_lance_ray_on_rgw(ray_local, tmp_path):
    """The same Ray Dataset of generated rows written by lance_cpp.ray and by lance-ray
    (pylance) to one directory namespace on RGW with vended keys; each table read back with
    a filter by both engines: the four reads are equal, and equal to the rows expected."""
    import lance_ray

    import _vending

    s3 = _vending.S3Env()
    props = {"root": s3.unique_uri("ray-both"), "ttl_s": "300",
             "log_path": str(tmp_path / "c.log")}
    ns = {"namespace_impl": "_ray_ns.RgwVendingNamespace", "namespace_properties": props}
    data = ray_local.data.range(3000, override_num_blocks=4).map_batches(
        generate, batch_format="pyarrow").materialize()
    sizes = {"min_rows_per_file": 100, "max_rows_per_file": 500}
    lr.write_lance(data, table_id=["by_lance_cpp"], **sizes, **ns)
    lance_ray.write_lance(data, table_id=["by_lance_ray"], **sizes, **ns)
    filt = "x < 0.5 AND s IS NOT NULL"
    expected = generate(pa.table({"id": list(range(3000))})).filter(
        (pc.field("x") < 0.5) & pc.field("s").is_valid())
    assert 0 < expected.num_rows < 3000
    for engine in (lr, lance_ray):
        for table_id in (["by_lance_cpp"], ["by_lance_ray"]):
            got = pa.concat_tables(ray_local.get(engine.read_lance(
                table_id=table_id, filter=filt, **ns).to_arrow_refs())).sort_by("id")
            assert got.schema.equals(GENERATED), (engine.__name__, table_id, got.schema)
            assert got.equals(expected), (engine.__name__, table_id)
    # Each engine committed its table once (one version), through the namespace.
    for table_id in (["by_lance_cpp"], ["by_lance_ray"]):
        ds = lr._TableSpec(None, table_id, None, ns["namespace_impl"], props).open()
        assert ds.version == 1 and ds.count_rows() == 3000


def test_azure_job_outlives_its_vended_sas(ray_local, tmp_path):
    """On Azurite, through lance_cpp's own vending DirectoryNamespace on an az:// root: SAS
    tokens that live 8 s (Azurite refuses them afterwards), a write and a read that take
    longer; every worker process refreshes by itself, the driver declares once."""
    import time

    from _azurite import Azurite

    azure = Azurite()
    props = {**azure.vending_props(f"az://{azure.container}/ray-{os.urandom(6).hex()}",
                                   "write"),
             "credential_vendor.reported_lifetime_millis": "8000",
             "credential_vendor.refresh_offset_millis": "2000",
             "log_path": str(tmp_path / "c.log")}
    impl = "_ray_ns.LoggingDirectoryNamespace"

    def slow(batch):
        time.sleep(3)
        return batch

    # A token lives 8 s and is refreshed 2 s early: one describe per process per 6 s.
    slow_job_outlives_credentials(ray_local, impl, props, 400, 4, 6, slow)
