# SPDX-License-Identifier: Apache-2.0
from abc import ABC, abstractmethod
from typing import Dict, Optional

__all__ = ["StorageOptionsProvider"]

class StorageOptionsProvider(ABC):
    @abstractmethod
    def fetch_storage_options(self) -> Optional[Dict[str, str]]: ...
    def provider_id(self) -> str: ...
