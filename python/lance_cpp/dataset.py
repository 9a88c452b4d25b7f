# SPDX-License-Identifier: Apache-2.0
"""Datasets: pylance's ``lance.dataset`` module on the lance-cpp core.

``write_dataset``, ``dataset``, ``LanceDataset``, ``LanceScanner`` and ``LanceOperation``
take pylance's argument names. Arguments of pylance that this implementation cannot
honour raise NotImplementedError when given a non-default value, rather than being
ignored silently.
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any, Dict, Generic, Iterable, Iterator, List, Optional, TypeVar, Union

import pyarrow as pa

from . import _lance_cpp
from ._args import (_check_kwargs, _conform_to_existing, _int_list, _namespace_provider,
                    _reject_unsupported, _storage_of, _storage_version, _uri_of)
from ._convert import to_reader, to_schema
from ._maintenance import _MaintenanceMixin
from ._mutation import _MutationMixin
from ._reads import _ReadMixin
from .fragment import FragmentMetadata, _to_native_fragment

__all__ = [
    "LanceDataset",
    "LanceFragment",
    "LanceOperation",
    "LanceScanner",
    "dataset",
    "write_dataset",
]

_T = TypeVar("_T")


class _Forwarded(Generic[_T]):
    """A read-only attribute answered by an attribute of a part of the object:
    ``uri = _Forwarded[str]("_native", "uri")`` reads ``self._native.uri``."""

    def __init__(self, part: str, name: str) -> None:
        self._part = part
        self._name = name

    def __get__(self, obj: Any, owner: Any = None) -> _T:
        if obj is None:
            return self  # type: ignore[return-value]  # the class attribute itself
        return getattr(getattr(obj, self._part), self._name)

    def __set__(self, obj: Any, value: Any) -> None:
        raise AttributeError(f"{self._name!r} is read-only")  # as a property without setter


def _namespace_arg(namespace_client: Any, namespace: Any) -> Any:
    if namespace_client is not None and namespace is not None and namespace_client is not namespace:
        raise ValueError("pass either namespace_client or namespace (its alias), not both")
    return namespace_client if namespace_client is not None else namespace


def _check_location(uri: Optional[str], ns: Any, table_id: Any, what: str) -> None:
    if ns is not None:
        if uri is not None:
            raise ValueError(f"{what}: give either a uri or namespace_client and table_id")
        if not table_id:
            raise ValueError(f"{what}: table_id is required with namespace_client")
    elif uri is None:
        raise ValueError(f"{what}: a uri (or namespace_client and table_id) is required")
    elif table_id is not None:
        raise ValueError(f"{what}: table_id needs namespace_client")


def _columns_arg(columns: Any, expressions: bool = False) -> Any:
    """A list of column names; with ``expressions`` (scans) a dict {name: SQL expression}
    is accepted too and returned as a list of (name, expression) pairs."""
    if columns is None:
        return None
    if isinstance(columns, dict):
        if not expressions:
            raise _lance_cpp.LanceNotImplementedError(
                "columns given as a dict of SQL expressions are supported by scans only; "
                "pass a list of column names"
            )
        pairs = []
        for name, expr in columns.items():
            if not isinstance(name, str) or not isinstance(expr, str):
                raise TypeError("columns given as a dict map output names (str) to SQL "
                                "expressions (str)")
            pairs.append((name, expr))
        return pairs
    if isinstance(columns, str):
        raise TypeError("columns must be a list of column names")
    return list(columns)


def _fragment_ids_arg(fragments: Any) -> Optional[List[int]]:
    """pylance's ``fragments=``: LanceFragment / FragmentMetadata objects (or ids)."""
    if fragments is None:
        return None
    out = []
    for f in fragments:
        if isinstance(f, int) and not isinstance(f, bool):
            out.append(f)
        elif hasattr(f, "fragment_id"):
            out.append(int(f.fragment_id))
        elif hasattr(f, "id"):
            out.append(int(f.id))
        else:
            raise TypeError(f"fragments must be LanceFragment objects, got {type(f).__name__}")
    return out


