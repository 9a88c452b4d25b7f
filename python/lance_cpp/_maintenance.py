# SPDX-License-Identifier: Apache-2.0
"""LanceDataset's maintenance methods (a mixin of lance_cpp.dataset.LanceDataset):
``optimize.compact_files``, ``cleanup_old_versions``, ``restore``, ``tags``, ``config``,
``update_config``, ``delete_config_keys``, ``replace_schema_metadata`` and
``replace_field_metadata``, with pylance's names, arguments and result types."""
from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from typing import Any, Dict, Iterable, Optional, Union

from . import _lance_cpp


@dataclass
class CompactionMetrics:
    """pylance's ``lance.optimize.CompactionMetrics``."""

    fragments_removed: int
    fragments_added: int
    files_removed: int
    files_added: int


@dataclass
class CleanupStats:
    """pylance's ``CleanupStats``."""

    bytes_removed: int
    old_versions: int
    data_files_removed: int = 0
    transaction_files_removed: int = 0
    index_files_removed: int = 0
    deletion_files_removed: int = 0
    failed_deletes: int = 0


def _parse_rfc3339(text: str) -> Optional[datetime]:
    """Lance's tag times ("2026-01-02T03:04:05.123456789Z") as aware UTC datetimes."""
    if not text:
        return None
    body = text[:-1] if text.endswith("Z") else text
    if "." in body:
        head, frac = body.split(".", 1)
        body = f"{head}.{frac[:6].ljust(6, '0')}"
        fmt = "%Y-%m-%dT%H:%M:%S.%f"
    else:
        fmt = "%Y-%m-%dT%H:%M:%S"
    return datetime.strptime(body, fmt).replace(tzinfo=timezone.utc)


class Optimize:
    """``ds.optimize``: pylance's DatasetOptimizer (compaction only)."""

    def __init__(self, ds: Any):
        self._ds = ds

    def compact_files(self, *, target_rows_per_fragment: int = 1024 * 1024,
                      max_rows_per_group: int = 1024, max_bytes_per_file: Optional[int] = None,
                      materialize_deletions: bool = True,
                      materialize_deletions_threshold: float = 0.1,
                      num_threads: Optional[int] = None, batch_size: Optional[int] = None,
                      defer_index_remap: bool = False) -> CompactionMetrics:
        """Rewrites small fragments into larger ones (Lance's ``Rewrite``), committing a
        new version unless there is nothing to do."""
        if max_bytes_per_file is not None:
            raise _lance_cpp.LanceNotImplementedError(
                "compact_files: max_bytes_per_file is not supported by lance_cpp")
        if defer_index_remap:
            raise _lance_cpp.LanceNotImplementedError(
                "compact_files: defer_index_remap=True is not supported by lance_cpp")
        out = _lance_cpp._compact_files(
            self._ds._native, int(target_rows_per_fragment), int(max_rows_per_group),
            bool(materialize_deletions), float(materialize_deletions_threshold),
            num_threads, batch_size)
        return CompactionMetrics(*out)


class Tags:
    """``ds.tags``: pylance's Tags (``_refs/tags/<name>.json``)."""

    def __init__(self, ds: Any):
        self._ds = ds

    def list(self) -> Dict[str, Dict[str, Any]]:
        out = {}
        for name, tag in _lance_cpp._tags_list(self._ds._native).items():
            out[name] = {
                "branch": tag["branch"],
                "version": tag["version"],
                "created_at": _parse_rfc3339(tag["created_at"]),
                "updated_at": _parse_rfc3339(tag["updated_at"]),
                "manifest_size": tag["manifest_size"],
                "metadata": dict(tag["metadata"]),
            }
        return out

    def get_version(self, tag: str) -> int:
        return _lance_cpp._tag_version(self._ds._native, tag)

    def create(self, tag: str, version: int, branch: Optional[str] = None) -> None:
        if branch is not None:
            raise _lance_cpp.LanceNotImplementedError(
                "tags.create: branches are not supported by lance_cpp")
        _lance_cpp._tag_create(self._ds._native, tag, int(version))

    def update(self, tag: str, version: int, branch: Optional[str] = None) -> None:
        if branch is not None:
            raise _lance_cpp.LanceNotImplementedError(
                "tags.update: branches are not supported by lance_cpp")
        _lance_cpp._tag_update(self._ds._native, tag, int(version))

    def delete(self, tag: str) -> None:
        _lance_cpp._tag_delete(self._ds._native, tag)


