# SPDX-License-Identifier: Apache-2.0
"""Shared helpers of the differential Python tests.

The tests are written once in pylance style and run twice: against real pylance
(``import lance``) and against ours (``import lance_cpp as lance``). The ``impl`` fixture
yields the module under test; pylance is the reference, so a test that passes for it and
fails for lance_cpp shows a difference in behaviour.

radosgw-admin changes a user's keys by read-modify-write of the user, so two processes
changing keys of one user at once could lose a key: every key change holds a lock file per
user next to the cluster's ceph.conf (the C++ helpers in tests/testing/s3_env.cc take the
same lock), so no two suites' key changes overlap. (One user, ``test``, for all suites: a
key of another user reaches the test buckets only through a bucket policy naming it and
``test``, and such a policy also lets ``test``'s STS sessions past their session policy.)
Keys are minted ahead of the timed part of a test (``KeyVendor.premint``): a vend takes a
ready key, and its lifetime starts then.

``VendingNamespace`` is the namespace of the credential-refresh scenarios
(/work/shared/reference/credential-refresh.md): a pylance-style ``LanceNamespace`` subclass
wrapping the implementation's own ``DirectoryNamespace`` on an S3 root. Every
``describe_table`` / ``declare_table`` / ``create_empty_table`` vends a brand-new RGW access
key that lives ``ttl`` seconds and is revoked on the server one second after it expired, so
a client that failed to refresh gets a 403 instead of silently succeeding with stale keys.
"""

from __future__ import annotations

import fcntl
import heapq
import importlib
import os
import secrets
import subprocess
import threading
import time
import uuid
from typing import Dict, List, Optional

import pytest
from lance_namespace import (
    CreateEmptyTableRequest,
    CreateEmptyTableResponse,
    DeclareTableRequest,
    DeclareTableResponse,
    DescribeTableRequest,
    DescribeTableResponse,
    LanceNamespace,
)

IMPLS = ["lance", "lance_cpp"]

# TTL of vended keys and how long the tests wait for them to expire, for a loaded 2-core
# machine (Lance's tests use TTL 3 s): what a test does between a vend and its wait has
# TTL - 1 s before the timed refresh is due. Waits are for events (the keys' revocation on
# the server, see KeyVendor.wait_revoked), WAIT_S only a lower bound kept for callers;
# WAIT_GUARD_S stops a hang.
TTL_S = 15.0
WAIT_S = 17.0
WAIT_GUARD_S = 180.0
REFRESH_OFFSET_MS = 1000

# The RGW user whose keys the tests mint (as tests/testing/s3_env.cc: KeyUser()).
KEY_USER = os.environ.get("LANCE_RGW_KEY_USER") or "test"


def load_impl(name: str):
    """Imports the implementation with the submodules the tests use (pylance style)."""
    module = importlib.import_module(name)
    for sub in ("namespace", "file", "fragment"):
        importlib.import_module(f"{name}.{sub}")
    return module


def _import_impl(name: str):
    # A missing lance_cpp is a failure, never a skip: the tests exist to check it.
    try:
        return load_impl(name)
    except ImportError as e:  # pragma: no cover - reported as a test failure
        pytest.fail(
            f"cannot import {name!r} ({e}); build the _lance_cpp target and run with "
            f"PYTHONPATH=<build>/python",
            pytrace=False,
        )


@pytest.fixture(params=IMPLS)
def impl(request):
    """The module under test: real pylance or lance_cpp, used as ``lance``."""
    return _import_impl(request.param)


def _env(name: str) -> str:
    value = os.environ.get(name)
    if not value:
        pytest.fail(
            f"{name} is not set: these tests need a real RGW "
            f"(scripts/rgw.sh start DIR > env.sh; source env.sh)",
            pytrace=False,
        )
    return value


class S3Env:
    """The LANCE_S3_* environment of the test RGW."""

    def __init__(self):
        self.endpoint = _env("LANCE_S3_ENDPOINT")
        self.region = _env("LANCE_S3_REGION")
        self.access_key = _env("LANCE_S3_ACCESS_KEY")
        self.secret_key = _env("LANCE_S3_SECRET_KEY")
        self.bucket = _env("LANCE_S3_BUCKET")
        self.rgw_conf = _env("LANCE_RGW_CONF")

    def options(self, access_key: Optional[str] = None,
                secret_key: Optional[str] = None) -> Dict[str, str]:
        """Lance storage options for the test RGW (static keys unless given)."""
        return {
            "aws_access_key_id": access_key or self.access_key,
            "aws_secret_access_key": secret_key or self.secret_key,
            "aws_endpoint": self.endpoint,
            "aws_region": self.region,
            "allow_http": "true",
        }

    def unique_uri(self, what: str) -> str:
        return f"s3://{self.bucket}/py-diff/{what}-{uuid.uuid4().hex[:12]}"