def _indices_arg(indices: Any) -> List[int]:
    """Row positions as pylance takes them: a list, a pyarrow / numpy array of ints."""
    return _int_list(indices, "take", "indices")


def _filter_arg(filter: Any) -> Optional[str]:
    if filter is None or isinstance(filter, str):
        return filter
    raise _lance_cpp.LanceNotImplementedError(
        f"filter must be a SQL string in lance_cpp (got {type(filter).__name__})"
    )


# pylance's scan options: tuning that does not change results (ignored) and options that
# do (refused unless left at their default).
_SCANNER_IGNORED = {"use_stats", "fast_search", "io_buffer_size", "late_materialization",
                    "use_scalar_index", "strict_batch_size", "blob_handling",
                    "disable_scoring_autoprojection"}
_SCANNER_REJECTED = {"include_deleted_rows", "order_by", "row_addr_allowlist",
                     "row_addr_blocklist", "scan_stats_callback"}


def _readahead_arg(name: str, value: Any) -> Optional[int]:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"{name} must be a positive integer, got {value!r}")
    return value


class LanceScanner:
    """A configured scan: ``to_table()``, ``to_batches()``, ``to_reader()``."""

    def __init__(self, ds: "LanceDataset", columns=None, filter=None, limit=None,
                 offset=None, with_row_id=False, batch_size=None, fragments=None,
                 fragment_readahead=None, batch_readahead=None):
        self._ds = ds
        self._fragment_ids = _fragment_ids_arg(fragments)
        # A dict of {name: expression} becomes ScanOptions::projections.
        self._projections = None
        self._columns = _columns_arg(columns, expressions=True)
        if isinstance(columns, dict):
            self._projections, self._columns = self._columns, None
        self._filter = _filter_arg(filter)
        self._limit = limit
        self._offset = offset
        self._with_row_id = bool(with_row_id)
        self._batch_size = batch_size
        # ScanOptions::fragment_readahead / batch_readahead (docs/architecture.md).
        self._fragment_readahead = _readahead_arg("fragment_readahead", fragment_readahead)
        self._batch_readahead = _readahead_arg("batch_readahead", batch_readahead)

    def _kwargs(self) -> Dict[str, Any]:
        return dict(columns=self._columns, filter=self._filter, limit=self._limit,
                    offset=self._offset, with_row_id=self._with_row_id,
                    batch_size=self._batch_size, fragment_ids=self._fragment_ids,
                    projections=self._projections,
                    fragment_readahead=self._fragment_readahead,
                    batch_readahead=self._batch_readahead)

    def to_reader(self) -> pa.RecordBatchReader:
        return self._ds._native.scan(_lance_cpp._ScanOptions(**self._kwargs()))

    def to_table(self) -> pa.Table:
        return self._ds._native.to_table(_lance_cpp._ScanOptions(**self._kwargs()))

    def to_batches(self) -> Iterator[pa.RecordBatch]:
        return iter(self.to_reader())

    @property
    def projected_schema(self) -> pa.Schema:
        return self.to_reader().schema

    def count_rows(self) -> int:
        if (self._limit is None and not self._offset and self._columns is None
                and self._projections is None and not self._with_row_id and self._fragment_ids is None):
            return self._ds._native.count_rows(self._filter)
        return self.to_table().num_rows

    def __arrow_c_stream__(self, requested_schema=None):
        return self.to_reader().__arrow_c_stream__(requested_schema)


