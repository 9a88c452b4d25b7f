# SPDX-License-Identifier: Apache-2.0
"""Distributed reads and writes on Ray with lance-ray's names (``lance_ray`` 0.5.0):
``read_lance``, ``write_lance``, ``LanceFragmentWriter`` and ``LanceFragmentCommitter``, on
lance_cpp.

Credentials on workers: a task never carries credentials the namespace vended. It carries
the namespace's spec (``namespace_impl`` + ``namespace_properties``) and the table id; each
worker process connects to the namespace once and keeps, per table, one handle (reads) or
one storage options provider (writes) in a process-wide cache. So a worker makes one
``describe_table`` per credential lifetime however many tasks it runs, and refreshes before
expiry by itself. The driver declares or describes the table once and commits once.

Ray is an optional extra (``pip install lance-cpp[ray]``); importing this module needs it.
"""

from __future__ import annotations

import json
import threading
from typing import Any, Callable, Dict, Iterable, Iterator, List, Optional, Tuple

import pyarrow as pa

try:
    import ray
    from ray.data.block import BlockMetadata
    from ray.data.datasource import Datasink, Datasource, ReadTask
except ImportError as e:  # pragma: no cover - exercised only without the extra
    raise ImportError("lance_cpp.ray needs Ray: pip install 'lance-cpp[ray]'") from e

import lance_cpp
from lance_cpp import namespace as _ns

__all__ = ["read_lance", "write_lance", "LanceFragmentWriter", "LanceFragmentCommitter",
           "LanceDatasource", "LanceDatasink"]

# ---- the process-wide caches of a worker (and of the driver) ------------------------------

_LOCK = threading.Lock()
_NAMESPACES: Dict[Tuple[str, Tuple[Tuple[str, str], ...]], Any] = {}
_PROVIDERS: Dict[Tuple[Any, ...], Any] = {}
_DATASETS: Dict[Tuple[Any, ...], Any] = {}
# The driver's: the storage options of its declare / describe answer per (table, location),
# which seed the commit's provider (no second call for what that answer carried). Kept in
# the process, never on the sink, which travels to the workers.
_DRIVER_OPTIONS: Dict[Tuple[Any, ...], Dict[str, str]] = {}


# lance-ray arguments with no lance_cpp counterpart yet, and their defaults: accepted at
# the default, refused otherwise (never silently ignored).
_UNSUPPORTED_DEFAULTS: Dict[str, Any] = {
    "base_store_params": None, "initial_bases": None, "target_bases": None,
    "external_blob_mode": "reference", "allow_external_blob_outside_bases": False,
    "enable_stable_row_ids": False, "stream": False, "batch_size": None, "resume_rows": 0,
    "with_metadata": False, "use_legacy_format": False, "retry_params": None,
}


def _refuse_unsupported(where: str, given: Dict[str, Any]) -> None:
    for name, value in given.items():
        if name not in _UNSUPPORTED_DEFAULTS:
            raise TypeError(f"{where}() got an unexpected keyword argument {name!r}")
        if value is not None and value != _UNSUPPORTED_DEFAULTS[name]:
            raise NotImplementedError(
                f"{where}: the lance-ray argument {name}={value!r} is not supported by "
                f"lance_cpp.ray")


def _check_rows_per_file(min_rows_per_file: int, max_rows_per_file: int) -> None:
    if min_rows_per_file is None or min_rows_per_file <= 0:
        raise ValueError("min_rows_per_file must be positive")
    if max_rows_per_file is None or max_rows_per_file <= 0:
        raise ValueError("max_rows_per_file must be positive")
    if min_rows_per_file > max_rows_per_file:
        raise ValueError(f"min_rows_per_file ({min_rows_per_file}) must not exceed "
                         f"max_rows_per_file ({max_rows_per_file})")


def _props_key(properties: Optional[Dict[str, str]]) -> Tuple[Tuple[str, str], ...]:
    return tuple(sorted((str(k), str(v)) for k, v in (properties or {}).items()))


def _connect(impl: str, properties: Optional[Dict[str, str]]) -> Any:
    """The namespace of (impl, properties), connected once per process."""
    key = (impl, _props_key(properties))
    with _LOCK:
        ns = _NAMESPACES.get(key)
        if ns is None:
            props = dict(properties or {})
            if impl == "dir":
                ns = _ns.DirectoryNamespace(**props)
            elif impl == "rest":
                ns = _ns.RestNamespace(**props)
            else:  # a class path or another registered implementation
                import lance_namespace
                ns = lance_namespace.connect(impl, props)
            _NAMESPACES[key] = ns
        return ns


