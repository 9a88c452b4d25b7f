# SPDX-License-Identifier: Apache-2.0
"""I/O utilities: customizing how lance_cpp reaches cloud storage.

``StorageOptionsProvider`` is the interface of Lance's storage options providers:
an object that returns fresh storage options (typically temporary credentials with an
``expires_at_millis`` key) whenever the native object store needs them. Pass one as
``storage_options_provider=`` to ``lance_cpp.dataset``, ``write_dataset``,
``fragment.write_fragments``, ``LanceDataset.commit`` and the ``lance_cpp.file`` classes.

The native code calls ``fetch_storage_options()`` from its own I/O threads, taking the
GIL for each call; it fetches once per expiry (``expires_at_millis`` minus
``refresh_offset_millis``, default 60 s) however many threads need credentials, and
shares one cache between all handles whose providers have the same ``provider_id()``.
Any object with these two methods is accepted (duck typing), so providers written for
pylance work unchanged.
"""

from abc import ABC, abstractmethod
from typing import Dict, Optional

__all__ = ["StorageOptionsProvider"]


class StorageOptionsProvider(ABC):
    """Supplies storage options (e.g. vended credentials) on demand."""

    @abstractmethod
    def fetch_storage_options(self) -> Optional[Dict[str, str]]:
        """Return the current storage options.

        Include ``expires_at_millis`` (epoch milliseconds, as a string) for options that
        expire; without it they are never fetched again. ``refresh_offset_millis`` sets
        how long before expiry to refresh. Returning ``None`` counts as a failed
        refresh. Exceptions become errors of the I/O that needed the options; their
        messages must not contain secrets.
        """

    def provider_id(self) -> str:
        """A stable, human-readable identity of what the options are for.

        Handles whose providers report the same id share one object store and one
        credentials cache, so override this to make equal providers share. Must not
        contain a secret. The default is unique per provider object.
        """
        return f"{type(self).__qualname__} {{ id: {id(self):#x} }}"