class LanceDataset(_MutationMixin, _MaintenanceMixin, _ReadMixin):
    """One version of a Lance dataset (pylance's ``lance.LanceDataset``)."""

    def __init__(self, uri: Union[str, Path, None] = None, version: Union[int, str, datetime, None] = None, *,
                 storage_options: Optional[Dict[str, str]] = None,
                 storage_options_provider: Any = None,
                 namespace_client: Any = None, table_id: Optional[List[str]] = None,
                 ignore_namespace_table_storage_options: bool = False,
                 _native: Any = None):
        if _native is None:
            uri_str = _uri_of(uri)
            _check_location(uri_str, namespace_client, table_id, "dataset")
            by_number = version if isinstance(version, int) and not isinstance(version, bool) \
                else None
            if version is not None and by_number is None and not isinstance(
                    version, (str, datetime)):
                raise TypeError(f"version must be an int, a tag name or a datetime, "
                                f"got {type(version).__name__}")
            recording = None
            if namespace_client is not None:
                recording = _RecordingNamespace(namespace_client, list(table_id),
                                                ignore_namespace_table_storage_options)
            _native = _through_namespace(recording, lambda: _lance_cpp._open_dataset(
                uri_str, by_number, storage_options, storage_options_provider,
                recording, list(table_id) if table_id is not None else None))
            storage_options, storage_options_provider = _namespace_access(
                recording, namespace_client, table_id, storage_options,
                storage_options_provider)
            if version is not None and by_number is None:
                from ._maintenance import _checkout_native
                _native = _checkout_native(_native, version)
        self._native = _native
        self._storage_options = storage_options
        self._storage_options_provider = storage_options_provider

    @classmethod
    def _wrap(cls, native, storage_options=None, storage_options_provider=None) -> "LanceDataset":
        return cls(_native=native, storage_options=storage_options,
                   storage_options_provider=storage_options_provider)

    # -- properties -----------------------------------------------------------------
    uri = _Forwarded[str]("_native", "uri")
    version = _Forwarded[int]("_native", "version")
    schema = _Forwarded[pa.Schema]("_native", "schema")
    data_storage_version = _Forwarded[str]("_native", "data_storage_version")

    @property
    def latest_version(self) -> int:
        return self._native.latest_version()

    def credential_stats(self) -> Optional[Dict[str, int]]:
        """lance_cpp only: the credential refresh counters of this dataset's storage
        options provider (``fetches``, ``waits``, ``max_wait_ms``, ``max_fetch_latency_ms``
        ... as in :func:`lance_cpp.credential_stats`), or None when the dataset was opened
        without a provider. Every handle on one provider id shares one refreshing source,
        so these are the provider's counters, not this handle's alone."""
        return self._native.credential_stats()

    def get_fragments(self, filter: Optional[str] = None) -> List["LanceFragment"]:
        """The fragments of this version (pylance's ``LanceFragment``)."""
        if filter is not None:
            raise _lance_cpp.LanceNotImplementedError(
                "get_fragments(filter=...) is not supported by lance_cpp")
        return [LanceFragment(self, FragmentMetadata._from_native(f))
                for f in self._native.fragments()]

    def get_fragment(self, fragment_id: int) -> Optional["LanceFragment"]:
        for f in self.get_fragments():
            if f.fragment_id == fragment_id:
                return f
        return None

    def take(self, indices: Any, columns: Any = None, **kwargs: Any) -> pa.Table:
        """The rows at `indices` (positions among the live rows, in scan order; any
        order, repeats allowed), reading only what holds them."""
        with_row_id = bool(kwargs.pop("with_row_id", False))
        _check_kwargs("take", kwargs, _SCANNER_IGNORED)
        positions = _indices_arg(indices)
        live = self.count_rows()
        in_range = [p for p in positions if 0 <= p < live]
        if in_range and len(in_range) != len(positions):
            # pylance 14 drops positions past the last row as long as one is valid (and
            # fails when none is); code written for it relies on that.
            positions = in_range
        table = self._native.take(positions, _columns_arg(columns), with_row_id)
        if any(b < a for a, b in zip(positions, positions[1:])):
            # pylance 14 returns no schema metadata when the indices are not in
            # ascending order (its reordering drops it); do the same.
            table = table.replace_schema_metadata(None)
        return table

    # -- reads ----------------------------------------------------------------------
    def scanner(self, columns=None, filter=None, limit=None, offset=None, nearest=None,
                batch_size=None, batch_size_bytes=None, batch_readahead=None,
                fragment_readahead=None, scan_in_order=None, fragments=None,
                index_segments=None, full_text_query=None, *, prefilter=None,
                with_row_id=None, with_row_address=None, **kwargs) -> LanceScanner:
        _reject_unsupported("scanner", nearest=nearest, batch_size_bytes=batch_size_bytes,
                            index_segments=index_segments,
                            full_text_query=full_text_query,
                            with_row_address=with_row_address)
        # Tuning knobs with no effect on results (ordering, prefilter, ...) are accepted
        # and ignored, except the read-ahead ones, which size the scan's read-ahead;
        # options that change results are refused.
        _check_kwargs("scanner", kwargs, _SCANNER_IGNORED | _SCANNER_REJECTED)
        _reject_unsupported("scanner",
                            **{k: v for k, v in kwargs.items() if k in _SCANNER_REJECTED})
        return LanceScanner(self, columns=columns, filter=filter, limit=limit, offset=offset,
                            with_row_id=with_row_id, batch_size=batch_size,
                            fragments=fragments, fragment_readahead=fragment_readahead,
                            batch_readahead=batch_readahead)

    def _scan(self, columns=None, filter=None, limit=None, offset=None, nearest=None,
              batch_size=None, batch_size_bytes=None, batch_readahead=None,
              fragment_readahead=None, scan_in_order=None, *, prefilter=None,
              with_row_id=None, with_row_address=None, **kwargs) -> "LanceScanner":
        """The scanner of to_table / to_batches (pylance's arguments of both)."""
        return self.scanner(columns=columns, filter=filter, limit=limit, offset=offset,
                            nearest=nearest, batch_size=batch_size,
                            batch_size_bytes=batch_size_bytes, with_row_id=with_row_id,
                            with_row_address=with_row_address,
                            fragment_readahead=fragment_readahead,
                            batch_readahead=batch_readahead, **kwargs)

    def to_table(self, *args: Any, **kwargs: Any) -> pa.Table:
        return self._scan(*args, **kwargs).to_table()

    def to_batches(self, *args: Any, **kwargs: Any) -> Iterator[pa.RecordBatch]:
        return self._scan(*args, **kwargs).to_batches()

    def count_rows(self, filter: Optional[str] = None, **kwargs: Any) -> int:
        _check_kwargs("count_rows", kwargs, _SCANNER_IGNORED | _SCANNER_REJECTED)
        return self._native.count_rows(_filter_arg(filter))

    def head(self, num_rows: int, **kwargs: Any) -> pa.Table:
        return self.to_table(limit=num_rows, **kwargs)

    def __len__(self) -> int:
        return self.count_rows()

    def __arrow_c_stream__(self, requested_schema=None):
        return self.scanner().__arrow_c_stream__(requested_schema)

    def versions(self) -> List[Dict[str, Any]]:
        """Every version: {"version", "timestamp" (datetime, local time as pylance),
        "metadata" (pylance's summary keys)}."""
        out = []
        for version, timestamp_ms, metadata in self._native.versions():
            # As pylance: naive local datetime, sub-second part added separately.
            ts = datetime.fromtimestamp(timestamp_ms // 1000) + timedelta(
                milliseconds=timestamp_ms % 1000)
            out.append({"version": version, "timestamp": ts, "metadata": dict(metadata)})
        return out

    def checkout_version(self, version: Union[int, str, datetime]) -> "LanceDataset":
        """Another version: by number, by tag name, or (a datetime) the latest version
        committed at or before that time (naive datetimes are local time, as pylance)."""
        if isinstance(version, bool) or not isinstance(version, (int, str, datetime)):
            raise TypeError(f"version must be an int, a tag name or a datetime, "
                            f"got {type(version).__name__}")
        from ._maintenance import _checkout_native
        return LanceDataset._wrap(_checkout_native(self._native, version),
                                  self._storage_options, self._storage_options_provider)

    # -- writes ---------------------------------------------------------------------
    def delete(self, predicate: str, *, conflict_retries: int = 10,
               retry_timeout: timedelta = timedelta(seconds=30)) -> Dict[str, int]:
        """Deletes the rows matching `predicate`, committing a new version; this object
        moves to it. Returns {"num_deleted_rows": n}, as pylance."""
        predicate = _filter_arg(predicate)
        if predicate is None:
            raise ValueError("delete needs a predicate")
        deadline = datetime.now() + retry_timeout
        attempt = 0
        while True:
            before = self._native.count_rows(None)
            try:
                self._native.delete(predicate)
                return {"num_deleted_rows": before - self._native.count_rows(None)}
            except _lance_cpp.LanceIOError as e:
                # As pylance: a retryable commit conflict (a concurrent commit changed the
                # fragments this delete rewrote) plans the delete again on the latest
                # version; an incompatible one (overwrite, restore) is raised.
                retryable = getattr(e, "code", "") == "Conflict" and getattr(e, "retryable", False)
                if not retryable or attempt >= conflict_retries or datetime.now() > deadline:
                    raise
            attempt += 1
            self._native = self._native.checkout_version(self._native.latest_version())

    @staticmethod
    def commit(base_uri: Union[str, Path, "LanceDataset"], operation: Any,
               read_version: Optional[int] = None, commit_lock: Any = None,
               storage_options: Optional[Dict[str, str]] = None,
               enable_v2_manifest_paths: Optional[bool] = None, detached: Optional[bool] = False,
               max_retries: int = 20, *, storage_options_provider: Any = None,
               commit_message: Optional[str] = None, **kwargs: Any) -> "LanceDataset":
        """Commits an Overwrite or Append of fragments written by ``write_fragments``
        (lance_cpp's or pylance's), as pylance's ``LanceDataset.commit``."""
        _check_kwargs("commit", kwargs, {"namespace_client", "table_id", "enable_stable_row_ids",
                                         "base_store_params", "commit_timeout",
                                         "namespace_client_managed_versioning"})
        _reject_unsupported("commit", commit_lock=commit_lock, detached=detached,
                            **{k: v for k, v in kwargs.items()
                               if k not in ("commit_timeout", "namespace_client", "table_id")})
        uri = _uri_of(base_uri)
        storage_options_provider = _namespace_provider(
            "commit", kwargs.get("namespace_client"), kwargs.get("table_id"),
            storage_options_provider)
        if storage_options is None and isinstance(base_uri, LanceDataset):
            storage_options = base_uri._storage_options
            storage_options_provider = (storage_options_provider
                                        or base_uri._storage_options_provider)
        kind, schema, fragments = _operation_parts(operation)
        native = _lance_cpp._commit(uri, kind, schema, fragments, read_version,
                                    storage_options, storage_options_provider)
        return LanceDataset._wrap(native, storage_options, storage_options_provider)

    def __repr__(self) -> str:
        return f"LanceDataset(uri={self.uri!r}, version={self.version})"