class _RecordingProvider(_ns.LanceNamespaceStorageOptionsProvider):
    """The namespace's provider for one table in one process, remembering the options of
    its latest fetch: the next task of this process starts from them (a fresh seed), so
    it makes no call of its own while they are valid."""

    def __init__(self, namespace: Any, table_id: List[str],
                 user_options: Dict[str, str]):
        super().__init__(namespace, table_id)
        self._user_options = dict(user_options)
        self._latest: Optional[Dict[str, str]] = None
        self._latest_lock = threading.Lock()

    def fetch_storage_options(self) -> Dict[str, str]:
        options = super().fetch_storage_options()
        with self._latest_lock:
            self._latest = dict(options or {})
        return options

    def options(self) -> Dict[str, str]:
        """The caller's options merged with the latest fetched ones (the table's endpoint,
        region and credentials): one describe_table the first time in this process."""
        with self._latest_lock:
            latest = self._latest
        if latest is None:
            self.fetch_storage_options()
            with self._latest_lock:
                latest = self._latest
        return {**self._user_options, **(latest or {})}


def _provider(spec: "_TableSpec") -> "_RecordingProvider":
    """One provider per (namespace, table) per process, whose credentials source is shared
    by every fragment this process writes: one describe per credential lifetime."""
    key = spec.cache_key()
    with _LOCK:
        provider = _PROVIDERS.get(key)
    if provider is None:
        provider = _RecordingProvider(spec.namespace(), list(spec.table_id),
                                      spec.storage_options)
        with _LOCK:
            provider = _PROVIDERS.setdefault(key, provider)
    return provider


def _cached_dataset(spec: "_TableSpec", version: int) -> Any:
    """The table at `version`, opened once per process (one describe per credential
    lifetime for a namespace table; refreshed by its provider when they expire)."""
    key = (spec.cache_key(), version)
    with _LOCK:
        ds = _DATASETS.get(key)
    if ds is None:
        ds = spec.open(version)
        with _LOCK:
            ds = _DATASETS.setdefault(key, ds)
    return ds


class _TableSpec:
    """Where a table is and how to reach it -- never a vended credential: the caller's own
    storage options, or a namespace's spec and the table id."""

    def __init__(self, uri: Optional[str], table_id: Optional[List[str]],
                 storage_options: Optional[Dict[str, str]], namespace_impl: Optional[str],
                 namespace_properties: Optional[Dict[str, str]]):
        has_ns = namespace_impl is not None or table_id is not None
        if has_ns and (namespace_impl is None or not table_id):
            raise ValueError("namespace_impl and table_id go together")
        if has_ns == (uri is not None):
            raise ValueError("give either uri or namespace_impl + table_id")
        self.uri = str(uri) if uri is not None else None
        self.table_id = list(table_id) if table_id is not None else None
        self.storage_options = dict(storage_options or {})
        self.namespace_impl = namespace_impl
        self.namespace_properties = dict(namespace_properties or {})

    @property
    def via_namespace(self) -> bool:
        return self.namespace_impl is not None

    def cache_key(self) -> Tuple[Any, ...]:
        if self.via_namespace:
            return ("ns", self.namespace_impl, _props_key(self.namespace_properties),
                    tuple(self.table_id), _props_key(self.storage_options))
        return ("uri", self.uri, _props_key(self.storage_options))

    def namespace(self) -> Any:
        return _connect(self.namespace_impl, self.namespace_properties)

    def provider(self) -> Any:
        return _provider(self)

    def open(self, version: Optional[int] = None,
             dataset_options: Optional[Dict[str, Any]] = None) -> Any:
        kwargs = dict(dataset_options or {})
        if version is not None:
            kwargs["version"] = version
        if self.via_namespace:
            return lance_cpp.dataset(namespace_client=self.namespace(), table_id=self.table_id,
                                     storage_options=self.storage_options or None, **kwargs)
        return lance_cpp.dataset(self.uri, storage_options=self.storage_options or None,
                                 **kwargs)


