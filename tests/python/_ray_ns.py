# SPDX-License-Identifier: Apache-2.0
"""A namespace for the Ray tests, loaded by class path in every Ray worker: lance_cpp's
DirectoryNamespace that appends "<pid> <operation>" to the file named by its ``log_path``
property for each table call, so that a test can count the calls per worker process."""

import os

from lance_cpp.namespace import DirectoryNamespace


class LoggingDirectoryNamespace(DirectoryNamespace):
    def __init__(self, **properties):
        self._log_path = properties.pop("log_path")
        super().__init__(**properties)

    def _log(self, op):
        with open(self._log_path, "a") as f:
            f.write(f"{os.getpid()} {op}\n")

    def describe_table(self, request):
        self._log("describe_table")
        return super().describe_table(request)

    def declare_table(self, request):
        self._log("declare_table")
        return super().declare_table(request)


def calls(log_path):
    """[(pid, operation)] in call order."""
    if not os.path.exists(log_path):
        return []
    with open(log_path) as f:
        return [tuple(line.split()) for line in f if line.strip()]
