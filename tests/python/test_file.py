# SPDX-License-Identifier: Apache-2.0
"""lance_cpp.file and lance_cpp.io: Lance files written and read locally and on RGW, side
by side with pylance's ``lance.file``, and Python StorageOptionsProviders called by the
native core from many threads at once.
"""

from __future__ import annotations

import threading
import time

import pyarrow as pa
import pytest

import lance.file as pylance_file
import lance_cpp
import lance_cpp.file as lf
from lance_cpp import _lance_cpp
from lance_cpp.io import StorageOptionsProvider

from _vending import TTL_S, KeyVendor, S3Env, key_vendor, s3env  # noqa: F401


def sample_table(n: int = 1000, offset: int = 0) -> pa.Table:
    return pa.table(
        {
            "id": pa.array(range(offset, offset + n), pa.int64()),
            "name": pa.array([f"row-{i}" for i in range(offset, offset + n)]),
            "vec": pa.array(
                [[float(i), float(i) / 2] for i in range(offset, offset + n)],
                pa.list_(pa.float32()),
            ),
            "maybe": pa.array([None if i % 3 == 0 else i for i in range(n)], pa.int32()),
        }
    )


def run_in_threads(fn, count: int, timeout: float = 120.0) -> list:
    """Runs fn(i) in `count` Python threads; fails (instead of hanging) on a deadlock."""
    results = [None] * count
    errors = []

    def body(i):
        try:
            results[i] = fn(i)
        except BaseException as e:  # noqa: BLE001 - reported below
            errors.append(e)

    threads = [threading.Thread(target=body, args=(i,), daemon=True) for i in range(count)]
    for t in threads:
        t.start()
    deadline = time.monotonic() + timeout
    for t in threads:
        t.join(max(0.0, deadline - time.monotonic()))
    alive = [t for t in threads if t.is_alive()]
    assert not alive, f"{len(alive)} of {count} threads still running after {timeout}s (deadlock?)"
    if errors:
        raise errors[0]
    return results


# -- local ---------------------------------------------------------------------------------


def test_writer_reader_round_trip(tmp_path):
    data = sample_table(2500)
    path = tmp_path / "data" / "a.lance"
    with lf.LanceFileWriter(str(path), data.schema) as writer:
        writer.write_batch(data.slice(0, 1000))  # a Table
        for batch in data.slice(1000).to_batches(max_chunksize=700):
            writer.write_batch(batch)  # RecordBatches
    assert writer.closed
    assert writer.size_bytes == path.stat().st_size

    reader = lf.LanceFileReader(path)  # a Path works as in pylance
    assert reader.num_rows() == 2500
    meta = reader.metadata()
    assert meta.num_rows == 2500
    assert meta.schema == data.schema
    # 2.2 by default, as pylance 14 ("stable"); the footer says 2.2
    assert (meta.major_version, meta.minor_version) == (2, 2)
    assert lf.stable_version() == pylance_file.stable_version() == "2.2"
    assert reader.read_all(batch_size=100).to_table().equals(data)
    batches = list(reader.read_all(batch_size=1000).to_batches())
    assert [b.num_rows for b in batches] == [1000, 1000, 500]
    assert reader.read_range(10, 5).to_table().equals(data.slice(10, 5))
    assert reader.take_rows([3, 7, 2000]).to_table().equals(data.take([3, 7, 2000]))
    with pytest.raises(ValueError):
        reader.take_rows([5, 1])

    only = lf.LanceFileReader(str(path), columns=["name", "id"]).read_all().to_table()
    assert only.equals(data.select(["name", "id"]))


def test_lazy_writer_takes_schema_of_first_batch(tmp_path):
    data = sample_table(10)
    writer = lf.LanceFileWriter(str(tmp_path / "lazy.lance"))
    writer.write_batch(data)
    assert writer.close() == 10
    assert writer.close() is None  # closing twice is a no-op, as in pylance
    assert lf.LanceFileReader(str(tmp_path / "lazy.lance")).read_all().to_table().equals(data)

    empty = lf.LanceFileWriter(str(tmp_path / "never.lance"))
    with pytest.raises(ValueError, match="schema"):
        empty.close()


def test_failed_write_publishes_nothing(tmp_path):
    path = tmp_path / "aborted.lance"
    with pytest.raises(RuntimeError):
        with lf.LanceFileWriter(str(path), sample_table(1).schema) as writer:
            writer.write_batch(sample_table(5))
            raise RuntimeError("stop")
    assert not path.exists()


