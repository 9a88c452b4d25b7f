# SPDX-License-Identifier: Apache-2.0
"""The namespace of the Ray benchmark (bench/ray_bench.py), loaded by class path in every
Ray worker of both engines: a directory namespace on the benchmark's RGW that answers
``describe_table`` / ``declare_table`` with storage options as a credential-vending
namespace does (``expires_at_millis`` = now + ``ttl_s``), and appends "<pid> <operation>"
to ``log_path`` for every table call, so that the run can count them per engine.

The credentials it hands out are the RGW's own keys, read from the worker's environment
(LANCE_S3_*), never from the properties: what travels with the tasks is the spec alone.
A real vending namespace mints a key per call; the calls counted here cost what a local
directory namespace costs, so the count, not the time, is what this part compares.
"""

import os
import time

from lance_namespace import (DeclareTableResponse, DescribeTableResponse, LanceNamespace)


class VendingDirectoryNamespace(LanceNamespace):
    def __init__(self, **properties):
        import lance_cpp.namespace

        self._root = properties["root"].rstrip("/")
        self._ttl_ms = int(float(properties.get("ttl_s", "3600")) * 1000)
        self._log_path = properties["log_path"]
        self._options = {
            "aws_access_key_id": os.environ["LANCE_S3_ACCESS_KEY"],
            "aws_secret_access_key": os.environ["LANCE_S3_SECRET_KEY"],
            "aws_endpoint": os.environ["LANCE_S3_ENDPOINT"],
            "aws_region": os.environ.get("LANCE_S3_REGION", "us-east-1"),
            "allow_http": "true",
        }
        # Tables are found by listing <root>/<name>.lance (no __manifest table to keep).
        self._inner = lance_cpp.namespace.DirectoryNamespace(
            root=self._root, manifest_enabled="false", dir_listing_enabled="true",
            **{f"storage.{k}": v for k, v in self._options.items()})

    def namespace_id(self):
        return f"VendingDirectoryNamespace({self._root})"

    def _vended(self):
        return dict(self._options,
                    expires_at_millis=str(int(time.time() * 1000) + self._ttl_ms))

    def _log(self, op):
        with open(self._log_path, "a") as f:
            f.write(f"{os.getpid()} {op}\n")

    def describe_table(self, request):
        self._log("describe_table")
        try:
            response = self._inner.describe_table(request)
            location = response.location
        except Exception as e:  # noqa: BLE001 - only "not found" is answered below
            if "NotFound" not in type(e).__name__ + str(e):
                raise
            # Declared in another process, no version yet: where it will be.
            location = self._location(request.id)
        return DescribeTableResponse(location=location, storage_options=self._vended())

    def declare_table(self, request):
        self._log("declare_table")
        # The location the listing finds once the first commit made the table (pylance 14's
        # DirectoryNamespace cannot declare on RGW: its empty marker upload is refused).
        return DeclareTableResponse(location=self._location(request.id),
                                    storage_options=self._vended())

    def _location(self, table_id):
        return f"{self._root}/{'/'.join(table_id)}.lance"


def calls(log_path):
    """[(pid, operation)] in call order."""
    if not os.path.exists(log_path):
        return []
    with open(log_path) as f:
        return [tuple(line.split()[:2]) for line in f if line.strip()]