def _share_scan_signature(cls: type, *names: str) -> None:
    """The methods `names` of `cls`, which pass (*args, **kwargs) to cls._scan, show its
    parameters (pylance's) to help() and editors."""
    parameters = list(inspect.signature(cls._scan).parameters.values())
    for name in names:
        method = getattr(cls, name)
        method.__signature__ = inspect.signature(method).replace(parameters=parameters)


_share_scan_signature(LanceDataset, "to_table", "to_batches")


class LanceFragment:
    """One fragment of a dataset version (pylance's ``lance.fragment.LanceFragment``)."""

    def __init__(self, dataset: LanceDataset, metadata: FragmentMetadata):
        self._ds = dataset
        self._metadata = metadata

    fragment_id = _Forwarded[int]("_metadata", "id")
    schema = _Forwarded[pa.Schema]("_ds", "schema")
    physical_rows = _Forwarded[int]("_metadata", "physical_rows")
    num_deletions = _Forwarded[int]("_metadata", "num_deletions")

    @property
    def metadata(self) -> FragmentMetadata:
        return self._metadata

    def data_files(self):
        return self._metadata.data_files()

    def deletion_file(self):
        return self._metadata.deletion_file

    def count_rows(self, filter: Optional[str] = None) -> int:
        if filter is None:
            return self._metadata.num_rows
        return self.scanner(filter=filter).to_table().num_rows

    def take(self, indices: Any, columns: Any = None, **kwargs: Any) -> pa.Table:
        """Rows at `indices` -- positions among this fragment's live rows."""
        with_row_id = bool(kwargs.pop("with_row_id", False))
        _check_kwargs("take", kwargs, _SCANNER_IGNORED)
        columns = _columns_arg(columns)
        if columns is not None:
            # pylance's LanceFragment.take leaves the row id / address columns out.
            names = set(self.schema.names)
            columns = [c for c in columns if c in names or c not in ("_rowid", "_rowaddr")]
            if not columns:
                raise ValueError("LanceFragment.take: no data columns requested")
        return self._ds._native.take_fragment(self.fragment_id, _indices_arg(indices),
                                              columns, with_row_id)

    def scanner(self, columns=None, filter=None, limit=None, offset=None, with_row_id=None,
                batch_size=None, **kwargs: Any) -> LanceScanner:
        return self._ds.scanner(columns=columns, filter=filter, limit=limit, offset=offset,
                                with_row_id=with_row_id, batch_size=batch_size,
                                fragments=[self.fragment_id], **kwargs)

    def to_table(self, columns=None, filter=None, limit=None, offset=None, with_row_id=None,
                 **kwargs: Any) -> pa.Table:
        return self.scanner(columns=columns, filter=filter, limit=limit, offset=offset,
                            with_row_id=with_row_id, **kwargs).to_table()

    def to_batches(self, columns=None, filter=None, limit=None, offset=None, with_row_id=None,
                   **kwargs: Any) -> Iterator[pa.RecordBatch]:
        return self.scanner(columns=columns, filter=filter, limit=limit, offset=offset,
                            with_row_id=with_row_id, **kwargs).to_batches()

    def head(self, num_rows: int) -> pa.Table:
        return self.to_table(limit=num_rows)

    def __repr__(self) -> str:
        return f"LanceFragment(id={self.fragment_id}, rows={self._metadata.num_rows})"


