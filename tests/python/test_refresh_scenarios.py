# SPDX-License-Identifier: Apache-2.0
"""The ten credential-refresh scenarios of credential-refresh.md, run against real pylance
and against lance_cpp with the same test code (``lance`` is whichever module is under test).

Each scenario runs on the real RGW with a namespace that vends a new, revocable access key
on every describe/declare call (tests/python/_vending.py) and pins the namespace-call counts.

Waiting for expiry is what makes these tests slow, so every scenario is a generator: the
part before its ``yield`` runs first for all scenarios of both implementations, then one
wait covers them all, then the parts after the ``yield`` run. Each test only reports the
outcome of its own scenario.

Plus, beyond Lance: 32 threads reading one dataset across an expiry make exactly one
describe; and after the wait the first vended key really is revoked (a stale client fails).

Where pylance's count differs from the contract table the test asserts what pylance really
does for pylance and the contract's count for lance_cpp, with a comment saying so.

A third run, ``lance_cpp+rest``, puts the namespace behind a REST server: the scenarios'
namespace is lance_cpp's ``RestNamespace`` (the native client), talking to lance_cpp's
``RestAdapter`` (the native server, in this process) that serves the vending namespace.
The counts asserted are the server side's, so they pin exactly the HTTP calls the client
made, and the server's own per-operation counters must agree with them.
"""

from __future__ import annotations

import concurrent.futures
import time
import uuid

import pyarrow as pa
import pytest

from _vending import (
    IMPLS,
    KeyVendor,
    S3Env,
    VendingNamespace,
    _import_impl,
    is_pylance,
    key_vendor,  # noqa: F401  (fixture)
    load_impl,
    s3env,  # noqa: F401  (fixture)
)
from lance_namespace import DeclareTableRequest, DescribeTableRequest


def _table(ids, names=None):
    names = names if names is not None else [f"n{i}" for i in ids]
    return pa.table({"id": pa.array(ids, pa.int64()), "name": pa.array(names, pa.string())})


def _sorted(table: pa.Table) -> pa.Table:
    return table.sort_by("id")


def _expect_counts(ns, describe, declare):
    got = ns.counts()
    adapter = ns.__dict__.get("adapter")
    if adapter is not None:
        served = adapter.retrieve_ops_metrics()
        assert (served.get("describe_table", 0), served.get("declare_table", 0)) == (
            got["describe"], got["declare"]), f"server counters {served} vs {got}"
    assert (got["describe"], got["declare"]) == (describe, declare), (
        f"namespace calls: expected describe={describe} declare={declare}, got {got}")
    assert ns.other_calls == [], f"unexpected namespace calls: {ns.other_calls}"


def _expect_no_forced_refresh(c):
    """lance_cpp: the timed refresh did the work, no request was refused (403) and
    retried with a forced refresh, and no fetch failed (the counters of every provider on
    this scenario's root)."""
    if is_pylance(c.lance) or c.adapter is not None:
        return  # pylance has no counters; the REST client's provider ids name the URL
    mine = {k: v for k, v in c.lance.credential_stats().items() if c.root in k}
    assert mine, "no refresh counters for this scenario's providers"
    for provider_id, counters in mine.items():
        assert counters["forced_refreshes"] == 0, (provider_id, counters)
        assert counters["failures"] == 0, (provider_id, counters)


REST_IMPL = "lance_cpp+rest"
SCENARIO_IMPLS = IMPLS + [REST_IMPL]


def rest_client(lance, server_ns, adapter):
    """lance_cpp's native RestNamespace client of `adapter` (serving `server_ns`), which
    hands the scenarios the server side's counters and vended keys."""

    class RestVendingClient(lance.namespace.RestNamespace):
        def __getattr__(self, name):
            # Only for names the client lacks: counts(), other_calls, vended, ...
            return getattr(server_ns, name)

    client = RestVendingClient(uri=f"http://127.0.0.1:{adapter.port}")
    client.adapter = adapter
    return client


