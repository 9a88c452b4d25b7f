# SPDX-License-Identifier: Apache-2.0
"""lance_cpp's Python entry points on Azure Blob Storage (Azurite) and GCS (fake-gcs-server).

Everywhere a URI goes, an az:// or gs:// one goes too:

  1. ``lance_cpp.write_dataset(table, "az://...", storage_options=...)`` creates, appends
     and overwrites; ``lance_cpp.dataset("az://...", storage_options=...)`` reads every
     version back exactly (and azure:// names the same dataset); real pylance reads what
     lance_cpp wrote, with the same options;
  2. the same on gs:// (fake-gcs-server, lance-cpp's JSON API client);
  3. a lance_cpp DirectoryNamespace on an az:// root holding the account key, with
     ``credential_vendor.enabled=true``: describe_table vends a SAS (never the key), the
     dataset opened through the namespace reads and appends with it, and the bare vended
     options open the table without the key while the key alone is never handed out.

Environment: LANCE_AZURE_* and LANCE_GCS_* (exported by scripts/run_tests.sh, which starts
Azurite and fake-gcs-server). Without them the tests fail, never skip.
"""

from __future__ import annotations

import uuid
from typing import Dict

import pyarrow as pa
import pytest

import _secret_ledger
import lance_cpp
from _azurite import Azurite, env, record_vended


def _unique() -> str:
    return uuid.uuid4().hex[:12]


def rows(n: int, start: int = 0) -> pa.Table:
    return pa.table({"id": pa.array(range(start, start + n), pa.int64()),
                     "name": pa.array([f"r{i}" for i in range(start, start + n)]),
                     "score": pa.array([i * 0.5 for i in range(start, start + n)])})


class Azure(Azurite):
    def uri(self, what: str, scheme: str = "az") -> str:
        return f"{scheme}://{self.container}/py-cloud/{what}"


class Gcs:
    def __init__(self) -> None:
        self.endpoint = env("LANCE_GCS_ENDPOINT")
        self.bucket = env("LANCE_GCS_BUCKET")

    def options(self) -> Dict[str, str]:
        return {"google_base_url": self.endpoint, "allow_http": "true"}

    def uri(self, what: str) -> str:
        return f"gs://{self.bucket}/py-cloud/{what}"


@pytest.fixture(scope="module")
def azure() -> Azure:
    return Azure()


@pytest.fixture(scope="module")
def gcs() -> Gcs:
    return Gcs()


def _story(uri: str, options: Dict[str, str], alias: str = "") -> None:
    """create / append / overwrite through lance_cpp, every version read back exactly."""
    first, second, third = rows(10), rows(7, 10), rows(4, 100)
    ds = lance_cpp.write_dataset(first, uri, storage_options=options)
    assert ds.count_rows() == 10
    lance_cpp.write_dataset(second, uri, mode="append", storage_options=options)
    lance_cpp.write_dataset(third, uri, mode="overwrite", storage_options=options)

    latest = lance_cpp.dataset(alias or uri, storage_options=options)
    assert latest.version == 3
    assert [v["version"] for v in latest.versions()] == [1, 2, 3]
    assert latest.to_table().equals(third)
    v1 = lance_cpp.dataset(uri, version=1, storage_options=options)
    assert v1.to_table().equals(first)
    v2 = lance_cpp.dataset(uri, version=2, storage_options=options)
    assert v2.to_table().sort_by("id").equals(pa.concat_tables([first, second]))
    assert v2.to_table(filter="id >= 12").num_rows == 5
    assert latest.checkout_version(1).to_table().equals(first)


def test_azure_write_append_overwrite_versions(azure: Azure) -> None:
    uri = azure.uri(f"story-{_unique()}.lance")
    # Read back through the azure:// spelling of the same location.
    _story(uri, azure.options(), alias=uri.replace("az://", "azure://", 1))


def test_azure_dataset_written_by_lance_cpp_is_read_by_pylance(azure: Azure) -> None:
    import lance

    uri = azure.uri(f"to-pylance-{_unique()}.lance")
    lance_cpp.write_dataset(rows(20), uri, storage_options=azure.options())
    lance_cpp.write_dataset(rows(5, 20), uri, mode="append", storage_options=azure.options())
    ds = lance.dataset(uri, storage_options=azure.options())
    assert ds.count_rows() == 25
    assert ds.to_table().sort_by("id").equals(rows(25))
    # And back: pylance appends, lance_cpp reads the third version.
    lance.write_dataset(rows(3, 25), uri, mode="append", storage_options=azure.options())
    again = lance_cpp.dataset(uri, storage_options=azure.options())
    assert again.version == 3
    assert again.to_table().sort_by("id").equals(rows(28))