def test_type_mismatch_is_value_error(tmp_path):
    writer = lf.LanceFileWriter(str(tmp_path / "m.lance"), pa.schema([("a", pa.int64())]))
    with pytest.raises(ValueError):
        writer.write_batch(pa.table({"a": pa.array(["x"])}))


def test_missing_file_is_file_not_found_and_value_error(tmp_path):
    with pytest.raises(FileNotFoundError) as info:
        lf.LanceFileReader(str(tmp_path / "missing.lance"))
    assert isinstance(info.value, ValueError)  # what pylance raises
    assert isinstance(info.value, lance_cpp.LanceError)
    assert "missing.lance" in str(info.value)
    # pylance raises ValueError for the same call
    with pytest.raises(ValueError):
        pylance_file.LanceFileReader(str(tmp_path / "missing.lance"))


@pytest.mark.parametrize("version,stored", [(None, (2, 2)), ("2.0", (0, 3)), ("2.1", (2, 1)),
                                            ("2.2", (2, 2))])
def test_files_cross_implementations(tmp_path, version, stored):
    data = sample_table(3000)
    ours = tmp_path / "ours.lance"
    theirs = tmp_path / "theirs.lance"
    kwargs = {} if version is None else {"version": version}
    with lf.LanceFileWriter(str(ours), data.schema, **kwargs) as w:
        w.write_batch(data)
    with pylance_file.LanceFileWriter(str(theirs), data.schema, **kwargs) as w:
        w.write_batch(data)

    read_by_pylance = pylance_file.LanceFileReader(str(ours))
    assert read_by_pylance.num_rows() == 3000
    assert read_by_pylance.read_all().to_table().equals(data)
    theirs_meta = pylance_file.LanceFileReader(str(theirs)).metadata()
    ours_meta = read_by_pylance.metadata()
    # (0, 3) is how 2.0 footers are stored
    assert (ours_meta.major_version, ours_meta.minor_version) == stored
    assert (theirs_meta.major_version, theirs_meta.minor_version) == stored

    read_by_us = lf.LanceFileReader(str(theirs))
    assert read_by_us.num_rows() == 3000
    assert read_by_us.read_all().to_table().equals(data)
    assert read_by_us.metadata().schema == theirs_meta.schema
    assert (read_by_us.metadata().major_version, read_by_us.metadata().minor_version) == stored


def test_session_local_matches_pylance(tmp_path):
    data = sample_table(50)
    base = tmp_path / "base"
    ours = lf.LanceFileSession(str(base))
    for name in ["b/2.lance", "a/1.lance", "c.lance", "a/deep/3.lance"]:
        with ours.open_writer(name, schema=data.schema) as w:
            w.write_batch(data)
    with ours.open_writer("lazy.lance") as w:  # schema from the first batch
        w.write_batch(data)

    theirs = pylance_file.LanceFileSession(str(base))
    assert sorted(ours.list()) == sorted(theirs.list())
    assert sorted(ours.list("a")) == sorted(theirs.list("a"))
    assert ours.list("a") == ["a/1.lance", "a/deep/3.lance"]
    for name in ["a/1.lance", "c.lance", "nope.lance", "a/nope.lance"]:
        assert ours.contains(name) == theirs.contains(name), name
    assert ours.open_reader("a/deep/3.lance").read_all().to_table().equals(data)
    assert ours.open_reader("c.lance", columns=["id"]).read_all().to_table().equals(
        data.select(["id"]))
    assert theirs.open_reader("lazy.lance").read_all().to_table().equals(data)
    with pytest.raises(FileNotFoundError):
        ours.open_reader("nope.lance")
    with pytest.raises(ValueError):
        ours.contains("../escape.lance")


def test_session_from_python_threads(tmp_path):
    session = lf.LanceFileSession(str(tmp_path))

    def work(i):
        data = sample_table(200, offset=i * 1000)
        with session.open_writer(f"t/{i}.lance", schema=data.schema) as w:
            w.write_batch(data)
        return session.open_reader(f"t/{i}.lance").read_all().to_table().equals(data)

    assert all(run_in_threads(work, 8))
    assert len(session.list("t")) == 8


# -- StorageOptionsProvider ------------------------------------------------------------------