class Ctx:
    """Everything a scenario needs: the module under test, a fresh namespace, the env."""

    def __init__(self, lance, s3env, vendor, rest=False):
        self.lance = lance
        self.s3 = s3env
        self.root = s3env.unique_uri(f"refresh-{lance.__name__}{'-rest' if rest else ''}")
        self.ns = VendingNamespace(lance, s3env, vendor, self.root)
        self.adapter = None
        if rest:
            self.adapter = lance.namespace.RestAdapter(self.ns, port=0)
            self.adapter.start()
            self.ns = rest_client(lance, self.ns, self.adapter)
        self.table_id = [f"t{uuid.uuid4().hex[:8]}"]


# --- the scenarios ------------------------------------------------------------------


def scenario_open(c: Ctx):
    """1. Open: create (1 declare, 0 describe, 1 version, 2 rows), open (1 describe)."""
    lance, ns, tid = c.lance, c.ns, c.table_id
    data = _table([1, 2])
    ds = lance.write_dataset(data, namespace_client=ns, table_id=tid)
    _expect_counts(ns, describe=0, declare=1)
    assert ds.count_rows() == 2
    assert len(ds.versions()) == 1 and ds.version == 1
    _expect_counts(ns, describe=0, declare=1)

    opened = lance.dataset(namespace_client=ns, table_id=tid)
    _expect_counts(ns, describe=1, declare=1)
    assert _sorted(opened.to_table()).equals(data)
    for _ in range(3):
        assert opened.count_rows() == 2
    _expect_counts(ns, describe=1, declare=1)
    yield None  # no wait needed


def scenario_refresh(c: Ctx):
    """2. Refresh: as 1, wait past expiry, count and read: exactly one more describe."""
    lance, ns, tid = c.lance, c.ns, c.table_id
    data = _table([1, 2])
    lance.write_dataset(data, namespace_client=ns, table_id=tid)
    opened = lance.dataset(namespace_client=ns, table_id=tid)
    _expect_counts(ns, describe=1, declare=1)
    assert opened.count_rows() == 2
    assert _sorted(opened.to_table()).equals(data)
    _expect_counts(ns, describe=1, declare=1)
    yield "wait"
    assert opened.count_rows() == 2
    assert _sorted(opened.to_table()).equals(data)
    _expect_counts(ns, describe=2, declare=1)
    assert opened.count_rows() == 2
    _expect_counts(ns, describe=2, declare=1)
    # The wait was real: the first vended key is revoked on the server by now, so a client
    # that kept using it (instead of refreshing) would have failed above.
    stale = {k: v for k, v in ns.vended_options[0].items()
             if k not in ("expires_at_millis", "refresh_offset_millis")}
    # pylance 14 reports the 403 as a ValueError ("LanceError(IO): ... 403 Forbidden");
    # lance_cpp maps 401/403 to PermissionError (issue 6, item 1).
    expected = ValueError if is_pylance(lance) else PermissionError
    with pytest.raises(expected, match="403"):
        lance.dataset(opened.uri, storage_options=stale).count_rows()
    _expect_no_forced_refresh(c)


def scenario_concurrent_readers(c: Ctx):
    """Beyond Lance: 32 threads reading one dataset across an expiry make one describe."""
    lance, ns, tid = c.lance, c.ns, c.table_id
    data = _table(list(range(100)))
    lance.write_dataset(data, namespace_client=ns, table_id=tid)
    opened = lance.dataset(namespace_client=ns, table_id=tid)
    _expect_counts(ns, describe=1, declare=1)
    yield "wait"

    def read(_):
        return opened.count_rows(), _sorted(opened.to_table()).equals(data)

    with concurrent.futures.ThreadPoolExecutor(32) as pool:
        results = list(pool.map(read, range(32)))
    assert results == [(100, True)] * 32
    _expect_counts(ns, describe=2, declare=1)
    _expect_no_forced_refresh(c)