# ---- reading --------------------------------------------------------------------------------


class LanceDatasource(Datasource):
    """A Ray Data source over one version of a Lance table: one read task per group of
    fragments, projection and filter pushed into each fragment scan."""

    def __init__(self, spec: _TableSpec, columns: Optional[List[str]] = None,
                 filter: Optional[str] = None, fragment_ids: Optional[List[int]] = None,
                 scanner_options: Optional[Dict[str, Any]] = None,
                 dataset_options: Optional[Dict[str, Any]] = None):
        self._spec = spec
        self._columns = list(columns) if columns is not None else None
        self._filter = filter
        self._scanner_options = dict(scanner_options or {})
        # The driver opens the table once (one describe through a namespace) to fix the
        # version and list the fragments; only ids, counts and the version travel on.
        # dataset_options (e.g. version) apply here: the workers open that version.
        ds = spec.open(dataset_options=dataset_options)
        self._version = ds.version
        fragments = ds.get_fragments()
        if fragment_ids is not None:
            wanted = set(fragment_ids)
            fragments = [f for f in fragments if f.fragment_id in wanted]
        self._fragments = [(f.fragment_id, f.count_rows()) for f in fragments]
        self._schema = ds.schema if self._columns is None else pa.schema(
            [ds.schema.field(c) for c in self._columns])
        with _LOCK:  # the workers of this process read the same version
            _DATASETS[(spec.cache_key(), self._version)] = ds

    def estimate_inmemory_data_size(self) -> Optional[int]:
        return None

    def get_read_tasks(self, parallelism: int, per_task_row_limit: Optional[int] = None,
                       data_context: Any = None) -> List[ReadTask]:
        if not self._fragments:
            return []
        n = max(1, min(parallelism, len(self._fragments)))
        groups: List[List[Tuple[int, int]]] = [[] for _ in range(n)]
        for i, fragment in enumerate(self._fragments):
            groups[i % n].append(fragment)
        tasks = []
        for group in groups:
            ids = [fid for fid, _ in group]
            rows = sum(count for _, count in group) if self._filter is None else None
            metadata = BlockMetadata(num_rows=rows, size_bytes=None, input_files=None,
                                     exec_stats=None)
            tasks.append(ReadTask(self._reader(ids), metadata, schema=self._schema,
                                  per_task_row_limit=per_task_row_limit))
        return tasks

    def _reader(self, fragment_ids: List[int]):
        spec, version, columns, filt = self._spec, self._version, self._columns, self._filter
        options = self._scanner_options

        def read() -> Iterator[pa.Table]:
            ds = _cached_dataset(spec, version)
            scanner = ds.scanner(columns=columns, filter=filt,
                                 fragments=[ds.get_fragment(i) for i in fragment_ids],
                                 **options)
            for batch in scanner.to_batches():
                yield pa.Table.from_batches([batch])

        return read


def read_lance(uri: Optional[str] = None, *, table_id: Optional[List[str]] = None,
               columns: Optional[List[str]] = None, filter: Optional[str] = None,
               storage_options: Optional[Dict[str, str]] = None,
               scanner_options: Optional[Dict[str, Any]] = None,
               fragment_ids: Optional[List[int]] = None,
               namespace_impl: Optional[str] = None,
               namespace_properties: Optional[Dict[str, str]] = None,
               ray_remote_args: Optional[Dict[str, Any]] = None,
               concurrency: Optional[int] = None,
               override_num_blocks: Optional[int] = None,
               dataset_options: Optional[Dict[str, Any]] = None,
               **lance_ray_only: Any) -> "ray.data.Dataset":
    """A Ray Dataset of the table at `uri` or `table_id` of the namespace (lance-ray's
    ``read_lance``): its latest version (or ``dataset_options["version"]``), `columns`
    and `filter` pushed down. lance-ray's ``base_store_params`` and ``with_metadata`` are
    accepted at their defaults only."""
    _refuse_unsupported("read_lance", lance_ray_only)
    spec = _TableSpec(uri, table_id, storage_options, namespace_impl, namespace_properties)
    source = LanceDatasource(spec, columns=columns, filter=filter, fragment_ids=fragment_ids,
                             scanner_options=scanner_options, dataset_options=dataset_options)
    return ray.data.read_datasource(source, ray_remote_args=ray_remote_args or {},
                                    concurrency=concurrency,
                                    override_num_blocks=override_num_blocks)