class _RecordingNamespace:
    """The namespace handed to the native core by a namespace-addressed open or write:
    it forwards every call to ``inner`` and remembers what the table's
    describe/declare/create_empty answer said, so that the returned LanceDataset keeps
    the table's storage options and provider for ``commit``, ``write_fragments`` and
    appends (the native dataset keeps its own), without a second namespace call.

    - ``ignore_storage_options``: the answers reach the core without their
      ``storage_options`` (pylance's ``ignore_namespace_table_storage_options``): only the
      caller's options are used and no provider is attached.
    - ``managed_versioning=true`` in an answer (pylance 14: commits go through the
      namespace's table version operations) is refused: the native core commits
      manifests itself. The call fails (InvalidTableState) and ``refusal`` says why.
    """

    def __init__(self, inner: Any, table_id: List[str], ignore_storage_options: bool) -> None:
        self._inner = inner
        self._table_id = list(table_id)
        self._ignore = ignore_storage_options
        self.storage_options: Optional[Dict[str, str]] = None
        self.refusal: Optional[str] = None

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)

    def _record(self, op: str, response: Any) -> Any:
        if getattr(response, "managed_versioning", None) is True:
            self.refusal = (
                f"table {self._table_id} of {self._inner.namespace_id()}: the namespace "
                f"answered {op} with managed_versioning=true (commits must go through its "
                "create_table_version), which lance_cpp does not support: its core "
                "commits manifests to the table's _versions directory itself")
            import lance_namespace.errors as errors

            raise errors.InvalidTableStateError(self.refusal)
        options = getattr(response, "storage_options", None)
        if self._ignore:
            if options and hasattr(response, "model_copy"):
                response = response.model_copy(update={"storage_options": None})
        elif options:
            self.storage_options = dict(options)
        return response

    def _forward(self, op: str, request: Any) -> Any:
        method = getattr(self._inner, op, None)
        if method is None:
            raise NotImplementedError(f"{op} is not supported by {self._inner!r}")
        return self._record(op, method(request))

    def describe_table(self, request: Any) -> Any:
        return self._forward("describe_table", request)

    def declare_table(self, request: Any) -> Any:
        return self._forward("declare_table", request)

    def create_empty_table(self, request: Any) -> Any:
        return self._forward("create_empty_table", request)