@pytest.fixture(scope="session")
def s3env():
    return S3Env()


class KeyVendor:
    """Creates short-lived RGW access keys for ``KEY_USER`` and revokes them.

    Keys are minted ahead (premint) so that a vend only hands out a ready key; its
    lifetime starts at the vend. A background thread removes each vended key one second
    after its expiry; close() removes the ones still alive (and unused pre-minted ones) so
    a run leaves nothing behind. Key changes run one at a time in this process, and per
    user across processes (a lock file next to ceph.conf, shared with the C++ helpers).
    """

    def __init__(self, rgw_conf: str, uid: str = KEY_USER):
        self._conf = rgw_conf
        self._uid = uid
        self._lock = threading.Condition()
        self._admin_lock = threading.Lock()
        self._lock_path = os.path.join(os.path.dirname(rgw_conf) or ".",
                                       f"keys-{uid}.lock")
        self._pending: List[tuple] = []  # heap of (revoke_at_monotonic, access_key)
        self._pool: List[tuple] = []  # pre-minted (access, secret)
        self._revoked_keys: set = set()
        self._closed = False
        self.created = 0
        self.revoked = 0
        self._thread = threading.Thread(target=self._revoker, name="key-revoker",
                                        daemon=True)
        self._thread.start()

    def _run_admin(self, args: List[str]) -> subprocess.CompletedProcess:
        return subprocess.run(["radosgw-admin", "-c", self._conf, *args],
                              capture_output=True, text=True)

    def _locked(self):
        """This process's admin lock plus the per-user lock file (flock)."""
        vendor = self

        class _Both:
            def __enter__(self):
                vendor._admin_lock.acquire()
                self.f = open(vendor._lock_path, "a+")
                fcntl.flock(self.f, fcntl.LOCK_EX)

            def __exit__(self, *exc):
                self.f.close()  # releases the flock
                vendor._admin_lock.release()

        return _Both()

    def _admin(self, *args: str) -> None:
        cmd = ["key", *args, f"--uid={self._uid}", "--key-type=s3"]
        deadline = time.monotonic() + 30
        with self._locked():
            while True:
                proc = self._run_admin(cmd)
                if proc.returncode == 0:
                    return
                # Only a process ignoring the lock can race on the user's metadata; RGW
                # then says "unable to store user info" and the change is retried.
                if ("unable to store user info" in proc.stderr
                        and time.monotonic() < deadline):
                    time.sleep(0.05)
                    continue
                raise RuntimeError(f"radosgw-admin key {args[0]} failed "
                                   f"(rc {proc.returncode}): {proc.stderr.strip()[-300:]}")

    def _mint(self) -> tuple:
        access = "V" + secrets.token_hex(9).upper()
        secret = secrets.token_hex(20)
        from _secret_ledger import record  # the secrets scan of the run (run_tests.sh)
        record(secret, f"secret of {access[:4]}***")
        self._admin("create", f"--access-key={access}", f"--secret-key={secret}")
        return access, secret

    def premint(self, n: int) -> None:
        """Makes sure ``n`` keys are ready, minted now (before a test's timed part)."""
        while True:
            with self._lock:
                if len(self._pool) >= n:
                    return
            key = self._mint()
            with self._lock:
                self._pool.append(key)

    def vend(self, ttl_s: float) -> tuple:
        """A key pair (access, secret, expires_at_millis) valid for ttl_s seconds from
        now: a pre-minted one when ready, else minted now."""
        with self._lock:
            ready = self._pool.pop(0) if self._pool else None
        access, secret = ready if ready is not None else self._mint()
        # The lifetime starts once the key works, so slow admin calls do not shorten it.
        expires_at_ms = int(time.time() * 1000 + ttl_s * 1000)
        with self._lock:
            self.created += 1
            heapq.heappush(self._pending, (time.monotonic() + ttl_s + 1.0, access))
            self._lock.notify()
        return access, secret, expires_at_ms

    def _revoke(self, access: str) -> None:
        try:
            self._admin("rm", f"--access-key={access}")
            with self._lock:
                self.revoked += 1
                self._revoked_keys.add(access)
                self._lock.notify_all()
        except RuntimeError:
            pass  # best effort; a leftover key only costs a user-info entry

    def is_revoked(self, access: str) -> bool:
        with self._lock:
            return access in self._revoked_keys

    def wait_revoked(self, keys: List[str], guard_s: float = WAIT_GUARD_S) -> float:
        """Waits until every key of ``keys`` has expired and been revoked on the server
        (the event a stale client would trip over); returns the seconds waited. The guard
        only stops a hang."""
        start = time.monotonic()
        deadline = start + guard_s
        with self._lock:
            while not all(k in self._revoked_keys for k in keys):
                left = deadline - time.monotonic()
                if left <= 0:
                    missing = [k for k in keys if k not in self._revoked_keys]
                    raise AssertionError(f"{len(missing)} vended key(s) still not revoked "
                                         f"after {guard_s:.0f} s")
                self._lock.wait(min(left, 1.0))
        return time.monotonic() - start

    def _revoker(self) -> None:
        while True:
            with self._lock:
                while not self._closed and (
                        not self._pending or self._pending[0][0] > time.monotonic()):
                    timeout = (self._pending[0][0] - time.monotonic()
                               if self._pending else None)
                    self._lock.wait(timeout)
                if self._closed:
                    return
                _, access = heapq.heappop(self._pending)
            self._revoke(access)

    def close(self) -> None:
        with self._lock:
            self._closed = True
            rest = [a for _, a in self._pending] + [a for a, _ in self._pool]
            self._pending = []
            self._pool = []
            self._lock.notify()
        self._thread.join()
        for access in rest:
            self._revoke(access)


