# SPDX-License-Identifier: Apache-2.0
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Union

import pyarrow as pa

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

def stable_version() -> str: ...

class ReaderResults:
    def __init__(self, table: pa.Table) -> None: ...
    def to_batches(self) -> pa.RecordBatchReader: ...
    def to_table(self) -> pa.Table: ...

class LanceFileMetadata:
    num_rows: int
    schema: pa.Schema
    major_version: int
    minor_version: int
    version: str
    def __init__(self, num_rows: int, schema: pa.Schema, version: str) -> None: ...

class LanceFileReader:
    def __init__(
        self,
        path: Union[str, Path],
        storage_options: Optional[Dict[str, str]] = None,
        columns: Optional[List[str]] = None,
        *,
        storage_options_provider: Optional[StorageOptionsProvider] = None,
        namespace_client: Optional[LanceNamespace] = None,
        table_id: Optional[List[str]] = None,
        _inner_reader: Any = None,
    ) -> None: ...
    def read_all(self, *, batch_size: int = 1024, batch_readahead: int = 16) -> ReaderResults: ...
    def read_range(
        self, start: int, num_rows: int, *, batch_size: int = 1024, batch_readahead: int = 16
    ) -> ReaderResults: ...
    def take_rows(
        self, indices: Sequence[int], *, batch_size: int = 1024, batch_readahead: int = 16
    ) -> ReaderResults: ...
    def metadata(self) -> LanceFileMetadata: ...
    def num_rows(self) -> int: ...

class LanceFileWriter:
    closed: bool
    size_bytes: Optional[int]
    def __init__(
        self,
        path: Union[str, Path],
        schema: Optional[pa.Schema] = None,
        *,
        data_cache_bytes: Optional[int] = None,
        version: Optional[str] = None,
        storage_options: Optional[Dict[str, str]] = None,
        storage_options_provider: Optional[StorageOptionsProvider] = None,
        namespace_client: Optional[LanceNamespace] = None,
        table_id: Optional[List[str]] = None,
        max_page_bytes: Optional[int] = None,
        _inner_writer: Any = None,
        **kwargs: Any,
    ) -> None: ...
    def write_batch(self, batch: Union[pa.RecordBatch, pa.Table]) -> None: ...
    def close(self) -> Optional[int]: ...
    def __enter__(self) -> "LanceFileWriter": ...
    def __exit__(self, exc_type: Any, exc_val: Any, exc_tb: Any) -> None: ...

class LanceFileSession:
    def __init__(
        self,
        base_path: Union[str, Path],
        storage_options: Optional[Dict[str, str]] = None,
        namespace_client: Optional[LanceNamespace] = None,
        table_id: Optional[List[str]] = None,
        *,
        storage_options_provider: Optional[StorageOptionsProvider] = None,
    ) -> None: ...
    def open_reader(self, path: str, columns: Optional[List[str]] = None) -> LanceFileReader: ...
    def open_writer(
        self,
        path: str,
        *,
        schema: Optional[pa.Schema] = None,
        data_cache_bytes: Optional[int] = None,
        version: Optional[str] = None,
        keep_original_array: Optional[bool] = None,
        max_page_bytes: Optional[int] = None,
    ) -> LanceFileWriter: ...
    def contains(self, path: str) -> bool: ...
    def list(self, path: Optional[str] = None) -> List[str]: ...