def _checkout_native(native: Any, version: Union[int, str, datetime]) -> Any:
    """The native dataset of `version`: a number, a tag name or a datetime."""
    if isinstance(version, int):
        return native.checkout_version(version)
    if isinstance(version, str):
        return _lance_cpp._checkout_tag(native, version)
    # A datetime: pylance treats naive values as local time.
    ms = int(version.timestamp() * 1000)
    return _lance_cpp._checkout_timestamp(native, ms)


def _timedelta_ms(value: Any) -> int:
    if isinstance(value, timedelta):
        return int(value.total_seconds() * 1000)
    raise TypeError(f"older_than must be a datetime.timedelta, got {type(value).__name__}")


class _MaintenanceMixin:
    """Methods mixed into LanceDataset; `self._native` is the native Dataset."""

    @property
    def optimize(self) -> Optimize:
        return Optimize(self)

    @property
    def tags(self) -> Tags:
        return Tags(self)

    def cleanup_old_versions(self, older_than: Optional[timedelta] = None,
                             retain_versions: Optional[int] = None, *,
                             delete_unverified: bool = False,
                             error_if_tagged_old_versions: bool = True,
                             delete_rate_limit: Optional[int] = None,
                             versions: Optional[Iterable[int]] = None,
                             delete_concurrency: Optional[int] = None) -> CleanupStats:
        """Removes versions older than ``older_than`` (default two weeks when neither it
        nor ``retain_versions`` is given) and not among the newest ``retain_versions``,
        never the latest nor a tagged one, and the files only they referenced (Lance's
        cleanup)."""
        if versions is not None:
            raise _lance_cpp.LanceNotImplementedError(
                "cleanup_old_versions: versions= is not supported by lance_cpp")
        if older_than is None and retain_versions is None:
            older_than = timedelta(days=14)
        ms = _timedelta_ms(older_than) if older_than is not None else None
        stats = _lance_cpp._cleanup_old_versions(
            self._native, ms, None if retain_versions is None else int(retain_versions),
            bool(delete_unverified), bool(error_if_tagged_old_versions))
        return CleanupStats(**stats)

    def restore(self) -> None:
        """Commits this version as the newest one (Lance's ``Restore``)."""
        _lance_cpp._restore(self._native)

    def config(self) -> Dict[str, str]:
        """The table config key-values of this version."""
        return dict(_lance_cpp._config(self._native))

    def update_config(self, values: Dict[str, Optional[str]], *,
                      replace: bool = False) -> Dict[str, str]:
        """Sets the keys (a None value removes the key; ``replace`` makes the config
        exactly these keys), committing Lance's ``UpdateConfig``; returns the config."""
        updates = {str(k): (None if v is None else str(v)) for k, v in values.items()}
        return dict(_lance_cpp._update_config(self._native, updates, bool(replace)))

    def delete_config_keys(self, keys: Iterable[str]) -> None:
        _lance_cpp._delete_config_keys(self._native, [str(k) for k in keys])

    def replace_schema_metadata(self, new_metadata: Dict[str, str]) -> None:
        _lance_cpp._replace_schema_metadata(self._native, {str(k): str(v)
                                                           for k, v in new_metadata.items()})

    def replace_field_metadata(self, field_name: str, new_metadata: Dict[str, str]) -> None:
        _lance_cpp._replace_field_metadata(self._native, field_name,
                                           {str(k): str(v) for k, v in new_metadata.items()})