@pytest.fixture(scope="session")
def key_vendor(s3env):
    vendor = KeyVendor(s3env.rgw_conf)
    yield vendor
    vendor.close()


class VendingNamespace(LanceNamespace):
    """Counts table calls and vends a new revocable key on each one.

    Wraps ``<impl>.namespace.DirectoryNamespace`` on ``root`` (which uses the static test
    keys for its own I/O) and rewrites ``storage_options`` of every describe / declare /
    create_empty_table response with a fresh key, ``expires_at_millis`` = now + ttl and
    ``refresh_offset_millis`` = 1000.
    """

    def __init__(self, impl, s3env: S3Env, vendor: KeyVendor, root: str,
                 ttl_s: float = TTL_S):
        self._s3 = s3env
        self._vendor = vendor
        self._ttl_s = ttl_s
        self._root = root
        props = {"root": root, "manifest_enabled": "false", "dir_listing_enabled": "true"}
        props.update({f"storage.{k}": v for k, v in s3env.options().items()})
        self._inner = impl.namespace.DirectoryNamespace(**props)
        self._lock = threading.Lock()
        self.describe_calls = 0
        self.declare_calls = 0
        self.create_empty_calls = 0
        self.vended: List[str] = []  # access key ids, in order
        self.vended_options: List[Dict[str, str]] = []
        self.other_calls: List[str] = []

    def namespace_id(self) -> str:
        return f"VendingNamespace({self._root})"

    def counts(self) -> Dict[str, int]:
        with self._lock:
            return {"describe": self.describe_calls, "declare": self.declare_calls,
                    "create_empty": self.create_empty_calls}

    def _vend_options(self) -> Dict[str, str]:
        access, secret, expires_at_ms = self._vendor.vend(self._ttl_s)
        with self._lock:
            self.vended.append(access)
        opts = self._s3.options(access, secret)
        opts["expires_at_millis"] = str(expires_at_ms)
        opts["refresh_offset_millis"] = str(REFRESH_OFFSET_MS)
        with self._lock:
            self.vended_options.append(dict(opts))
        return opts

    def describe_table(self, request: DescribeTableRequest) -> DescribeTableResponse:
        with self._lock:
            self.describe_calls += 1
        response = self._inner.describe_table(request)
        response.storage_options = self._vend_options()
        return response

    def declare_table(self, request: DeclareTableRequest) -> DeclareTableResponse:
        with self._lock:
            self.declare_calls += 1
        # Declared here, not by the directory namespace: pylance 14's DirectoryNamespace
        # writes its empty `.lance-reserved` marker as a multipart upload with an empty part
        # sent without Content-Length, which RGW refuses (411 MissingContentLength). The
        # location is the one the directory namespace (manifest disabled) lists and
        # describes once the first commit has made the dataset.
        location = f"{self._root}/{'/'.join(request.id)}.lance"
        return DeclareTableResponse(location=location, storage_options=self._vend_options())

    def create_empty_table(self, request: CreateEmptyTableRequest
                           ) -> CreateEmptyTableResponse:
        with self._lock:
            self.create_empty_calls += 1
        response = self._inner.create_empty_table(request)
        response.storage_options = self._vend_options()
        return response



def _passthrough(name):
    # Any other namespace method goes to the directory namespace unchanged; it is recorded
    # in ``other_calls`` so a test can check that nothing unexpected was asked.
    def method(self, *args, **kwargs):
        with self._lock:
            self.other_calls.append(name)
        return getattr(self._inner, name)(*args, **kwargs)
    method.__name__ = name
    return method


for _name in dir(LanceNamespace):
    if (not _name.startswith("_") and _name not in VendingNamespace.__dict__
            and callable(getattr(LanceNamespace, _name))):
        setattr(VendingNamespace, _name, _passthrough(_name))


def is_pylance(impl) -> bool:
    return impl.__name__ == "lance"
