# SPDX-License-Identifier: Apache-2.0
"""Real Lance (pylance 14.0.2) and lance-cpp exchanging datasets in fake-gcs-server.

pylance reaches GCS through object_store, which speaks the XML API (objects are PUT to
/<bucket>/<object>); fake-gcs-server v1.56.1 implements the XML API's reads, listings and
deletes but not its uploads (PUT answers 400 "invalid uploadType"; upstream issue #331,
PR #1164 unmerged). So pylance is pointed (google_base_url, object_store's key) at the
tests' token proxy (tests/gcs/token_proxy.h) run with --xml-writes, which checks the
bearer token and carries exactly those uploads over to the JSON API (a media upload, with
x-goog-if-generation-match as ifGenerationMatch; x-goog-copy-source as a rewrite; the XML
multipart upload held by the proxy and sent as one media upload at completion). lance-cpp
goes through the same proxy with the same token, on its own JSON API client.

  1. pylance writes (create, delete, append); lance-cpp reads every version exactly;
  2. lance-cpp writes; pylance reads it exactly, appends and deletes; lance-cpp reads that;
  3. data files of ~16 MB both ways (pylance's XML multipart upload through the proxy,
     lance-cpp's resumable upload);
  4. without the proxy, pylance reads what lance-cpp wrote straight from fake-gcs-server,
     and its write fails as described above (so the day fake-gcs-server learns XML
     uploads, this test says so);
  5. a wrong token: both refused (401), and lance-cpp's error does not contain it.

Environment: LANCE_GCS_ENDPOINT / LANCE_GCS_BUCKET (scripts/run_tests.sh), LANCE_INTEROP_BIN
and LANCE_GCS_PROXY_BIN (set by tests/gcs/CMakeLists.txt). Without them: a failure.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
import uuid
from pathlib import Path

import lance
import pyarrow as pa
import pyarrow.compute as pc
import pytest

HERE = Path(__file__).resolve().parent
INTEROP_DIR = HERE.parent / "interop"
sys.path.insert(0, str(INTEROP_DIR))


def _load(name: str, path: Path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


# The interop suite's helpers (lance-interop driver, table comparison, data generator).
ic = _load("interop_conftest", INTEROP_DIR / "conftest.py")
ic.pytest_configure(None)  # the secrets ledger hooks
datagen = _load("datagen", INTEROP_DIR / "datagen.py")
ledger = sys.modules["_secret_ledger"]


def _env(name: str) -> str:
    value = os.environ.get(name)
    if not value:
        pytest.fail(f"{name} is not set: run through `make test` (scripts/run_tests.sh starts "
                    "fake-gcs-server) or ctest in the build directory")
    return value


class Proxy:
    """gcs_token_proxy in front of fake-gcs-server, accepting `token`."""

    def __init__(self, target: str, token: str, xml_writes: bool = True):
        binary = _env("LANCE_GCS_PROXY_BIN")
        args = [binary, "--target", target, "--token", token]
        if xml_writes:
            args.append("--xml-writes")
        self.proc = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     text=True)
        line = self.proc.stdout.readline().split()
        assert line and line[0] == "PORT", f"gcs_token_proxy did not start: {line}"
        self.endpoint = f"http://127.0.0.1:{line[1]}"

    def close(self) -> None:
        self.proc.stdin.close()
        self.proc.wait(timeout=30)


class Gcs:
    def __init__(self):
        self.endpoint = _env("LANCE_GCS_ENDPOINT")
        self.bucket = _env("LANCE_GCS_BUCKET")
        self.token = f"ya29.pylance-{uuid.uuid4().hex}"
        ledger.record(self.token, "gcs-pylance-token")
        self.proxy = Proxy(self.endpoint, self.token)
        self.prefix = f"interop-gcs-{uuid.uuid4().hex[:12]}"

    def options(self, base_url=None, token=None):
        return {"google_base_url": base_url or self.proxy.endpoint, "allow_http": "true",
                "google_storage_token": token or self.token}

    def uri(self, name: str) -> str:
        return f"gs://{self.bucket}/{self.prefix}/{name}.lance"


@pytest.fixture(scope="module")
def gcs():
    env = Gcs()
    yield env
    env.proxy.close()


@pytest.fixture(scope="module")
def cpp(gcs, tmp_path_factory):
    binary = ic.require_built(ic._find_interop_bin(), "LANCE_INTEROP_BIN")
    base = ic.Interop(binary, tmp_path_factory.mktemp("interop"))

    class GcsInterop(ic.Interop):
        options = gcs.options()

        def run(self, *args, check=True):
            extra = []
            for key, value in self.options.items():
                extra += ["--storage-option", f"{key}={value}"]
            try:
                return super().run(*args, *extra, check=check)
            except ic.InteropError as e:
                # The command line holds the token on purpose: keep it out of reports.
                text = str(e)
                for value in (gcs.token, self.options["google_storage_token"]):
                    text = text.replace(value, "<token>")
                raise ic.InteropError(text) from None

    return GcsInterop(base.binary, base.scratch)


def _data(seed: int):
    return datagen.random_dataset(seed, datagen.TypeProfile(), num_columns=8,
                                  cover=("large_list", "struct", "list", "utf8", "int64"))


def _rid_where(lo: int, hi: int, extra):
    pred = f"rid IN ({', '.join(map(str, extra))}) OR (rid >= {lo} AND rid < {hi})"

    def matches(t: pa.Table):
        rid = t.column("rid")
        return pc.or_(pc.is_in(rid, value_set=pa.array(extra, pa.int64())),
                      pc.and_(pc.greater_equal(rid, lo), pc.less(rid, hi)))
    return pred, matches


def test_pylance_writes_lance_cpp_reads_every_version(gcs, cpp):
    data = _data(801)
    so = gcs.options()
    uri = gcs.uri("pylance-written")
    b1 = data.batch(0, 300)
    lance.write_dataset(b1, uri, storage_options=so, max_rows_per_file=120)
    pred, fn = _rid_where(130, 240, [5, 125])
    lance.dataset(uri, storage_options=so).delete(pred)
    v2 = b1.filter(pc.invert(fn(b1)))
    b3 = data.batch(300, 90)
    lance.write_dataset(b3, uri, mode="append", storage_options=so)
    v3 = pa.concat_tables([v2, b3])
    for version, want in ((1, b1), (2, v2), (3, v3)):
        ic.assert_tables_equal(cpp.read(uri, version=version), want,
                               what=f"lance-cpp reading pylance's v{version} on gs://")
    ic.assert_tables_equal(cpp.read(uri, with_row_id=True),
                           lance.dataset(uri, storage_options=so).to_table(with_row_id=True),
                           key="_rowid")


def test_lance_cpp_writes_pylance_reads_appends_and_deletes(gcs, cpp):
    data = _data(802)
    so = gcs.options()
    uri = gcs.uri("cpp-written")
    b1 = data.batch(0, 250)
    assert cpp.write(b1, uri, "create", max_rows_per_file=100) == 1
    ds = lance.dataset(uri, storage_options=so)
    assert ds.version == 1
    ic.assert_tables_equal(ds.to_table(), b1, what="pylance reading lance-cpp's v1 on gs://")
    # pylance appends and deletes on it.
    b2 = data.batch(250, 60)
    lance.write_dataset(b2, uri, mode="append", storage_options=so)
    pred, fn = _rid_where(10, 40, [249, 300])
    lance.dataset(uri, storage_options=so).delete(pred)
    both = pa.concat_tables([b1, b2])
    want = both.filter(pc.invert(fn(both)))
    assert lance.dataset(uri, storage_options=so).version == 3
    ic.assert_tables_equal(cpp.read(uri), want, what="lance-cpp reading pylance's v3")
    # lance-cpp commits once more, pylance reads it.
    b4 = data.batch(310, 20)
    assert cpp.write(b4, uri, "append") == 4
    ic.assert_tables_equal(lance.dataset(uri, storage_options=so).to_table(),
                           pa.concat_tables([want, b4]), what="pylance reading v4")


def test_large_data_files_both_ways(gcs, cpp):
    """Data files above Lance's 5 MiB single-PUT limit: pylance's go through object_store's
    XML multipart upload (held by the proxy, then one media upload), lance-cpp's through
    resumable uploads; each reads the other's exactly."""
    import numpy as np
    so = gcs.options()
    rng = np.random.default_rng(805)
    n = 1_000_000  # two incompressible int64 columns: ~16 MB in one data file
    big = pa.table({"rid": pa.array(np.arange(n), pa.int64()),
                    "v": pa.array(rng.integers(0, 1 << 62, n), pa.int64())})
    uri = gcs.uri("pylance-large")
    lance.write_dataset(big, uri, storage_options=so)
    ic.assert_tables_equal(cpp.read(uri), big, what="lance-cpp reading pylance's 16 MB file")
    uri2 = gcs.uri("cpp-large")
    assert cpp.write(big, uri2, "create") == 1
    ic.assert_tables_equal(lance.dataset(uri2, storage_options=so).to_table(), big,
                           what="pylance reading lance-cpp's 16 MB file")