class CountingProvider(StorageOptionsProvider):
    """Vends options valid for `ttl_ms` from now (or the given fixed options)."""

    def __init__(self, ttl_ms: int = 3_600_000, delay_s: float = 0.0, options=None):
        self.calls = 0
        self.threads = set()
        self._ttl_ms = ttl_ms
        self._delay = delay_s
        self._options = options
        self._lock = threading.Lock()

    def fetch_storage_options(self):
        with self._lock:
            self.calls += 1
            self.threads.add(threading.get_ident())
        if self._delay:
            time.sleep(self._delay)  # holds the fetch open while other threads ask
        if self._options is not None:
            return dict(self._options)
        return {
            "aws_access_key_id": "AKIDEXAMPLE",
            "aws_secret_access_key": "not-a-real-secret-value",
            "expires_at_millis": str(int(time.time() * 1000) + self._ttl_ms),
        }

    def provider_id(self):
        return f"CountingProvider {{ id: {id(self):#x} }}"


EXPIRED = {
    "aws_access_key_id": "AKIDOLD",
    "aws_secret_access_key": "old-secret-value",
    "expires_at_millis": "1000",
}


def test_provider_base_class_and_duck_typing():
    assert lance_cpp.io.StorageOptionsProvider is StorageOptionsProvider
    with pytest.raises(TypeError):
        StorageOptionsProvider()  # abstract

    class Minimal(StorageOptionsProvider):
        def fetch_storage_options(self):
            return {}

    assert Minimal().provider_id().startswith("test_provider_base_class_and_duck_typing."
                                               "<locals>.Minimal")

    class Duck:  # not a subclass: accepted like pylance's own providers
        calls = 0

        def fetch_storage_options(self):
            Duck.calls += 1
            return {"aws_access_key_id": "A", "aws_secret_access_key": "B",
                    "expires_at_millis": str(int(time.time() * 1000) + 3_600_000)}

    assert _lance_cpp._hammer_provider(Duck(), EXPIRED, 4, 10) == 40
    assert Duck.calls == 1
    with pytest.raises(TypeError, match="fetch_storage_options"):
        _lance_cpp._hammer_provider(object(), EXPIRED, 1, 1)


def test_provider_called_from_many_cpp_threads_once_per_expiry():
    # Expired initial options: the first of 16 threads to ask fetches (holding the fetch
    # open for 0.5 s, with the GIL released in between), the other 15 wait for it.
    provider = CountingProvider(delay_s=0.5)
    assert _lance_cpp._hammer_provider(provider, EXPIRED, 16, 50) == 16 * 50
    assert provider.calls == 1
    assert threading.get_ident() not in provider.threads  # called from C++ threads

    # Valid initial options: no fetch at all.
    fresh = dict(EXPIRED, expires_at_millis=str(int(time.time() * 1000) + 3_600_000))
    provider2 = CountingProvider()
    assert _lance_cpp._hammer_provider(provider2, fresh, 8, 20) == 160
    assert provider2.calls == 0


def test_provider_hammered_while_python_threads_run():
    # C++ threads needing the GIL for the fetch while Python threads also run and call in.
    provider = CountingProvider(delay_s=0.2)

    def hammer(i):
        p = CountingProvider(delay_s=0.05)
        n = _lance_cpp._hammer_provider(p, EXPIRED, 4, 25)
        return n, p.calls

    results = run_in_threads(hammer, 6)
    assert results == [(100, 1)] * 6
    assert _lance_cpp._hammer_provider(provider, EXPIRED, 8, 5) == 40
    assert provider.calls == 1


def test_provider_errors_become_exceptions_without_secrets():
    class Failing(StorageOptionsProvider):
        def fetch_storage_options(self):
            raise RuntimeError("vending service down")

    with pytest.raises(lance_cpp.LanceError) as info:
        _lance_cpp._hammer_provider(Failing(), EXPIRED, 2, 1)
    assert "vending service down" in str(info.value)
    assert "old-secret-value" not in str(info.value)

    class BadValue(StorageOptionsProvider):
        def fetch_storage_options(self):
            return {"aws_access_key_id": "A", "aws_secret_access_key": ["very-secret"]}

    with pytest.raises(lance_cpp.LanceError) as info:
        _lance_cpp._hammer_provider(BadValue(), EXPIRED, 1, 1)
    assert "aws_secret_access_key" in str(info.value)
    assert "very-secret" not in str(info.value)


# -- RGW ---------------------------------------------------------------------------------------