def scenario_append_through_namespace(c: Ctx):
    """3. Create 1 row; append through the namespace; open again."""
    lance, ns, tid = c.lance, c.ns, c.table_id
    first, second = _table([1]), _table([2])
    ds = lance.write_dataset(first, namespace_client=ns, table_id=tid)
    assert ds.count_rows() == 1 and len(ds.versions()) == 1
    _expect_counts(ns, describe=0, declare=1)

    ds = lance.write_dataset(second, namespace_client=ns, table_id=tid, mode="append")
    _expect_counts(ns, describe=1, declare=1)
    assert ds.count_rows() == 2 and len(ds.versions()) == 2

    opened = lance.dataset(namespace_client=ns, table_id=tid)
    _expect_counts(ns, describe=2, declare=1)
    assert opened.count_rows() == 2 and len(opened.versions()) == 2
    assert _sorted(opened.to_table()).equals(_table([1, 2]))
    _expect_counts(ns, describe=2, declare=1)
    yield None


def scenario_create_mode(c: Ctx):
    """4. Create mode: 1 declare, 2 rows, 1 version, data equal."""
    lance, ns, tid = c.lance, c.ns, c.table_id
    data = _table([10, 20])
    ds = lance.write_dataset(data, namespace_client=ns, table_id=tid, mode="create")
    _expect_counts(ns, describe=0, declare=1)
    assert ds.count_rows() == 2
    assert len(ds.versions()) == 1
    assert _sorted(ds.to_table()).equals(data)
    _expect_counts(ns, describe=0, declare=1)
    yield None


def _write_mode_scenario(c: Ctx, mode: str):
    lance, ns, tid = c.lance, c.ns, c.table_id
    first, second = _table([1]), _table([2])
    lance.write_dataset(first, namespace_client=ns, table_id=tid)
    _expect_counts(ns, describe=0, declare=1)
    ds = lance.write_dataset(second, namespace_client=ns, table_id=tid, mode=mode)
    _expect_counts(ns, describe=1, declare=1)
    assert len(ds.versions()) == 2
    expected = _table([1, 2]) if mode == "append" else second
    for _ in range(3):
        assert ds.count_rows() == expected.num_rows
    assert _sorted(ds.to_table()).equals(expected)
    _expect_counts(ns, describe=1, declare=1)


def scenario_append_mode(c: Ctx):
    """5. Append mode: describe 1, 2 rows, 2 versions; three more counts make no call."""
    _write_mode_scenario(c, "append")
    yield None


def scenario_overwrite_mode(c: Ctx):
    """6. Overwrite mode: describe 1, 2 versions, contents = the new data."""
    _write_mode_scenario(c, "overwrite")
    yield None


def scenario_distributed_write(c: Ctx):
    """7. declare_table, three workers write_fragments, commit an Overwrite."""
    lance, ns, tid = c.lance, c.ns, c.table_id
    declared = ns.declare_table(DeclareTableRequest(id=tid))
    _expect_counts(ns, describe=0, declare=1)
    location, options = declared.location, dict(declared.storage_options)
    parts = [_table([1, 2]), _table([3, 4]), _table([5])]

    def worker(part):
        return lance.fragment.write_fragments(
            part, location, storage_options=options, namespace_client=ns, table_id=tid)

    with concurrent.futures.ThreadPoolExecutor(3) as pool:
        fragments = [f for frags in pool.map(worker, parts) for f in frags]
    _expect_counts(ns, describe=0, declare=1)
    assert len(fragments) == 3

    op = lance.LanceOperation.Overwrite(parts[0].schema, fragments)
    ds = lance.LanceDataset.commit(location, op, storage_options=options,
                                   namespace_client=ns, table_id=tid)
    _expect_counts(ns, describe=0, declare=1)
    assert ds.count_rows() == 5
    assert ds.version == 1 and len(ds.versions()) == 1
    assert _sorted(ds.to_table()).equals(_table([1, 2, 3, 4, 5]))

    opened = lance.dataset(namespace_client=ns, table_id=tid)
    _expect_counts(ns, describe=1, declare=1)
    assert opened.count_rows() == 5
    yield None


