# SPDX-License-Identifier: Apache-2.0
"""`lance-cpp serve` on an RGW root with credential vending on, used by real Lance.

The server is a DirectoryNamespace on s3://<bucket>/<unique prefix> whose own I/O uses the
RGW user's long-lived key and which vends, on every describe/declare, STS AssumeRole
credentials whose session policy allows only the table's prefix. The clients get nothing
but the server's URI:

  1. pylance 14's RestNamespace: create a namespace and tables, add rows, open, query,
     list, drop; real Lance's S3 client reads and writes with the vended credentials;
  2. LanceDB-node's connectNamespace("rest", {uri}): the same story from Lance 8.0.0;
  3. scoping: the credentials vended for one table are refused by RGW on another table's
     prefix (and work on their own), for reads and for writes;
  4. read-only vending: a server with permission=read vends credentials that cannot write.

The S3 coordinates come from LANCE_S3_* (the RGW of scripts/run_tests.sh); without them
the tests fail (never skip).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import lance
import lance.namespace as lance_ns
import pytest
from lance_namespace import CreateNamespaceRequest

import rest_vending
from rest_vending import rows, vended
from test_namespace_s3 import S3, s3  # noqa: F401  (s3: a fixture)

ROLE_VAR = "LANCE_S3_STS_ROLE_ARN"


class VendingServer(rest_vending.VendingServer):
    """`lance-cpp serve` over a directory namespace on an RGW root with vending on. The
    namespace's own key is passed as --ns-prop storage.* (it never reaches a client)."""

    def __init__(self, s3: S3, root: str, permission: str, scratch: Path):  # noqa: F811
        role = os.environ.get(ROLE_VAR)
        if not role:
            pytest.fail(f"{ROLE_VAR} is not set: these tests need the RGW with STS that "
                        "scripts/run_tests.sh starts")
        props = {"root": root, **s3.storage_props,
                 "credential_vendor.enabled": "true",
                 "credential_vendor.permission": permission,
                 "credential_vendor.aws_role_arn": role,
                 "credential_vendor.aws_region": s3.region}
        super().__init__(props, s3.scrub, scratch)


@pytest.fixture(scope="module")
def served(s3: S3, tmp_path_factory):  # noqa: F811
    server = VendingServer(s3, s3.root("rest-vending"), "admin",
                           tmp_path_factory.mktemp("rest-vending"))
    yield server
    output = server.stop()
    assert s3.secret_key not in output


def test_pylance_client_full_story_with_vended_credentials(served, s3: S3) -> None:  # noqa: F811
    ns, _, _ = rest_vending.pylance_create_and_append(served)

    options = vended(ns, ["shop", "orders"])
    # Temporary, scoped credentials, never the server's own key.
    assert options["aws_access_key_id"] != s3.access_key
    assert options.get("aws_session_token")
    assert int(options["expires_at_millis"]) > 0
    assert "refresh_offset_millis" in options
    assert s3.secret_key not in json.dumps(options)

    rest_vending.pylance_drop(ns)
    assert served.log_has_no_secret(s3.secret_key, options["aws_secret_access_key"],
                                    options["aws_session_token"])


def test_vended_credentials_are_scoped_to_their_table(served, s3: S3) -> None:  # noqa: F811
    ns = lance_ns.RestNamespace(uri=served.uri)
    ns.create_namespace(CreateNamespaceRequest(id=["scope"]))
    a = lance.write_dataset(rows(3), namespace_client=ns, table_id=["scope", "a"])
    b = lance.write_dataset(rows(4), namespace_client=ns, table_id=["scope", "b"])
    creds_a = vended(ns, ["scope", "a"])
    # Their own table: read and append work with the bare credentials.
    assert lance.dataset(a.uri, storage_options=creds_a).count_rows() == 3
    lance.write_dataset(rows(1, 100), a.uri, mode="append", storage_options=creds_a)
    assert lance.dataset(a.uri, storage_options=creds_a).count_rows() == 4
    # Another table's prefix: RGW refuses both reading and writing.
    with pytest.raises(Exception) as read_err:
        lance.dataset(b.uri, storage_options=creds_a).count_rows()
    assert "403" in str(read_err.value) or "AccessDenied" in str(read_err.value) \
        or "Forbidden" in str(read_err.value) or "denied" in str(read_err.value).lower()
    with pytest.raises(Exception):
        lance.write_dataset(rows(1, 200), b.uri, mode="append", storage_options=creds_a)
    assert lance.dataset(namespace_client=ns, table_id=["scope", "b"]).count_rows() == 4


def test_read_permission_vends_credentials_that_cannot_write(s3: S3,  # noqa: F811
                                                             tmp_path_factory) -> None:
    root = s3.root("rest-read")
    # Seed a table with a write server, then serve the same root read-only.
    uri = rest_vending.read_only_story(
        lambda permission, scratch: VendingServer(s3, root, permission, scratch),
        tmp_path_factory, "rest", lambda creds: None)
    check = lance.dataset(uri, storage_options=s3.storage_options)
    assert check.count_rows() == 6


def test_lancedb_node_client_with_vended_credentials(served, s3: S3, tmp_path) -> None:  # noqa: F811
    """Lance 8.0.0 (LanceDB-node) creates, appends, reads, lists and drops through our
    server; its S3 client uses only the credentials the server vended."""
    rest_vending.node_client_story(served, tmp_path)
    assert served.log_has_no_secret(s3.secret_key)