# ---- writing --------------------------------------------------------------------------------


def _write_fragments(spec: _TableSpec, location: str, table: pa.Table,
                     schema: Optional[pa.Schema], max_rows_per_file: int,
                     data_storage_version: Optional[str], mode: str = "append",
                     **file_limits: Any) -> List[str]:
    """Writes `table` as fragments of `location` (nothing committed); their JSON. `mode`:
    append takes the table's schema and field ids, create / overwrite the data's.
    `file_limits`: max_bytes_per_file, max_rows_per_group (None: the default)."""
    kwargs: Dict[str, Any] = {"max_rows_per_file": max_rows_per_file, "mode": mode}
    kwargs.update({k: v for k, v in file_limits.items() if v is not None})
    if data_storage_version is not None:
        kwargs["data_storage_version"] = data_storage_version
    options = spec.storage_options
    if spec.via_namespace:
        provider = spec.provider()
        options = provider.options()
        kwargs["storage_options_provider"] = provider
    fragments = lance_cpp.fragment.write_fragments(
        table if schema is None else table.cast(schema), location, schema,
        storage_options=options or None, **kwargs)
    return [json.dumps(f.to_json()) for f in fragments]


class _Target:
    """What the driver learns before the workers write: the location and, for appends,
    the version the fragments are planned against. It travels to the workers with the
    sink, so it holds no credential: the namespace's answer is used here and dropped."""

    def __init__(self, spec: _TableSpec, mode: str):
        if mode not in ("create", "append", "overwrite"):
            raise ValueError(f"mode must be create, append or overwrite, not {mode!r}")
        self.mode = mode
        self.read_version: Optional[int] = None
        options = dict(spec.storage_options)
        if spec.via_namespace:
            ns = spec.namespace()
            if mode == "create":  # one declare_table, as Lance's write in create mode
                response = ns.declare_table(_ns.DeclareTableRequest(id=spec.table_id))
            else:  # one describe_table
                response = ns.describe_table(_ns.DescribeTableRequest(id=spec.table_id))
            self.location = response.location
            options.update(response.storage_options or {})
            with _LOCK:
                _DRIVER_OPTIONS[(spec.cache_key(), self.location)] = dict(
                    response.storage_options or {})
        else:
            self.location = spec.uri
        if mode == "overwrite" or (mode == "create" and spec.via_namespace):
            return
        try:
            existing = lance_cpp.dataset(self.location, storage_options=options or None)
        except (OSError, ValueError):
            existing = None
        if mode == "append":
            if existing is None:
                self.mode = "create"  # append to a missing table creates it, as Lance
            else:
                self.read_version = existing.version
        elif existing is not None:
            raise FileExistsError(f"Dataset already exists at {self.location}; "
                                  f"use mode append or overwrite")


def _commit(spec: _TableSpec, target: _Target, schema: Optional[pa.Schema],
            fragment_jsons: List[str]) -> Any:
    fragments = [lance_cpp.fragment.FragmentMetadata.from_json(j) for j in fragment_jsons]
    if target.mode == "append":
        operation = lance_cpp.LanceOperation.Append(fragments)
    else:
        if schema is None:
            raise ValueError("cannot create a table without a schema (no data was written)")
        operation = lance_cpp.LanceOperation.Overwrite(schema, fragments)
    kwargs: Dict[str, Any] = {}
    options = dict(spec.storage_options)
    if spec.via_namespace:
        kwargs["storage_options_provider"] = spec.provider()
        with _LOCK:
            options.update(_DRIVER_OPTIONS.get((spec.cache_key(), target.location), {}))
    return lance_cpp.LanceDataset.commit(target.location, operation,
                                         read_version=target.read_version,
                                         storage_options=options or None, **kwargs)


def _commit_returns(spec: _TableSpec, target: _Target, schema: Optional[pa.Schema],
                    write_result: Any) -> None:
    """The driver's one commit of what the write tasks returned: (fragment JSONs, schema
    bytes) each. Nothing written: no commit (as lance-ray), unless the caller's schema
    asks for an empty table (create) or an emptied one (overwrite)."""
    jsons: List[str] = []
    for returned_jsons, schema_bytes in write_result.write_returns:
        jsons.extend(returned_jsons)
        if schema is None and schema_bytes is not None:
            schema = pa.ipc.read_schema(pa.py_buffer(schema_bytes))
    if not jsons and (target.mode == "append" or schema is None):
        return
    _commit(spec, target, schema, jsons)


