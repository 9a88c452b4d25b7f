# SPDX-License-Identifier: Apache-2.0
"""lance_cpp: pylance's API (``import lance``) on lance-cpp, a native C++ implementation
of the Lance table and file formats.

    import lance_cpp as lance
    ds = lance.write_dataset({"id": [1, 2, 3]}, "/tmp/t.lance")
    lance.dataset("/tmp/t.lance").to_table(filter="id > 1")

Data goes in as anything Arrow-shaped (pyarrow, pandas, polars, duckdb, dicts, lists of
dicts) and comes out as pyarrow objects, handed over zero-copy through the Arrow C Stream
interface. Errors are subclasses of ``LanceError`` and of the builtin exception pylance
code expects (a missing dataset is both ``FileNotFoundError`` and ``ValueError``).
"""

from . import _lance_cpp
from ._lance_cpp import (
    LanceAlreadyExistsError,
    LanceError,
    LanceInvalidInputError,
    LanceIOError,
    LanceNotFoundError,
    LanceNotImplementedError,
    LancePermissionError,
)
from . import io, fragment
from .dataset import LanceDataset, LanceOperation, LanceScanner, dataset, write_dataset
from .dataset import credential_stats
from .dataset import LanceFragment
from .fragment import FragmentMetadata, _FragmentReads
from ._reads import DataStatistics, FieldStatistics, _add_read_methods
from . import file, namespace
from .namespace import LanceNamespaceStorageOptionsProvider

__version__ = "0.1.0"

# LanceScanner and LanceFragment (dataset.py) get the pylance methods they lack from
# _reads.py / fragment.py; their own definitions win.
_add_read_methods(LanceScanner, LanceFragment, _FragmentReads)

__all__ = [
    "DataStatistics",
    "FieldStatistics",
    "FragmentMetadata",
    "LanceAlreadyExistsError",
    "LanceDataset",
    "LanceError",
    "LanceFragment",
    "LanceIOError",
    "LanceInvalidInputError",
    "LanceNamespaceStorageOptionsProvider",
    "LanceNotFoundError",
    "LanceNotImplementedError",
    "LanceOperation",
    "LancePermissionError",
    "LanceScanner",
    "credential_stats",
    "dataset",
    "write_dataset",
]