def test_without_the_proxy_pylance_reads_but_cannot_write(gcs, cpp):
    data = _data(803)
    uri = gcs.uri("direct")
    b1 = data.batch(0, 80)
    assert cpp.write(b1, uri, "create") == 1
    direct = {"google_base_url": gcs.endpoint, "allow_http": "true",
              "google_storage_token": "unused-by-fake-gcs-server"}
    ic.assert_tables_equal(lance.dataset(uri, storage_options=direct).to_table(), b1,
                           what="pylance reading lance-cpp's dataset straight from the server")
    with pytest.raises(Exception) as failed:
        lance.write_dataset(data.batch(80, 10), uri, mode="append", storage_options=direct)
    assert "invalid uploadType" in str(failed.value), (
        "fake-gcs-server accepted an XML API upload: the XML translation of the tests' proxy "
        f"may no longer be needed ({failed.value})")


def test_a_wrong_token_is_refused_to_both(gcs, cpp):
    uri = gcs.uri("refused")
    wrong = f"ya29.wrong-{uuid.uuid4().hex}"
    ledger.record(wrong, "gcs-wrong-token")
    with pytest.raises(Exception) as failed:
        lance.write_dataset(_data(804).batch(0, 5), uri,
                            storage_options=gcs.options(token=wrong))
    assert "401" in str(failed.value)
    cpp.options = gcs.options(token=wrong)
    try:
        proc = cpp.run("write", ic.write_ipc(_data(804).batch(0, 5), cpp.scratch / "w.arrow"),
                       uri, "--mode", "create", check=False)
    finally:
        cpp.options = gcs.options()
    assert proc.returncode != 0
    # What lance-cpp says (its log lines and its error), not the command line we gave it.
    assert "HTTP 401" in proc.stderr and f"gs://{gcs.bucket}/" in proc.stderr, proc.stderr
    assert wrong not in proc.stderr and wrong not in proc.stdout