def test_azure_wrong_key_is_refused_and_not_shown(azure: Azure) -> None:
    uri = azure.uri(f"refused-{_unique()}.lance")
    lance_cpp.write_dataset(rows(2), uri, storage_options=azure.options())
    bad = dict(azure.options())
    # A well-formed key that is not the account's.
    bad["azure_storage_account_key"] = "QmFkS2V5" + azure.key[8:]
    _secret_ledger.record(bad["azure_storage_account_key"], "wrong azurite key")
    with pytest.raises(Exception) as err:
        lance_cpp.dataset(uri, storage_options=bad).count_rows()
    text = str(err.value)
    assert "403" in text or "forbidden" in text.lower() or "denied" in text.lower() \
        or "authoriz" in text.lower(), text
    assert azure.key not in text and bad["azure_storage_account_key"] not in text


def test_gcs_write_append_overwrite_versions(gcs: Gcs) -> None:
    _story(gcs.uri(f"story-{_unique()}.lance"), gcs.options())


def test_gcs_missing_dataset_is_not_found(gcs: Gcs) -> None:
    with pytest.raises(Exception) as err:
        lance_cpp.dataset(gcs.uri(f"absent-{_unique()}.lance"),
                          storage_options=gcs.options()).count_rows()
    assert "NotFound" in str(err.value) and "no manifest" in str(err.value), str(err.value)


# --- namespace on an az:// root vending SAS tokens -------------------------------------

def test_directory_namespace_on_azure_vends_sas(azure: Azure) -> None:
    from lance_namespace import DescribeTableRequest

    root = azure.uri(f"ns-{_unique()}")
    ns = lance_cpp.namespace.DirectoryNamespace(**azure.vending_props(root, "write"))
    ds = lance_cpp.write_dataset(rows(10), namespace_client=ns, table_id=["events"])
    assert ds.count_rows() == 10
    lance_cpp.write_dataset(rows(6, 10), namespace_client=ns, table_id=["events"],
                            mode="append")

    answer = ns.describe_table(DescribeTableRequest(id=["events"], vend_credentials=True))
    vended = dict(answer.storage_options)
    record_vended(vended)
    # A SAS, the account, an expiry and the scope: never the key.
    assert vended["azure_storage_sas_token"] and "sig=" in vended["azure_storage_sas_token"]
    assert vended["azure_storage_account_name"] == azure.account
    assert int(vended["expires_at_millis"]) > 0
    assert vended["lance_cpp_vended_scope"] == f"container:{azure.container}"
    assert azure.key not in repr(vended)
    assert not any(k in vended for k in ("azure_storage_account_key", "account_key",
                                         "access_key", "azure_storage_access_key"))
    assert answer.location.startswith(root + "/")

    # Opened through the namespace: reads (and appends) with the vended SAS.
    opened = lance_cpp.dataset(namespace_client=ns, table_id=["events"])
    assert opened.version == 2
    assert opened.to_table().sort_by("id").equals(rows(16))
    assert opened.to_table(filter="id >= 14").num_rows == 2

    # The vended options alone (no key anywhere) open the table at its location.
    bare = {k: v for k, v in vended.items()
            if k not in ("expires_at_millis", "refresh_offset_millis")}
    alone = lance_cpp.dataset(answer.location, storage_options=bare)
    assert alone.to_table().sort_by("id").equals(rows(16))
    # ... and without the SAS, the same options are refused (Azurite checks).
    no_sas = {k: v for k, v in bare.items() if k != "azure_storage_sas_token"}
    no_sas["azure_storage_account_key"] = "QmFkS2V5" + azure.key[8:]
    _secret_ledger.record(no_sas["azure_storage_account_key"], "wrong azurite key")
    with pytest.raises(Exception):
        lance_cpp.dataset(answer.location, storage_options=no_sas).count_rows()


def test_read_only_vending_on_azure_cannot_write(azure: Azure) -> None:
    from lance_namespace import DescribeTableRequest

    root = azure.uri(f"ns-ro-{_unique()}")
    writer = lance_cpp.namespace.DirectoryNamespace(**azure.vending_props(root, "write"))
    lance_cpp.write_dataset(rows(5), namespace_client=writer, table_id=["t"])
    reader = lance_cpp.namespace.DirectoryNamespace(**azure.vending_props(root, "read"))
    answer = reader.describe_table(DescribeTableRequest(id=["t"], vend_credentials=True))
    vended = dict(answer.storage_options)
    record_vended(vended)
    sas = vended["azure_storage_sas_token"]
    perms = dict(p.split("=", 1) for p in sas.split("&") if "=" in p).get("sp", "")
    assert perms and set(perms) <= set("rl"), sas.split("sig=")[0]
    assert lance_cpp.dataset(namespace_client=reader, table_id=["t"]).count_rows() == 5
    bare = {k: v for k, v in vended.items()
            if k not in ("expires_at_millis", "refresh_offset_millis")}
    with pytest.raises(Exception) as err:
        lance_cpp.write_dataset(rows(1, 50), answer.location, mode="append",
                                storage_options=bare)
    assert "sig=" not in str(err.value)
    assert lance_cpp.dataset(namespace_client=writer, table_id=["t"]).count_rows() == 5