def test_s3_round_trip_and_cross_read(s3env):
    data = sample_table(4000)
    uri = s3env.unique_uri("file") + "/f.lance"
    with lf.LanceFileWriter(uri, data.schema, storage_options=s3env.options()) as w:
        w.write_batch(data)
    assert w.size_bytes > 0
    ours = lf.LanceFileReader(uri, storage_options=s3env.options())
    assert ours.read_all().to_table().equals(data)
    theirs = pylance_file.LanceFileReader(uri, storage_options=s3env.options())
    assert theirs.read_all().to_table().equals(data)

    base = s3env.unique_uri("session")
    session = lf.LanceFileSession(base, storage_options=s3env.options())
    with session.open_writer("x/1.lance", schema=data.schema) as w:
        w.write_batch(data)
    assert session.contains("x/1.lance")
    assert not session.contains("x/2.lance")
    assert session.list() == ["x/1.lance"]
    py_session = pylance_file.LanceFileSession(base, storage_options=s3env.options())
    assert py_session.list() == session.list()
    assert py_session.open_reader("x/1.lance").read_all().to_table().equals(data)


def test_s3_wrong_key_is_permission_error(s3env):
    uri = s3env.unique_uri("denied") + "/f.lance"
    options = s3env.options(secret_key="0" * 40)
    with pytest.raises(PermissionError) as info:
        with lf.LanceFileWriter(uri, pa.schema([("a", pa.int64())]),
                                storage_options=options) as w:
            w.write_batch(pa.table({"a": [1]}))
    assert "0" * 40 not in str(info.value)


class VendingProvider(StorageOptionsProvider):
    """Vends a new revocable RGW key (TTL ttl_s) per fetch, counting fetches."""

    def __init__(self, s3: S3Env, vendor: KeyVendor, ttl_s: float = TTL_S):
        self._s3 = s3
        self._vendor = vendor
        self._ttl = ttl_s
        self.calls = 0
        self._lock = threading.Lock()

    def options(self):
        access, secret, expires = self._vendor.vend(self._ttl)
        opts = self._s3.options(access_key=access, secret_key=secret)
        opts["expires_at_millis"] = str(expires)
        opts["refresh_offset_millis"] = "1000"
        return opts

    def fetch_storage_options(self):
        with self._lock:
            self.calls += 1
        return self.options()

    def provider_id(self):
        return f"VendingProvider {{ id: {id(self):#x} }}"


def test_s3_session_provider_refreshes_once_per_expiry_across_threads(s3env, key_vendor):
    provider = VendingProvider(s3env, key_vendor)
    key_vendor.premint(2)  # the initial key and the refresh's, minted before the window
    initial = provider.options()  # what "located" the files; not a fetch
    base = s3env.unique_uri("refresh")
    session = lf.LanceFileSession(base, storage_options=initial,
                                  storage_options_provider=provider)
    tables = [sample_table(300, offset=i * 1000) for i in range(8)]

    def write(i):
        with session.open_writer(f"f/{i}.lance", schema=tables[i].schema) as w:
            w.write_batch(tables[i])

    def read(i):
        # every thread reads every file: 8 x 8 concurrent opens and reads
        for j in range(8):
            got = session.open_reader(f"f/{(i + j) % 8}.lance").read_all().to_table()
            assert got.equals(tables[(i + j) % 8])
        return True

    run_in_threads(write, 8)
    assert all(run_in_threads(read, 8))
    assert provider.calls == 0  # valid initial credentials: no fetch

    # The initial key expired and has been revoked on the server (an event, not a sleep).
    key_vendor.wait_revoked([initial["aws_access_key_id"]])
    assert all(run_in_threads(read, 8))
    assert provider.calls == 1  # one fetch for the expiry, whatever the thread count

    # A reader opened on its own with the same provider shares the session's cache.
    reader = lf.LanceFileReader(base + "/f/3.lance", storage_options=initial,
                                storage_options_provider=provider)
    assert reader.read_all().to_table().equals(tables[3])
    assert provider.calls == 1


def test_provider_never_called_for_local_files(tmp_path):
    provider = CountingProvider()
    data = sample_table(20)
    with lf.LanceFileWriter(str(tmp_path / "p.lance"), data.schema, storage_options=EXPIRED,
                            storage_options_provider=provider) as w:
        w.write_batch(data)
    reader = lf.LanceFileReader(str(tmp_path / "p.lance"), storage_options_provider=provider)
    assert reader.read_all().to_table().equals(data)
    session = lf.LanceFileSession(str(tmp_path), storage_options_provider=provider)
    assert session.list() == ["p.lance"]
    assert provider.calls == 0
    with pytest.raises(ValueError, match="together"):
        lf.LanceFileReader(str(tmp_path / "p.lance"), table_id=["t"])
