# SPDX-License-Identifier: Apache-2.0
"""Lance data files: pylance's ``lance.file`` on the native core.

``LanceFileWriter`` writes one Lance file, ``LanceFileReader`` reads one,
``LanceFileSession`` opens many under one base path through one shared object store
(and so one credentials cache). Paths are local paths or URIs (``file://``,
``memory://``, ``s3://``). Credentials: ``storage_options`` (static), plus optionally
``storage_options_provider`` (a ``lance_cpp.io.StorageOptionsProvider``) or
``namespace_client`` + ``table_id`` (the table's vended options, refreshed with
``describe_table``), as in pylance.

New files are written in Lance file format 2.2 (``stable_version()``, as pylance 14) unless
``version`` says "2.0" or "2.1"; files of every version (legacy 0.1 to 2.2) are read.
"""

from pathlib import Path
from typing import TYPE_CHECKING, Any, Dict, List, Optional, Sequence, Tuple, Union

import pyarrow as pa

from . import _lance_cpp

if TYPE_CHECKING:
    from .io import StorageOptionsProvider
    from .namespace import LanceNamespace

__all__ = [
    "LanceFileReader",
    "LanceFileWriter",
    "LanceFileSession",
    "LanceFileMetadata",
    "ReaderResults",
    "stable_version",
]


def stable_version() -> str:
    """The file format version this build writes by default (pylance 14's "stable")."""
    return "2.2"


def _resolve_access(
    storage_options: Optional[Dict[str, str]],
    storage_options_provider: Optional["StorageOptionsProvider"],
    namespace_client: Optional["LanceNamespace"],
    table_id: Optional[List[str]],
) -> Tuple[Optional[Dict[str, str]], object]:
    """(storage_options, provider) for the native classes.

    With ``namespace_client`` and ``table_id`` (pylance's form) the given options seed
    the credentials and a LanceNamespaceStorageOptionsProvider refreshes them with
    ``describe_table`` -- no call is made here: the caller passes the options of the
    describe that located the file (without credentials in them, the first request
    fetches).
    """
    if namespace_client is None and table_id is None:
        return storage_options, storage_options_provider
    if namespace_client is None or not table_id:
        raise ValueError("namespace_client and table_id must be provided together")
    if storage_options_provider is not None:
        raise ValueError(
            "pass either storage_options_provider or namespace_client/table_id, not both"
        )
    from .namespace import LanceNamespaceStorageOptionsProvider

    provider = LanceNamespaceStorageOptionsProvider(namespace_client, list(table_id))
    return storage_options, provider


class ReaderResults:
    """Results of a read, convertible to a pyarrow Table or RecordBatchReader."""

    def __init__(self, table: pa.Table) -> None:
        self._table = table

    def to_batches(self) -> pa.RecordBatchReader:
        """The results as a pyarrow RecordBatchReader."""
        return pa.RecordBatchReader.from_batches(self._table.schema, self._table.to_batches())

    def to_table(self) -> pa.Table:
        """The results as a pyarrow Table."""
        return self._table


class LanceFileMetadata:
    """What a Lance file's footer says about it (the subset this build reports)."""

    num_rows: int
    schema: pa.Schema
    major_version: int
    minor_version: int
    version: str

    def __init__(self, num_rows: int, schema: pa.Schema, version: str) -> None:
        self.num_rows = num_rows
        self.schema = schema
        # The footer's numbers, which pylance reports: format 2.0 is stored as 0.3.
        major, minor = (0, 3) if version == "2.0" else map(int, version.split("."))
        self.major_version = major
        self.minor_version = minor
        self.version = version

    def __repr__(self) -> str:
        return (
            f"LanceFileMetadata(num_rows={self.num_rows}, "
            f"version={self.version}, schema={self.schema})"
        )


class LanceFileReader:
    """Reads one Lance data file.

    Parameters
    ----------
    path : str or Path
        Local path or URI of the file.
    storage_options : dict, optional
        Storage connection options (credentials, endpoint, region, ...).
    columns : list of str, optional
        Columns to read (default: all).
    storage_options_provider : StorageOptionsProvider, optional
        Source of refreshed storage options (vended credentials).
    namespace_client, table_id : optional
        A namespace and table whose vended options are used and refreshed.
    """

    def __init__(
        self,
        path: Union[str, Path],
        storage_options: Optional[Dict[str, str]] = None,
        columns: Optional[List[str]] = None,
        *,
        storage_options_provider: Optional["StorageOptionsProvider"] = None,
        namespace_client: Optional["LanceNamespace"] = None,
        table_id: Optional[List[str]] = None,
        _inner_reader: Any = None,
    ) -> None:
        if _inner_reader is not None:
            self._reader = _inner_reader
            return
        options, provider = _resolve_access(
            storage_options, storage_options_provider, namespace_client, table_id
        )
        self._reader = _lance_cpp._LanceFileReader(
            str(path),
            storage_options=options,
            storage_options_provider=provider,
            columns=columns,
        )

    def read_all(self, *, batch_size: int = 1024, batch_readahead: int = 16) -> ReaderResults:
        """Reads the whole file (batch_size rows per batch)."""
        return ReaderResults(self._reader.read(0, -1, batch_size))

    def read_range(
        self, start: int, num_rows: int, *, batch_size: int = 1024, batch_readahead: int = 16
    ) -> ReaderResults:
        """Reads ``num_rows`` rows starting at row ``start``."""
        return ReaderResults(self._reader.read(start, num_rows, batch_size))

    def take_rows(
        self, indices: Sequence[int], *, batch_size: int = 1024, batch_readahead: int = 16
    ) -> ReaderResults:
        """Reads the rows at ``indices`` (ascending)."""
        indices = list(indices)
        for i in range(len(indices) - 1):
            if indices[i] > indices[i + 1]:
                raise ValueError(
                    "Indices must be sorted in ascending order for file API, got "
                    f"{indices[i]} > {indices[i + 1]}"
                )
        if not indices:
            return ReaderResults(self._reader.read(0, 0, batch_size))
        first, last = indices[0], indices[-1]
        table = self._reader.read(first, last - first + 1, batch_size)
        return ReaderResults(table.take([i - first for i in indices]))

    def metadata(self) -> LanceFileMetadata:
        """Number of rows, schema and format version of the file."""
        return LanceFileMetadata(
            self._reader.num_rows(), self._reader.schema(), self._reader.version()
        )

    def num_rows(self) -> int:
        """The number of rows in the file."""
        return self._reader.num_rows()