def _through_namespace(recording: Optional[_RecordingNamespace], call: Any) -> Any:
    """``call()`` (a native open/write through ``recording``), raising the managed
    versioning refusal as NotImplementedError."""
    try:
        return call()
    except Exception as e:
        if recording is not None and recording.refusal is not None:
            raise _lance_cpp.LanceNotImplementedError(recording.refusal) from e
        raise


def _namespace_access(recording: Optional[_RecordingNamespace], ns: Any,
                      table_id: Optional[List[str]], storage_options: Optional[Dict[str, str]],
                      provider: Any):
    """(storage options, provider) a dataset opened or written through a namespace keeps
    for its later commits, fragment writes and appends, as the native core accessed the
    table: when the namespace answered with storage options, the caller's options merged
    with them (the core's rule: the caller's first, vended credentials win) and the
    table's provider (replacing the caller's, as the core does); otherwise the caller's
    own."""
    if recording is None or recording.storage_options is None:
        return storage_options, provider
    merged = _lance_cpp._merge_storage_options(storage_options or {},
                                               recording.storage_options)
    from .namespace import LanceNamespaceStorageOptionsProvider

    return merged, LanceNamespaceStorageOptionsProvider(ns, list(table_id))


def _operation_parts(operation: Any):
    """(kind, schema, native fragments) of our LanceOperation or pylance's."""
    name = type(operation).__name__
    fragments = [_to_native_fragment(f) for f in getattr(operation, "fragments", [])]
    if name == "Overwrite":
        return "overwrite", to_schema(operation.new_schema), fragments
    if name == "Append":
        return "append", None, fragments
    raise _lance_cpp.LanceNotImplementedError(
        f"LanceDataset.commit: operation {name} is not supported by lance_cpp "
        "(Overwrite and Append are)")


