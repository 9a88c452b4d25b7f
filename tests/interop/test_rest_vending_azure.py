# SPDX-License-Identifier: Apache-2.0
"""`lance-cpp serve` on an Azure (Azurite) root with credential vending on, used by real Lance.

The Azure twin of test_rest_vending_rgw.py. The server is a DirectoryNamespace on
az://<container>/<unique prefix> whose own I/O uses the account key (--ns-prop storage.*,
never handed to a client) and which vends, on every describe/declare, a service SAS signed
with that key (azure_storage_sas_token + azure_storage_account_name + expires_at_millis,
scope in lance_cpp_vended_scope). The clients get nothing but the server's URI:

  1. pylance 14's RestNamespace: create a namespace and tables, add rows, open, query,
     list, drop; real Lance's Azure client (object_store) reads and writes with the vended
     SAS only (the answer holds the endpoint, no key);
  2. LanceDB-node's connectNamespace("rest", {uri}): the same story from Lance 8.0.0;
  3. read-only vending: a server with permission=read vends a SAS Azurite refuses writes
     with.
The server's output and access log never hold the key or a SAS signature.

The Azure coordinates come from LANCE_AZURE_* (the Azurite of scripts/run_tests.sh);
without them the tests fail (never skip).
"""

from __future__ import annotations

import json
import uuid
from pathlib import Path
from typing import Dict

import lance
import pytest

import rest_vending
from _azurite import Azurite, sas_sig
from rest_vending import rows, vended


class Azure(Azurite):
    """The Azurite of the run (tests/python/_azurite.py), with namespace roots."""

    def root(self, what: str) -> str:
        return f"az://{self.container}/interop-{what}-{uuid.uuid4().hex[:12]}"

    def scrub(self, text: str) -> str:
        return text.replace(self.key, "<key>")


@pytest.fixture(scope="module")
def azure() -> Azure:
    return Azure()


class VendingServer(rest_vending.VendingServer):
    """`lance-cpp serve` over a directory namespace on an Azurite root with vending on."""

    def __init__(self, azure: Azure, root: str, permission: str, scratch: Path):
        super().__init__(azure.vending_props(root, permission), azure.scrub, scratch)

    def log_has_no_secret(self, *secrets: str) -> bool:
        return "sig=" not in self.log.read_text() and super().log_has_no_secret(*secrets)


@pytest.fixture(scope="module")
def served(azure: Azure, tmp_path_factory):
    server = VendingServer(azure, azure.root("rest-vending"), "admin",
                           tmp_path_factory.mktemp("rest-vending-azure"))
    yield server
    output = server.stop()
    assert azure.key not in output
    assert "sig=" not in output


def test_pylance_client_full_story_with_vended_sas(served, azure: Azure) -> None:
    ns, ds, opened = rest_vending.pylance_create_and_append(served)
    assert ds.uri.startswith(f"az://{azure.container}/")
    assert opened.version == 2
    assert opened.to_table().sort_by("id").equals(rows(15))

    options = vended(ns, ["shop", "orders"])
    # A SAS signed with the server's key, never the key itself.
    assert sas_sig(options)
    assert options["azure_storage_account_name"] == azure.account
    assert int(options["expires_at_millis"]) > 0
    assert "refresh_offset_millis" in options
    assert options["lance_cpp_vended_scope"] == f"container:{azure.container}"
    assert azure.key not in json.dumps(options)
    assert "azure_storage_account_key" not in options
    # pylance with just those options (no key) reads the table at its location.
    bare = {k: v for k, v in options.items() if k != "lance_cpp_vended_scope"}
    assert lance.dataset(opened.uri, storage_options=bare).count_rows() == 15
    # ... and without the SAS it is refused (Azurite checks every request).
    no_sas = {k: v for k, v in bare.items() if k != "azure_storage_sas_token"}
    with pytest.raises(Exception):
        lance.dataset(opened.uri, storage_options=no_sas).count_rows()

    rest_vending.pylance_drop(ns)
    assert served.log_has_no_secret(azure.key, sas_sig(options))


def _read_only_sas(creds: Dict[str, str]) -> None:
    sp = dict(p.split("=", 1) for p in creds["azure_storage_sas_token"].split("&")
              if "=" in p)["sp"]
    assert set(sp) <= set("rl"), sp
    creds.pop("lance_cpp_vended_scope", None)


def test_read_permission_vends_a_sas_that_cannot_write(azure: Azure,
                                                       tmp_path_factory) -> None:
    root = azure.root("rest-read")
    uri = rest_vending.read_only_story(
        lambda permission, scratch: VendingServer(azure, root, permission, scratch),
        tmp_path_factory, "az", _read_only_sas)
    check = lance.dataset(uri, storage_options=azure.options())
    assert check.count_rows() == 6
    assert check.version == 1


def test_lancedb_node_client_with_vended_sas(served, azure: Azure, tmp_path) -> None:
    """Lance 8.0.0 (LanceDB-node) creates, appends, reads, lists and drops through our
    server; its Azure client uses only the SAS the server vended."""
    rest_vending.node_client_story(served, tmp_path)
    assert served.log_has_no_secret(azure.key)