class LanceDatasink(Datasink):
    """Workers write fragments; the driver commits them all at once when every write
    task succeeded (a failed job commits nothing)."""

    def __init__(self, spec: _TableSpec, mode: str = "create",
                 schema: Optional[pa.Schema] = None, min_rows_per_file: int = 1024 * 1024,
                 max_rows_per_file: int = 64 * 1024 * 1024,
                 data_storage_version: Optional[str] = None):
        _check_rows_per_file(min_rows_per_file, max_rows_per_file)
        self._spec = spec
        self._mode = mode
        self._schema = schema
        self._min_rows_per_file = min_rows_per_file
        self._max_rows_per_file = max_rows_per_file
        self._data_storage_version = data_storage_version
        self._target: Optional[_Target] = None

    def get_name(self) -> str:
        return "Lance"

    @property
    def supports_distributed_writes(self) -> bool:
        return True

    @property
    def min_rows_per_write(self) -> int:
        # Ray gathers blocks until a write task has this many rows (the fewer, larger
        # data files lance-ray's min_rows_per_file asks for).
        return self._min_rows_per_file

    def on_write_start(self, schema: Optional[pa.Schema] = None) -> None:
        # Ray's `schema` here is a guess from the plan (for a map_batches it may be the
        # input's), so it is not used: each task writes its blocks' own schema (or the
        # caller's) and returns it with the fragments.
        self._target = _Target(self._spec, self._mode)

    def write(self, blocks: Iterable[Any], ctx: Any) -> Tuple[List[str], Optional[bytes]]:
        tables = [pa.table(b) if not isinstance(b, pa.Table) else b for b in blocks]
        tables = [t for t in tables if t.num_rows > 0]
        if not tables:
            return [], None
        table = pa.concat_tables(tables, promote_options="default")
        jsons = _write_fragments(self._spec, self._target.location, table, self._schema,
                                 self._max_rows_per_file, self._data_storage_version,
                                 mode=self._target.mode)
        # The schema goes back with the fragments: a dataset whose schema Ray knows only
        # once it has run (map_batches) gives the driver none in on_write_start.
        return jsons, (self._schema or table.schema).serialize().to_pybytes()

    def on_write_complete(self, write_result: Any) -> None:
        _commit_returns(self._spec, self._target, self._schema, write_result)


def write_lance(ds: "ray.data.Dataset", uri: Optional[str] = None, *,
                table_id: Optional[List[str]] = None, schema: Optional[pa.Schema] = None,
                mode: str = "create", min_rows_per_file: int = 1024 * 1024,
                max_rows_per_file: int = 64 * 1024 * 1024,
                data_storage_version: Optional[str] = None,
                storage_options: Optional[Dict[str, str]] = None,
                namespace_impl: Optional[str] = None,
                namespace_properties: Optional[Dict[str, str]] = None,
                ray_remote_args: Optional[Dict[str, Any]] = None,
                concurrency: Optional[int] = None, **lance_ray_only: Any) -> None:
    """Writes the Ray Dataset `ds` to the table (lance-ray's ``write_lance``): create
    declares it through the namespace (one declare), append / overwrite describe it (one
    describe); workers write fragments of at least `min_rows_per_file` rows each (Ray
    gathers blocks up to that) and at most `max_rows_per_file`; the driver commits once.
    lance-ray's other arguments (``enable_stable_row_ids``, ``base_store_params``,
    ``initial_bases``, ``target_bases``, blob and streaming options) are accepted at
    their defaults only."""
    _refuse_unsupported("write_lance", lance_ray_only)
    spec = _TableSpec(uri, table_id, storage_options, namespace_impl, namespace_properties)
    sink = LanceDatasink(spec, mode=mode, schema=schema, min_rows_per_file=min_rows_per_file,
                         max_rows_per_file=max_rows_per_file,
                         data_storage_version=data_storage_version)
    ds.write_datasink(sink, ray_remote_args=ray_remote_args or {}, concurrency=concurrency)


