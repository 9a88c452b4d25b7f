# SPDX-License-Identifier: Apache-2.0
"""The Azurite of the Azure tests (tests/python and, loaded by path, tests/interop).

Its coordinates come from LANCE_AZURE_* (exported by scripts/azurite.sh, which
scripts/run_tests.sh starts); without them the tests fail, never skip. Azurite's published
development key is not put in the secrets ledger (as scripts/run_tests.sh does not): the
tests assert its absence themselves. The SAS tokens a namespace vends are real secrets and
are recorded (``record_vended``).
"""

from __future__ import annotations

import os
from typing import Dict

import pytest

import _secret_ledger


def env(name: str) -> str:
    """$name, or the test fails (never a skip)."""
    value = os.environ.get(name)
    if not value:
        pytest.fail(f"{name} is not set: run through `make test` (scripts/run_tests.sh starts "
                    "Azurite and fake-gcs-server)", pytrace=False)
    return value


class Azurite:
    """The account, key, endpoint and container of the Azurite of the run."""

    def __init__(self) -> None:
        self.endpoint = env("LANCE_AZURE_ENDPOINT")
        self.account = env("LANCE_AZURE_ACCOUNT")
        self.key = env("LANCE_AZURE_KEY")
        self.container = env("LANCE_AZURE_CONTAINER")

    def options(self) -> Dict[str, str]:
        """Storage options that reach the container with the account key."""
        return {"azure_storage_account_name": self.account,
                "azure_storage_account_key": self.key,
                "azure_storage_endpoint": self.endpoint,
                "allow_http": "true"}

    def vending_props(self, root: str, permission: str) -> Dict[str, str]:
        """The properties of a DirectoryNamespace on `root` whose own I/O uses the key
        (storage.*) and which vends SAS tokens with `permission`."""
        return {"root": root,
                **{f"storage.{k}": v for k, v in self.options().items()},
                "credential_vendor.enabled": "true",
                "credential_vendor.permission": permission}


def sas_sig(options: Dict[str, str]) -> str:
    """The signature (sig=) of the vended SAS in `options`, "" without one."""
    sas = options.get("azure_storage_sas_token", "")
    return sas.split("sig=", 1)[1].split("&", 1)[0] if "sig=" in sas else ""


def record_vended(options: Dict[str, str]) -> None:
    """The vended SAS of `options` (and its signature) into the secrets ledger."""
    sas = options.get("azure_storage_sas_token", "")
    if sas:
        _secret_ledger.record(sas, "vended azure sas")
        if "sig=" in sas:
            _secret_ledger.record(sas_sig(options), "vended sas sig")