class LanceOperation:
    """The operations ``LanceDataset.commit`` accepts (pylance's ``lance.LanceOperation``)."""

    class BaseOperation:
        pass

    @dataclass
    class Overwrite(BaseOperation):
        """Replace the dataset's schema and every fragment."""

        new_schema: pa.Schema
        fragments: Iterable[FragmentMetadata]
        initial_bases: Optional[list] = None

        def __post_init__(self):
            self.new_schema = to_schema(self.new_schema)
            self.fragments = list(self.fragments)
            if self.initial_bases:
                raise _lance_cpp.LanceNotImplementedError(
                    "Overwrite(initial_bases=...) is not supported by lance_cpp")

    @dataclass
    class Append(BaseOperation):
        """Add fragments to the dataset (read_version is required)."""

        fragments: Iterable[FragmentMetadata] = field(default_factory=list)

        def __post_init__(self):
            self.fragments = list(self.fragments)


def write_dataset(data_obj: Any, uri: Union[str, Path, LanceDataset, None] = None,
                  schema: Optional[pa.Schema] = None, mode: str = "create", *,
                  max_rows_per_file: int = 1024 * 1024, max_rows_per_group: int = 1024,
                  max_bytes_per_file: Optional[int] = None,
                  storage_options: Optional[Dict[str, str]] = None,
                  storage_options_provider: Any = None,
                  data_storage_version: Optional[str] = None,
                  use_legacy_format: Optional[bool] = None,
                  enable_v2_manifest_paths: bool = True,
                  enable_stable_row_ids: bool = False,
                  namespace_client: Any = None, namespace: Any = None,
                  table_id: Optional[List[str]] = None,
                  ignore_namespace_table_storage_options: bool = False,
                  **kwargs: Any) -> LanceDataset:
    """Writes `data_obj` as a dataset at `uri` (or the namespace table `table_id`) with
    `mode` "create", "append" or "overwrite", as pylance's ``lance.write_dataset``.

    Data: anything ``_convert.to_reader`` accepts (pyarrow, pandas, polars, duckdb, dict of
    lists, list of dicts). New datasets get file format ``data_storage_version``: "2.0",
    "2.1", "2.2" or "stable" (2.2, the default, as pylance 14); "legacy"/"0.1" and
    "next"/"2.3" raise NotImplementedError, unknown versions ValueError. Appends keep the
    dataset's own version whatever is asked (legacy datasets cannot be appended to).
    """
    ignored = {"data_cache_bytes", "max_page_bytes", "progress", "session",
               "auto_cleanup_options", "commit_message", "transaction_properties",
               "blob_pack_file_size_threshold"}
    rejected = {"commit_lock", "initial_bases", "target_bases", "target_all_bases",
                "base_store_params", "external_blob_mode", "allow_external_blob_outside_bases"}
    _check_kwargs("write_dataset", kwargs, ignored | rejected)
    _reject_unsupported("write_dataset", enable_stable_row_ids=enable_stable_row_ids,
                        **{k: v for k, v in kwargs.items() if k in rejected})
    ns = _namespace_arg(namespace_client, namespace)
    storage_options, storage_options_provider = _storage_of(uri, storage_options,
                                                            storage_options_provider)
    uri_str = _uri_of(uri)
    _check_location(uri_str, ns, table_id, "write_dataset")
    if mode not in ("create", "append", "overwrite"):
        raise ValueError(f"Invalid mode {mode}")
    version = _storage_version(data_storage_version, use_legacy_format)
    reader = to_reader(data_obj, schema)
    if mode == "append" and uri_str is not None:
        reader = _conform_to_existing(reader, uri_str, storage_options,
                                      storage_options_provider)
    recording = None
    if ns is not None:
        recording = _RecordingNamespace(ns, list(table_id),
                                        ignore_namespace_table_storage_options)
    native = _through_namespace(recording, lambda: _lance_cpp._write_dataset(
        reader, uri_str, mode, int(max_rows_per_file), int(max_rows_per_group), version,
        bool(enable_v2_manifest_paths), storage_options, storage_options_provider,
        recording, list(table_id) if table_id is not None else None))
    storage_options, storage_options_provider = _namespace_access(
        recording, ns, table_id, storage_options, storage_options_provider)
    return LanceDataset._wrap(native, storage_options, storage_options_provider)


