# SPDX-License-Identifier: Apache-2.0
"""The credential-refresh scenarios in Python on Azurite, with SAS tokens that really expire.

lance_cpp's own DirectoryNamespace on an az:// root vends SAS tokens
(``credential_vendor.*``, minted with a 12 s lifetime through
``credential_vendor.reported_lifetime_millis``); Azurite refuses a SAS after its expiry, so a
client that failed to refresh would fail here. The namespace is wrapped (in Python: the
core calls back into it from its own threads) to count describe / declare calls; after a
wait, the wrapper switches to a twin namespace whose tokens outlive the test, so that the
counts after the refresh are exact. The C++ version of these scenarios, on Azurite and on
the GCS proxy, is tests/testing/vended_refresh_scenarios.h.
"""

from __future__ import annotations

import concurrent.futures
import threading
import time
import uuid
from typing import Dict, List

import pyarrow as pa
import pytest
from lance_namespace import (
    DeclareTableRequest,
    DeclareTableResponse,
    DescribeTableRequest,
    DescribeTableResponse,
    LanceNamespace,
)

import lance_cpp
from _azurite import Azurite, record_vended

TTL_MS = 12_000
OFFSET_MS = 2_000
LONG_TTL_MS = 600_000
MARGIN_S = 1.5


def rows(n: int, start: int = 0) -> pa.Table:
    return pa.table({"id": pa.array(range(start, start + n), pa.int64()),
                     "name": pa.array([f"r{i}" for i in range(start, start + n)])})


class CountingNamespace(LanceNamespace):
    """Counts table calls over two vending DirectoryNamespaces on one root (short-lived
    tokens before the wait, long-lived after it) and remembers the latest expiry."""

    def __init__(self, root: str) -> None:
        base = {**Azurite().vending_props(root, "write"),
                "credential_vendor.refresh_offset_millis": str(OFFSET_MS)}

        def make(ttl_ms: int):
            props = dict(base)
            props["credential_vendor.reported_lifetime_millis"] = str(ttl_ms)
            return lance_cpp.namespace.DirectoryNamespace(**props)

        self._short, self._long = make(TTL_MS), make(LONG_TTL_MS)
        self._use_long = False
        self._root = root
        self._lock = threading.Lock()
        self.describes = 0
        self.declares = 0
        self.latest_expiry_ms = 0
        self.vended: List[Dict[str, str]] = []

    def namespace_id(self) -> str:
        return f"CountingNamespace({self._root})"

    def use_long_lived(self) -> None:
        self._use_long = True

    def _inner(self):
        return self._long if self._use_long else self._short

    def _note(self, options) -> None:
        options = dict(options or {})
        record_vended(options)
        with self._lock:
            self.vended.append(options)
            self.latest_expiry_ms = max(self.latest_expiry_ms,
                                        int(options.get("expires_at_millis", "0")))

    def _vending_call(self, counter: str, method: str, request):
        """The inner namespace's `method`, counted in `counter`, its vended SAS noted."""
        with self._lock:
            setattr(self, counter, getattr(self, counter) + 1)
        response = getattr(self._inner(), method)(request)
        self._note(response.storage_options)
        return response

    def describe_table(self, request: DescribeTableRequest) -> DescribeTableResponse:
        return self._vending_call("describes", "describe_table", request)

    def declare_table(self, request: DeclareTableRequest) -> DeclareTableResponse:
        return self._vending_call("declares", "declare_table", request)

    def table_exists(self, request):
        return self._inner().table_exists(request)

    def list_tables(self, request):
        return self._inner().list_tables(request)

    def counts(self):
        with self._lock:
            return (self.declares, self.describes)

    def wait_expired(self) -> float:
        """Until every SAS vended so far is past its expiry; later ones outlive the test."""
        delay = self.latest_expiry_ms / 1000.0 + MARGIN_S - time.time()
        if delay > 0:
            time.sleep(delay)
        self.use_long_lived()
        return max(delay, 0.0)


@pytest.fixture
def ns() -> CountingNamespace:
    container = Azurite().container
    return CountingNamespace(f"az://{container}/py-refresh-{uuid.uuid4().hex[:12]}")


def _forced_refreshes(root: str) -> Dict[str, int]:
    mine = {k: v for k, v in lance_cpp.credential_stats().items() if root in k}
    assert mine, "no refresh counters for this test's providers"
    return {k: v["forced_refreshes"] + v["failures"] + v["failed_requests"]
            for k, v in mine.items()}


def test_open_then_refresh_after_expiry(ns: CountingNamespace) -> None:
    created = lance_cpp.write_dataset(rows(4), namespace_client=ns, table_id=["t"])
    assert ns.counts() == (1, 0)
    opened = lance_cpp.dataset(namespace_client=ns, table_id=["t"])
    assert ns.counts() == (1, 1)
    assert opened.to_table().sort_by("id").equals(rows(4))
    assert opened.count_rows("id >= 2") == 2
    assert ns.counts() == (1, 1)

    ns.wait_expired()
    # Both handles share one provider: exactly one describe_table refreshes them.
    assert opened.to_table().sort_by("id").equals(rows(4))
    assert created.to_table().sort_by("id").equals(rows(4))
    assert ns.counts() == (1, 2)
    assert set(_forced_refreshes(ns._root).values()) == {0}


def test_append_and_overwrite_through_the_namespace(ns: CountingNamespace) -> None:
    lance_cpp.write_dataset(rows(2), namespace_client=ns, table_id=["a"])
    appended = lance_cpp.write_dataset(rows(2, 2), namespace_client=ns, table_id=["a"],
                                       mode="append")
    assert ns.counts() == (1, 1)
    assert appended.version == 2
    assert appended.to_table().sort_by("id").equals(rows(4))
    overwritten = lance_cpp.write_dataset(rows(3, 100), namespace_client=ns,
                                          table_id=["a"], mode="overwrite")
    assert ns.counts() == (1, 2)
    assert overwritten.to_table().sort_by("id").equals(rows(3, 100))


def test_thirty_two_readers_across_an_expiry(ns: CountingNamespace) -> None:
    lance_cpp.write_dataset(rows(60), namespace_client=ns, table_id=["many"],
                            max_rows_per_file=20)
    opened = lance_cpp.dataset(namespace_client=ns, table_id=["many"])
    assert ns.counts() == (1, 1)
    expired_at = ns.latest_expiry_ms / 1000.0 + MARGIN_S
    ns.use_long_lived()
    want = rows(60)
    guard = time.time() + 180

    def reader() -> tuple:
        before = after = 0
        while after < 2 and time.time() < guard:
            expired = time.time() >= expired_at
            got = opened.to_table().sort_by("id")
            assert got.equals(want)
            if expired:
                after += 1
            else:
                before += 1
                time.sleep(0.1)
        return before, after

    with concurrent.futures.ThreadPoolExecutor(max_workers=32) as pool:
        results = list(pool.map(lambda _: reader(), range(32)))
    assert all(before >= 1 and after == 2 for before, after in results), results
    assert ns.counts() == (1, 2)
    assert set(_forced_refreshes(ns._root).values()) == {0}
