# SPDX-License-Identifier: Apache-2.0
"""The S3 server of the interop tests (the Ceph RGW that scripts/run_tests.sh starts):
its coordinates from LANCE_S3_* (without them the tests fail, never skip), Lance storage
options for them, a unique prefix per module and its cleanup."""

from __future__ import annotations

import os
import uuid
from typing import Dict

import pytest

S3_VARS = ("LANCE_S3_ENDPOINT", "LANCE_S3_REGION", "LANCE_S3_ACCESS_KEY", "LANCE_S3_SECRET_KEY",
           "LANCE_S3_BUCKET")


class S3Env:
    """The test server's coordinates and a run prefix "<prefix>-<unique>" in its bucket;
    `what` names the tests in the failure without LANCE_S3_*."""

    def __init__(self, prefix: str, what: str) -> None:
        missing = [k for k in S3_VARS if not os.environ.get(k)]
        if missing:
            pytest.fail(f"missing {', '.join(missing)}: {what} need the RGW that "
                        "scripts/run_tests.sh starts (make test), or `source` its env by hand")
        self.endpoint = os.environ["LANCE_S3_ENDPOINT"]
        self.region = os.environ["LANCE_S3_REGION"]
        self.access_key = os.environ["LANCE_S3_ACCESS_KEY"]
        self.secret_key = os.environ["LANCE_S3_SECRET_KEY"]
        self.bucket = os.environ["LANCE_S3_BUCKET"]
        self.run_prefix = f"{prefix}-{uuid.uuid4().hex[:12]}"

    @property
    def storage_options(self) -> Dict[str, str]:
        return {"aws_endpoint": self.endpoint, "aws_region": self.region,
                "aws_access_key_id": self.access_key,
                "aws_secret_access_key": self.secret_key, "allow_http": "true"}

    def filesystem(self):
        from pyarrow import fs
        scheme, _, host = self.endpoint.partition("://")
        return fs.S3FileSystem(access_key=self.access_key, secret_key=self.secret_key,
                               endpoint_override=host, scheme=scheme, region=self.region)

    def cleanup(self) -> None:
        """Deletes the run prefix (delete_dir, not delete_dir_contents: the latter leaves
        a "dir/" marker object)."""
        from pyarrow import fs
        base = f"{self.bucket}/{self.run_prefix}"
        if self.filesystem().get_file_info(base).type != fs.FileType.NotFound:
            self.filesystem().delete_dir(base)

    def scrub(self, text: str) -> str:
        return text.replace(self.secret_key, "<redacted>")
