# SPDX-License-Identifier: Apache-2.0
"""A namespace for the Ray tests, loaded by class path in every Ray worker: lance_cpp's
DirectoryNamespace that appends "<pid> <operation>" to the file named by its ``log_path``
property for each table call, so that a test can count the calls per worker process."""

import os
import time

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
        _append(self._log_path, op)

    def describe_table(self, request):
        self._log("describe_table")
        return self._vend(super().describe_table(request))

    def declare_table(self, request):
        self._log("declare_table")
        return self._vend(super().declare_table(request))


def _append(log_path, op):
    with open(log_path, "a") as f:
        f.write(f"{os.getpid()} {op} {time.time():.3f}\n")


def calls(log_path):
    """[(pid, operation)] in call order."""
    return [(pid, op) for pid, op, _ in timed_calls(log_path)]


def timed_calls(log_path):
    """[(pid, operation, unix time)] in call order."""
    if not os.path.exists(log_path):
        return []
    with open(log_path) as f:
        return [tuple(line.split()) for line in f if line.strip()]


_VENDORS = {}


def _process_vendor(rgw_conf):
    """One KeyVendor per worker process (its revoker thread revokes the keys this process
    vended one second after they expire)."""
    import _vending

    vendor = _VENDORS.get(rgw_conf)
    if vendor is None:
        vendor = _VENDORS[rgw_conf] = _vending.KeyVendor(rgw_conf)
    return vendor


def _vending_base():
    from lance_namespace import LanceNamespace

    return LanceNamespace


class RgwVendingNamespace(_vending_base()):
    """The credential-refresh scenarios' namespace (tests/python/_vending.py) for Ray
    workers, built from string properties only: ``root`` (an s3:// root on the test RGW),
    ``ttl_s`` and ``log_path``. The RGW's static keys come from the worker's environment
    (LANCE_S3_*), never from the properties, so no secret travels with the tasks. Every
    describe / declare vends a brand-new key that lives ``ttl_s`` and is revoked on the
    server one second later, and is logged as "<pid> <operation>". With ``secrets_log``
    (a test's own file, mode 600), each vended secret is appended to it too, for the test
    to look for it where it must not be (Ray's logs)."""

    def __init__(self, **properties):
        import _vending
        import lance_cpp

        self._root = properties["root"]
        self._log_path = properties["log_path"]
        self._secrets_log = properties.get("secrets_log")
        s3 = _vending.S3Env()
        vendor = _process_vendor(s3.rgw_conf)
        self._inner = _vending.VendingNamespace(lance_cpp, s3, vendor, self._root,
                                                ttl_s=float(properties["ttl_s"]))

    def namespace_id(self):
        return f"RgwVendingNamespace({self._root})"

    def _log(self, op):
        _append(self._log_path, op)

    def _keep_secret(self, response):
        if self._secrets_log:
            fd = os.open(self._secrets_log, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
            try:
                os.write(fd, (response.storage_options["aws_secret_access_key"] +
                              "\n").encode())
            finally:
                os.close(fd)
        return response

    def describe_table(self, request):
        self._log("describe_table")
        try:
            return self._keep_secret(self._inner.describe_table(request))
        except Exception as e:  # noqa: BLE001 - only "not found" is answered below
            if "TableNotFound" not in type(e).__name__ + str(e):
                raise
        # A declared table with no version yet (the declare happened in the driver's
        # process): its location, as a namespace that records declarations answers.
        from lance_namespace import DescribeTableResponse

        return self._keep_secret(DescribeTableResponse(
            location=f"{self._root}/{'/'.join(request.id)}.lance",
            storage_options=self._inner._vend_options()))

    def declare_table(self, request):
        self._log("declare_table")
        return self._keep_secret(self._inner.declare_table(request))
