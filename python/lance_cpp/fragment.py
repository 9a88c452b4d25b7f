# SPDX-License-Identifier: Apache-2.0
"""Distributed writes: ``write_fragments`` on workers, ``LanceDataset.commit`` on the
driver (pylance's ``lance.fragment``). FragmentMetadata travels as pylance's JSON, so
fragments written by pylance commit with lance_cpp and the other way round."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, List, Optional

from . import _lance_cpp
from ._args import (_check_blob_mode, _check_kwargs, _conform_to_existing,
                    _namespace_provider, _reject_unsupported, _storage_of, _storage_version,
                    _uri_of)
from ._convert import to_reader

__all__ = ["DataFile", "DeletionFile", "FragmentMetadata", "FragmentSession", "LanceFragment",
           "write_fragments"]


def __getattr__(name: str) -> Any:
    # LanceFragment lives with LanceDataset (it reads through it); pylance exposes it here.
    if name == "LanceFragment":
        from .dataset import LanceFragment

        return LanceFragment
    raise AttributeError(name)


@dataclass
class DataFile:
    """One data file of a fragment (pylance's ``lance.fragment.DataFile``)."""

    path: str
    fields: List[int] = field(default_factory=list)
    column_indices: List[int] = field(default_factory=list)
    file_major_version: int = 2
    file_minor_version: int = 0
    file_size_bytes: Optional[int] = None
    base_id: Optional[int] = None


@dataclass
class DeletionFile:
    """A fragment's deletion vector (pylance's ``lance.fragment.DeletionFile``)."""

    read_version: int
    id: int
    file_type: str
    num_deleted_rows: Optional[int] = None
    base_id: Optional[int] = None


class FragmentMetadata:
    """What a manifest records about one fragment; ``to_json()`` (a dict) and
    ``from_json(str)`` use pylance's shape."""

    def __init__(self, native: Any):
        self._native = native
        self._json = json.loads(native.to_json())

    @classmethod
    def _from_native(cls, native: Any) -> "FragmentMetadata":
        return cls(native)

    @staticmethod
    def from_json(json_data: str) -> "FragmentMetadata":
        if isinstance(json_data, dict):
            json_data = json.dumps(json_data)
        return FragmentMetadata(_lance_cpp._FragmentMetadata.from_json(json_data))

    def to_json(self) -> Dict[str, Any]:
        """This fragment as a JSON-serializable dict, as pylance's ``to_json``."""
        return json.loads(json.dumps(self._json))

    @property
    def id(self) -> int:
        return self._json["id"]

    @property
    def physical_rows(self) -> int:
        return self._json["physical_rows"]

    @property
    def num_deletions(self) -> int:
        return self.physical_rows - self.num_rows

    @property
    def num_rows(self) -> int:
        return self._native.num_rows

    @property
    def files(self) -> List[DataFile]:
        return [DataFile(**f) for f in self._json["files"]]

    def data_files(self) -> List[DataFile]:
        return self.files

    @property
    def deletion_file(self) -> Optional[DeletionFile]:
        d = self._json.get("deletion_file")
        return DeletionFile(**d) if d else None

    def __eq__(self, other: Any) -> bool:
        if not hasattr(other, "to_json"):
            return NotImplemented
        return self.to_json() == other.to_json()

    def __repr__(self) -> str:
        return (f"FragmentMetadata(id={self.id}, files={self.files}, "
                f"physical_rows={self.physical_rows}, deletion_file={self.deletion_file})")


class FragmentSession:
    """Repeated takes from one fragment (pylance's ``lance.fragment.FragmentSession``)."""

    def __init__(self, fragment: Any, columns: Optional[List[str]] = None,
                 with_row_address: Optional[bool] = None):
        self._fragment = fragment
        self._columns = columns
        self._with_row_address = bool(with_row_address)

    def take(self, indices: Any) -> Any:
        """Rows at `indices`, positions among the fragment's live rows."""
        table = self._fragment.take(indices, self._columns,
                                    with_row_id=self._with_row_address)
        if self._with_row_address:
            # Row ids are row addresses in lance_cpp (no stable row ids).
            names = [("_rowaddr" if n == "_rowid" else n) for n in table.column_names]
            table = table.rename_columns(names)
        return table


class _FragmentReads:
    """LanceFragment methods pylance has beyond lance_cpp's own (LanceFragment is defined
    in dataset.py; lance_cpp/__init__.py adds the ones it lacks)."""

    def to_pandas(self, columns: Any = None, filter: Optional[str] = None,
                  limit: Optional[int] = None, offset: Optional[int] = None,
                  batch_size: Optional[int] = None, with_row_id: bool = False,
                  with_row_address: bool = False, blob_mode: str = "lazy",
                  order_by: Any = None, **kwargs: Any) -> Any:
        """This fragment as a pandas DataFrame; other keyword arguments go to
        ``pyarrow.Table.to_pandas``, as in pylance."""
        _check_blob_mode(blob_mode)
        scan: Dict[str, Any] = {}
        if with_row_address:
            scan["with_row_address"] = with_row_address
        if order_by is not None:
            scan["order_by"] = order_by
        table = self.scanner(columns=columns, filter=filter, limit=limit, offset=offset,
                             with_row_id=with_row_id, batch_size=batch_size,
                             **scan).to_table()
        return table.to_pandas(**kwargs)

    @property
    def partition_expression(self) -> Any:
        raise NotImplementedError("Not implemented yet for LanceFragment")

    @property
    def physical_schema(self) -> Any:
        raise NotImplementedError("Not implemented yet for LanceFragment")

    def validate(self) -> None:
        """Checks this fragment as Lance's ``LanceFragment.validate`` does (its data
        files hold its rows, its deletion file decodes); raises naming what is wrong."""
        _lance_cpp._validate(self._ds._native, self.fragment_id)

    def open_session(self, columns: Any = None,
                     with_row_address: Optional[bool] = None) -> FragmentSession:
        return FragmentSession(self, None if columns is None else list(columns),
                               with_row_address)


def _to_native_fragment(fragment: Any) -> Any:
    """The native fragment of ours, of pylance's FragmentMetadata, or of a JSON str/dict."""
    if isinstance(fragment, FragmentMetadata):
        return fragment._native
    if isinstance(fragment, str):
        return _lance_cpp._FragmentMetadata.from_json(fragment)
    if isinstance(fragment, dict):
        return _lance_cpp._FragmentMetadata.from_json(json.dumps(fragment))
    if hasattr(fragment, "to_json"):
        data = fragment.to_json()
        if not isinstance(data, str):
            data = json.dumps(data)
        return _lance_cpp._FragmentMetadata.from_json(data)
    raise TypeError(f"expected a FragmentMetadata, got {type(fragment).__name__}")


def write_fragments(data: Any, dataset_uri: Any, schema: Any = None, *,
                    return_transaction: bool = False, mode: str = "append",
                    max_rows_per_file: int = 1024 * 1024,
                    max_rows_per_group: Optional[int] = 1024,
                    max_bytes_per_file: Optional[int] = None,
                    data_storage_version: Optional[str] = None,
                    use_legacy_format: Optional[bool] = None,
                    storage_options: Optional[Dict[str, str]] = None,
                    storage_options_provider: Any = None,
                    enable_stable_row_ids: bool = False,
                    **kwargs: Any) -> List[FragmentMetadata]:
    """Writes `data` into new data files of the dataset at `dataset_uri` without
    committing; commit the returned fragments with ``LanceDataset.commit``."""
    _check_kwargs("write_fragments", kwargs, _WRITE_FRAGMENTS_KWARGS)
    _reject_unsupported("write_fragments", return_transaction=return_transaction,
                        enable_stable_row_ids=enable_stable_row_ids,
                        **{k: v for k, v in kwargs.items()
                           if k not in _IGNORED_KWARGS | {"namespace_client", "table_id"}})
    storage_options_provider = _namespace_provider(
        "write_fragments", kwargs.get("namespace_client"), kwargs.get("table_id"),
        storage_options_provider)
    if mode not in ("create", "append", "overwrite"):
        raise ValueError(f"Invalid mode {mode}")
    storage_options, storage_options_provider = _storage_of(dataset_uri, storage_options,
                                                            storage_options_provider)
    uri = _uri_of(dataset_uri)
    if uri is None:
        raise ValueError("write_fragments needs a dataset_uri")
    version = _storage_version(data_storage_version, use_legacy_format)
    reader = to_reader(data, schema)
    if mode == "append":
        reader = _conform_to_existing(reader, uri, storage_options, storage_options_provider)
    natives = _lance_cpp._write_fragments(
        reader, uri, mode, int(max_rows_per_file),
        int(max_rows_per_group if max_rows_per_group is not None else 1024), version,
        storage_options, storage_options_provider)
    return [FragmentMetadata(n) for n in natives]


# pylance's other keyword arguments: those that do not change what is written are
# accepted and ignored; the others raise NotImplementedError when set.
_IGNORED_KWARGS = {"data_cache_bytes", "max_page_bytes", "progress", "session"}
_WRITE_FRAGMENTS_KWARGS = _IGNORED_KWARGS | {
    "target_bases", "target_all_bases", "initial_bases", "base_store_params",
    "external_blob_mode", "allow_external_blob_outside_bases", "namespace_client",
    "table_id"}
