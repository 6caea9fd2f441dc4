"""LMCache's L2-adapter interface, imported from LMCache where it is installed, else restated.

Restated from LMCache (github.com/LMCache/LMCache) commit ``000e8777a114b0f687cbdc8d06d075886de6895a``:
``lmcache/v1/distributed/l2_adapters/base.py`` (``L2AdapterInterface``: three event fds; store, lookup-and-lock,
unlock and load tasks; ``delete`` and ``list_l2_keys`` with their listener notice ``on_l2_keys_deleted``; thread safe,
called by the store and prefetch controllers), ``lmcache/v1/distributed/api.py`` (``ObjectKey``, and ``KeyListPage``,
``KeyEntry``, ``EncodedObjectKey`` of the key listing), ``lmcache/v1/distributed/internal_api.py`` (``L2StoreResult``); and ``Bitmap`` from
``lmcache/native_storage_ops.pyi`` at ``9b112ebb``. Only what the kvpool adapter uses, so it imports and its tests run
without torch and LMCache's native extensions. With LMCache installed the adapter derives from LMCache's own classes.
"""

from __future__ import annotations

import abc
from dataclasses import dataclass

try:  # pragma: no cover - only where LMCache is installed
    from lmcache.native_storage_ops import Bitmap
    from lmcache.v1.distributed.api import EncodedObjectKey, KeyEntry, KeyListPage, ObjectKey
    from lmcache.v1.distributed.internal_api import L2StoreResult
    from lmcache.v1.distributed.l2_adapters.base import L2AdapterInterface
    LMCACHE_INSTALLED = True
except Exception:  # noqa: BLE001 - no LMCache (or one without torch): use the restated interface
    LMCACHE_INSTALLED = False

    class Bitmap:
        """One bit per key of a task: 1 found / loaded, 0 not."""

        def __init__(self, size: int, prefix_bits: int = 0):
            self._bits = [i < prefix_bits for i in range(size)]

        def set(self, index: int) -> None:
            self._bits[index] = True

        def clear(self, index: int) -> None:
            self._bits[index] = False

        def test(self, index: int) -> bool:
            return self._bits[index]

        def popcount(self) -> int:
            return sum(self._bits)

        def count_leading_ones(self) -> int:
            n = 0
            while n < len(self._bits) and self._bits[n]:
                n += 1
            return n

        def get_indices_list(self) -> list:
            return [i for i, bit in enumerate(self._bits) if bit]

        def __repr__(self) -> str:
            return "".join("1" if bit else "0" for bit in self._bits)

    @dataclass(frozen=True)
    class ObjectKey:
        chunk_hash: bytes
        model_name: str
        kv_rank: int
        object_group_id: int = 0
        cache_salt: str = ""

    @dataclass(frozen=True)
    class EncodedObjectKey:
        """An ``ObjectKey`` in JSON-safe form: the chunk hash in hex."""
        chunk_hash_hex: str
        model_name: str
        kv_rank: int
        object_group_id: int = 0
        cache_salt: str = ""

    @dataclass(frozen=True)
    class KeyEntry:
        key: EncodedObjectKey
        size_bytes: int

    @dataclass(frozen=True)
    class KeyListPage:
        """A page of ``list_l2_keys``; ``next_page_token`` None: the listing is exhausted."""
        entries: tuple
        next_page_token: str | None

    class L2StoreResult(int):
        """``>= 0``: success, the bytes written; ``-1``: failure."""

        def __new__(cls, success: bool, bytes_transferred: int) -> "L2StoreResult":
            if bytes_transferred < 0:
                raise ValueError(f"bytes_transferred must be >= 0, got {bytes_transferred}")
            return super().__new__(cls, bytes_transferred if success else -1)

        def is_successful(self) -> bool:
            return int(self) >= 0

        def bytes_transferred(self) -> int:
            return max(int(self), 0)

    class L2AdapterInterface(abc.ABC):
        """The base class's listener hooks the adapter calls, and the methods LMCache declares abstract."""

        def __init__(self, max_capacity_bytes: int = 0) -> None:
            self._listeners: list = []
            self._max_capacity_bytes = max_capacity_bytes

        def register_listener(self, listener) -> None:
            self._listeners.append(listener)

        def _notify_keys_stored(self, keys: list, sizes: list) -> None:
            for listener in self._listeners:
                listener.on_l2_keys_stored(keys, sizes)

        def _notify_keys_accessed(self, keys: list) -> None:
            for listener in self._listeners:
                listener.on_l2_keys_accessed(keys)

        def _notify_keys_deleted(self, keys: list, sizes: list) -> None:
            for listener in self._listeners:
                listener.on_l2_keys_deleted(keys)

        @abc.abstractmethod
        def get_store_event_fd(self) -> int: ...

        @abc.abstractmethod
        def get_lookup_and_lock_event_fd(self) -> int: ...

        @abc.abstractmethod
        def get_load_event_fd(self) -> int: ...

        @abc.abstractmethod
        def submit_store_task(self, keys: list, objects: list) -> int: ...

        @abc.abstractmethod
        def pop_completed_store_tasks(self) -> dict: ...

        @abc.abstractmethod
        def submit_lookup_and_lock_task(self, keys: list) -> int: ...

        @abc.abstractmethod
        def query_lookup_and_lock_result(self, task_id: int): ...

        @abc.abstractmethod
        def submit_unlock(self, keys: list) -> None: ...

        @abc.abstractmethod
        def submit_load_task(self, keys: list, objects: list) -> int: ...

        @abc.abstractmethod
        def query_load_result(self, task_id: int): ...

        @abc.abstractmethod
        def close(self) -> None: ...


def encoded(key) -> "EncodedObjectKey":
    return EncodedObjectKey(key.chunk_hash.hex(), key.model_name, key.kv_rank, key.object_group_id, key.cache_salt)


def wire_key(key, prefix: str = "") -> str:
    """A pool key for an ``ObjectKey``, in the shape LMCache's S3 and Bigtable adapters give their objects:
    ``[PREFIX@]MODEL@KV_RANK(8 hex)@GROUP(hex)@HASH(hex)[@SALT]``."""
    base = f"{key.model_name}@{key.kv_rank:08x}@{key.object_group_id:x}@{key.chunk_hash.hex()}"
    if key.cache_salt:
        base = f"{base}@{key.cache_salt}"
    return f"{prefix}@{base}" if prefix else base