class LanceFragmentWriter:
    """A ``map_batches`` callable: writes each batch as fragments (nothing committed) and
    returns a table of their JSON (column ``fragment``) and the schema (column
    ``schema``, serialized), for a LanceFragmentCommitter."""

    def __init__(self, uri: Optional[str] = None, *, table_id: Optional[List[str]] = None,
                 transform: Optional[Callable[[pa.Table], Any]] = None,
                 schema: Optional[pa.Schema] = None, max_rows_per_file: int = 1024 * 1024,
                 max_bytes_per_file: Optional[int] = None,
                 max_rows_per_group: Optional[int] = None,
                 data_storage_version: Optional[str] = None,
                 storage_options: Optional[Dict[str, str]] = None,
                 namespace_impl: Optional[str] = None,
                 namespace_properties: Optional[Dict[str, str]] = None,
                 location: Optional[str] = None, **lance_ray_only: Any):
        _refuse_unsupported("LanceFragmentWriter", lance_ray_only)
        self._spec = _TableSpec(uri, table_id, storage_options, namespace_impl,
                                namespace_properties)
        # lance-ray's transform: applied to each batch first; a table or a generator of
        # tables (each written as its own fragments).
        self._transform = transform
        self._schema = schema
        self._max_rows_per_file = max_rows_per_file
        self._file_limits = {"max_bytes_per_file": max_bytes_per_file,
                             "max_rows_per_group": max_rows_per_group}
        self._data_storage_version = data_storage_version
        # Through a namespace the location is the declared / described one (the driver
        # passes it); on its own the writer describes the table once per process.
        self._location = location

    def _where(self) -> str:
        if self._location is None:
            if self._spec.via_namespace:
                response = self._spec.namespace().describe_table(
                    _ns.DescribeTableRequest(id=self._spec.table_id))
                self._location = response.location
            else:
                self._location = self._spec.uri
        return self._location

    def __call__(self, batch: Any) -> pa.Table:
        table = batch if isinstance(batch, pa.Table) else pa.table(batch)
        tables = [table]
        if self._transform is not None:
            out = self._transform(table)
            tables = [out] if isinstance(out, pa.Table) else list(out)
        tables = [t if isinstance(t, pa.Table) else pa.table(t) for t in tables]
        jsons = []
        for t in tables:
            if t.num_rows:
                jsons += _write_fragments(self._spec, self._where(), t, self._schema,
                                          self._max_rows_per_file,
                                          self._data_storage_version, **self._file_limits)
        schema = self._schema or (tables[0].schema if tables else table.schema)
        return pa.table({"fragment": pa.array(jsons, pa.string()),
                         "schema": pa.array([schema.serialize().to_pybytes()] * len(jsons),
                                            pa.binary())})


class LanceFragmentCommitter(Datasink):
    """The Datasink after a LanceFragmentWriter: gathers the fragments and commits them
    once, on the driver, when every task succeeded."""

    def __init__(self, uri: Optional[str] = None, *, table_id: Optional[List[str]] = None,
                 mode: str = "create", schema: Optional[pa.Schema] = None,
                 storage_options: Optional[Dict[str, str]] = None,
                 namespace_impl: Optional[str] = None,
                 namespace_properties: Optional[Dict[str, str]] = None,
                 **lance_ray_only: Any):
        _refuse_unsupported("LanceFragmentCommitter", lance_ray_only)
        self._spec = _TableSpec(uri, table_id, storage_options, namespace_impl,
                                namespace_properties)
        self._mode = mode
        self._schema = schema
        self._target: Optional[_Target] = None

    def get_name(self) -> str:
        return "LanceCommit"

    def on_write_start(self, schema: Optional[pa.Schema] = None) -> None:
        self._target = _Target(self._spec, self._mode)

    def write(self, blocks: Iterable[Any], ctx: Any) -> Tuple[List[str], Optional[bytes]]:
        jsons: List[str] = []
        schema_bytes: Optional[bytes] = None
        for block in blocks:
            table = block if isinstance(block, pa.Table) else pa.table(block)
            jsons.extend(table.column("fragment").to_pylist())
            if schema_bytes is None and table.num_rows > 0:
                schema_bytes = table.column("schema")[0].as_py()
        return jsons, schema_bytes

    def on_write_complete(self, write_result: Any) -> None:
        _commit_returns(self._spec, self._target, self._schema, write_result)