def dataset(uri: Union[str, Path, None] = None, version: Optional[int] = None, *,
            asof: Any = None, storage_options: Optional[Dict[str, str]] = None,
            storage_options_provider: Any = None, namespace_client: Any = None,
            namespace: Any = None, table_id: Optional[List[str]] = None,
            ignore_namespace_table_storage_options: bool = False,
            **kwargs: Any) -> LanceDataset:
    """Opens the dataset at `uri` (or the namespace table `table_id`), latest or a given
    `version`, as pylance's ``lance.dataset``. Cache and block-size tuning arguments are
    accepted and ignored.

    Through a namespace, the table's storage options are merged with
    ``storage_options`` (yours first; the namespace's vended credentials win for
    credential keys) and refreshed from it; ``ignore_namespace_table_storage_options``
    uses only yours. A table whose namespace manages its versions
    (``managed_versioning``) is refused with NotImplementedError."""
    ignored = {"block_size", "index_cache_size", "metadata_cache_size_bytes",
               "index_cache_size_bytes", "session"}
    rejected = {"commit_lock", "base_store_params", "read_params", "default_scan_options"}
    _check_kwargs("dataset", kwargs, ignored | rejected)
    _reject_unsupported("dataset", **{k: v for k, v in kwargs.items() if k in rejected})
    if asof is not None and version is not None:
        raise ValueError("give either version or asof, not both")
    ds = LanceDataset(uri, version, storage_options=storage_options,
                      storage_options_provider=storage_options_provider,
                      namespace_client=_namespace_arg(namespace_client, namespace),
                      table_id=table_id,
                      ignore_namespace_table_storage_options=ignore_namespace_table_storage_options)
    # asof: the latest version committed at or before that time (checkout_version's rule).
    return ds if asof is None else ds.checkout_version(asof)


def credential_stats() -> Dict[str, Dict[str, int]]:
    """lance_cpp only: the credential refresh counters of every storage options provider
    used in this process, ``{provider_id: {"fetches": n, "waits": n, "total_wait_ms": n,
    ...}}`` (docs/credentials.md, "Observability"). Counters of datasets already closed are
    kept; nothing secret is included."""
    return dict(_lance_cpp._credential_stats())