class LanceFileWriter:
    """Writes one Lance data file; it becomes visible when ``close()`` succeeds.

    Parameters
    ----------
    path : str or Path
        Local path or URI of the file.
    schema : pyarrow.Schema, optional
        The data's schema; if omitted, the first batch's.
    data_cache_bytes : int, optional
        Bytes buffered per column before a page is written.
    version : str, optional
        File format version: "2.0", "2.1", "2.2" or "stable" (= 2.2, the default).
    storage_options, storage_options_provider, namespace_client, table_id
        As for LanceFileReader.
    max_page_bytes : int, optional
        Accepted for compatibility (pages are cut at data_cache_bytes).
    """

    def __init__(
        self,
        path: Union[str, Path],
        schema: Optional[pa.Schema] = None,
        *,
        data_cache_bytes: Optional[int] = None,
        version: Optional[str] = None,
        storage_options: Optional[Dict[str, str]] = None,
        storage_options_provider: Optional["StorageOptionsProvider"] = None,
        namespace_client: Optional["LanceNamespace"] = None,
        table_id: Optional[List[str]] = None,
        max_page_bytes: Optional[int] = None,
        _inner_writer: Any = None,
        **kwargs: Any,
    ) -> None:
        if _inner_writer is not None:
            self._writer = _inner_writer
        else:
            options, provider = _resolve_access(
                storage_options, storage_options_provider, namespace_client, table_id
            )
            self._writer = _lance_cpp._LanceFileWriter(
                str(path),
                schema,
                storage_options=options,
                storage_options_provider=provider,
                version=version,
                page_bytes=data_cache_bytes,
            )
        self.closed: bool = False
        self.size_bytes: Optional[int] = None

    def write_batch(self, batch: Union[pa.RecordBatch, pa.Table]) -> None:
        """Appends a RecordBatch or Table (or any Arrow stream) to the file."""
        if self.closed:
            raise ValueError("LanceFileWriter: write_batch after close")
        if isinstance(batch, pa.RecordBatch):
            batch = pa.Table.from_batches([batch])
        self._writer.write_batches(batch)

    def close(self) -> Optional[int]:
        """Writes the metadata and footer; returns the number of rows written."""
        if self.closed:
            return None
        self.closed = True
        num_rows, size_bytes = self._writer.finish()
        self.size_bytes = size_bytes
        return num_rows

    def __enter__(self) -> "LanceFileWriter":
        return self

    def __exit__(self, exc_type: Any, exc_val: Any, exc_tb: Any) -> None:
        if exc_type is not None and not self.closed:
            # Nothing of a failed write becomes visible.
            self.closed = True
            self._writer.abort()
            return
        self.close()


class LanceFileSession:
    """Lance files under one base path sharing one object store and credentials.

    Parameters
    ----------
    base_path : str or Path
        Local path or URI; reader and writer paths are relative to it.
    storage_options, storage_options_provider, namespace_client, table_id
        As for LanceFileReader.
    """

    def __init__(
        self,
        base_path: Union[str, Path],
        storage_options: Optional[Dict[str, str]] = None,
        namespace_client: Optional["LanceNamespace"] = None,
        table_id: Optional[List[str]] = None,
        *,
        storage_options_provider: Optional["StorageOptionsProvider"] = None,
    ) -> None:
        options, provider = _resolve_access(
            storage_options, storage_options_provider, namespace_client, table_id
        )
        self._session = _lance_cpp._LanceFileSession(
            str(base_path), storage_options=options, storage_options_provider=provider
        )

    def open_reader(self, path: str, columns: Optional[List[str]] = None) -> LanceFileReader:
        """A reader of ``path`` (relative to the base path)."""
        return LanceFileReader(None, _inner_reader=self._session.open_reader(path, columns))

    def open_writer(
        self,
        path: str,
        *,
        schema: Optional[pa.Schema] = None,
        data_cache_bytes: Optional[int] = None,
        version: Optional[str] = None,
        keep_original_array: Optional[bool] = None,
        max_page_bytes: Optional[int] = None,
    ) -> LanceFileWriter:
        """A writer of ``path`` (relative to the base path)."""
        inner = self._session.open_writer(
            path, schema, version=version, page_bytes=data_cache_bytes
        )
        return LanceFileWriter(None, _inner_writer=inner)

    def contains(self, path: str) -> bool:
        """True if a file exists at ``path`` (relative to the base path)."""
        return self._session.contains(path)

    def list(self, path: Optional[str] = None) -> List[str]:
        """Every file below ``path`` (default: the base), relative to the base path."""
        return self._session.list(path)