def _described(c: Ctx):
    """A table in the namespace and one describe's options (declare 1, describe 1)."""
    c.lance.write_dataset(_table([0]), namespace_client=c.ns, table_id=c.table_id)
    response = c.ns.describe_table(DescribeTableRequest(id=c.table_id))
    _expect_counts(c.ns, describe=1, declare=1)
    return response.location, dict(response.storage_options)


def _write_file(lance, path, batches, **kwargs):
    with lance.file.LanceFileWriter(path, batches[0].schema, **kwargs) as writer:
        for batch in batches:
            writer.write_batch(batch)


def _read_file(lance, path, **kwargs) -> pa.Table:
    reader = lance.file.LanceFileReader(path, **kwargs)
    return reader.read_all(batch_size=1024).to_table()


def scenario_file_writer(c: Ctx):
    """8. File writer with a describe's options and a provider; refresh on the second."""
    lance, ns, tid = c.lance, c.ns, c.table_id
    location, options = _described(c)
    provider = dict(storage_options=options, namespace_client=ns, table_id=tid)
    batches = [_table([1, 2]).to_batches()[0], _table([3]).to_batches()[0]]
    expected = pa.Table.from_batches(batches)
    path1 = f"{location}/standalone/one.lance"
    _write_file(lance, path1, batches, **provider)
    _expect_counts(ns, describe=1, declare=1)
    assert _read_file(lance, path1, **provider).equals(expected)
    _expect_counts(ns, describe=1, declare=1)
    yield "wait"
    path2 = f"{location}/standalone/two.lance"
    _write_file(lance, path2, batches, **provider)
    _expect_counts(ns, describe=2, declare=1)
    got = _read_file(lance, path2, **provider)
    assert got.equals(expected)
    if is_pylance(c.lance):
        # pylance: every writer/reader has its own credential cache, so the reader created
        # after the expiry refreshes again. The contract (one shared store per provider)
        # makes it reuse the writer's fresh credentials.
        _expect_counts(ns, describe=3, declare=1)
    else:
        _expect_counts(ns, describe=2, declare=1)
    _expect_no_forced_refresh(c)


def scenario_file_reader(c: Ctx):
    """9. File reader with a provider: no call before expiry, one after."""
    lance, ns, tid = c.lance, c.ns, c.table_id
    static = c.s3.options()
    data = _table([7, 8, 9])
    location = f"{c.root}/{tid[0]}.lance"
    path1 = f"{location}/standalone/r1.lance"
    _write_file(lance, path1, data.to_batches(), storage_options=static)
    _, fresh = _described(c)  # fresh options: the table's describe, just taken
    provider = dict(storage_options=fresh, namespace_client=ns, table_id=tid)
    assert _read_file(lance, path1, **provider).equals(data)
    _expect_counts(ns, describe=1, declare=1)
    yield "wait"
    path2 = f"{location}/standalone/r2.lance"
    # The first vended keys are revoked by now: write with the static test keys.
    _write_file(lance, path2, data.to_batches(), storage_options=static)
    _expect_counts(ns, describe=1, declare=1)
    assert _read_file(lance, path2, **provider).equals(data)
    _expect_counts(ns, describe=2, declare=1)
    _expect_no_forced_refresh(c)


