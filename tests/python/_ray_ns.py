# SPDX-License-Identifier: Apache-2.0
"""A namespace for the Ray tests, loaded by class path in every Ray worker: lance_cpp's
DirectoryNamespace that appends "<pid> <operation>" to the file named by its ``log_path``
property for each table call, so that a test can count the calls per worker process."""

import os

from lance_cpp.namespace import DirectoryNamespace


class LoggingDirectoryNamespace(DirectoryNamespace):
    """With a ``secret_file`` property, every answer also carries credentials as a vending
    namespace would (unused on local disk), the secret read from that file at each call --
    so it is never a property -- for a test to look for where it must not be (tasks)."""

    def __init__(self, **properties):
        self._log_path = properties.pop("log_path")
        self._secret_file = properties.pop("secret_file", None)
        super().__init__(**properties)

    def _vend(self, response):
        if self._secret_file:
            with open(self._secret_file) as f:
                secret = f.read().strip()
            response.storage_options = dict(response.storage_options or {},
                                            aws_access_key_id="AKIDRAYTEST",
                                            aws_secret_access_key=secret,
                                            expires_at_millis="99999999999999")
        return response

    def _log(self, op):
        with open(self._log_path, "a") as f:
            f.write(f"{os.getpid()} {op}\n")

    def describe_table(self, request):
        self._log("describe_table")
        return self._vend(super().describe_table(request))

    def declare_table(self, request):
        self._log("declare_table")
        return self._vend(super().declare_table(request))


def calls(log_path):
    """[(pid, operation)] in call order."""
    if not os.path.exists(log_path):
        return []
    with open(log_path) as f:
        return [tuple(line.split()) for line in f if line.strip()]