def scenario_file_session(c: Ctx):
    """10. File session: no call before expiry; a second write refreshes once."""
    lance, ns, tid = c.lance, c.ns, c.table_id
    location, options = _described(c)
    base = f"{location}/session"
    session = lance.file.LanceFileSession(base, storage_options=options,
                                          namespace_client=ns, table_id=tid)
    assert session.contains("s1.lance") is False
    assert list(session.list()) == []
    data = _table([4, 5])
    writer = session.open_writer("s1.lance")
    writer.write_batch(data)
    writer.close()
    got = session.open_reader("s1.lance").read_all().to_table()
    assert got.equals(data)
    assert session.contains("s1.lance") is True
    _expect_counts(ns, describe=1, declare=1)
    yield "wait"
    writer = session.open_writer("s2.lance")
    writer.write_batch(data)
    writer.close()
    _expect_counts(ns, describe=2, declare=1)
    got = session.open_reader("s2.lance").read_all().to_table()
    assert got.equals(data)
    _expect_counts(ns, describe=2, declare=1)
    _expect_no_forced_refresh(c)


SCENARIOS = {
    "open": scenario_open,
    "refresh": scenario_refresh,
    "append_through_namespace": scenario_append_through_namespace,
    "create_mode": scenario_create_mode,
    "append_mode": scenario_append_mode,
    "overwrite_mode": scenario_overwrite_mode,
    "distributed_write": scenario_distributed_write,
    "file_writer": scenario_file_writer,
    "file_reader": scenario_file_reader,
    "file_session": scenario_file_session,
    "concurrent_readers": scenario_concurrent_readers,
}


# --- the runner ---------------------------------------------------------------------


class _Outcome:
    def __init__(self):
        self.error = None
        self.phase1_s = None
        self.phase2_s = None


def _run_all(s3env: S3Env, vendor: KeyVendor):
    """Runs every scenario of every implementation; returns {(impl, name): _Outcome}."""
    outcomes = {}
    running = []  # (outcome, generator, deadline)
    adapters = []
    for impl_name in SCENARIO_IMPLS:
        try:
            lance = load_impl("lance_cpp" if impl_name == REST_IMPL else impl_name)
            import_error = None
        except ImportError as e:
            lance, import_error = None, e
        for name, scenario in SCENARIOS.items():
            out = outcomes[(impl_name, name)] = _Outcome()
            if import_error is not None:
                out.error = import_error
                continue
            # Every key the scenario vends before its wait is minted now, outside the
            # window its checks depend on.
            vendor.premint(4)
            start = time.monotonic()
            try:
                ctx = Ctx(lance, s3env, vendor, rest=impl_name == REST_IMPL)
                if ctx.adapter is not None:
                    adapters.append(ctx.adapter)
                gen = scenario(ctx)
                step = next(gen)
                out.phase1_s = time.monotonic() - start
                if step == "wait":
                    # Phase 2 starts once every key vended so far expired and was revoked.
                    running.append((out, gen, list(ctx.ns.vended)))
                else:
                    next(gen, None)
            except BaseException as e:  # noqa: BLE001 - reported by the test
                out.error = e
    for out, gen, keys in running:
        start = time.monotonic()
        try:
            vendor.premint(2)
            vendor.wait_revoked(keys)
            start = time.monotonic()
            next(gen)
            raise AssertionError("scenario yielded twice")
        except StopIteration:
            pass
        except BaseException as e:  # noqa: BLE001
            out.error = e
        out.phase2_s = time.monotonic() - start
    for adapter in adapters:
        adapter.stop()
    return outcomes


@pytest.fixture(scope="module")
def outcomes(s3env, key_vendor):
    return _run_all(s3env, key_vendor)


@pytest.mark.parametrize("name", list(SCENARIOS))
@pytest.mark.parametrize("impl_name", SCENARIO_IMPLS)
def test_refresh_scenario(outcomes, impl_name, name):
    if impl_name in ("lance_cpp", REST_IMPL):
        _import_impl("lance_cpp")  # fails (never skips) when lance_cpp is missing
    out = outcomes[(impl_name, name)]
    if out.error is not None:
        raise out.error
