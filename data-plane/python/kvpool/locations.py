"""Replica lists this client got from the master, each with its read tokens, reused while their read lease surely
lasts, so that a get goes straight to a storage node (one exchange instead of two).

Safe because a read token names the object (key and generation) and its expiry, the master neither removes nor evicts
an object before its read lease ends, a storage node serves a READ only with a valid unexpired token for an object it
still holds, and every value's CRC32C is checked. A list is used for at most 80% of the pool's lease TTL
(``ClientConfig.lease_ttl``, ``KVPOOL_LEASE_TTL``) counted from before its lookup was sent; a stale list in any other
case (a shorter lease than configured, a failover that gave the nodes new keys, a replica moved or lost) is refused by
the node or fails its checksum, and the client asks the master again (PROTOCOL.md, "Reusing a replica list")."""

from __future__ import annotations

import threading
import time
from typing import NamedTuple

from .errors import ErrorCode


class LocationCacheStats(NamedTuple):
    """Gets served from held replica lists, lookups sent to the master, held lists a node refused."""
    hits: int
    misses: int
    stale: int


class LocationCache:
    def __init__(self, capacity: int, lease_ttl: float):
        self.capacity = max(0, int(capacity))
        self.validity = lease_ttl * 0.8
        self._entries: dict = {}  # key -> (ReplicaListResult, valid until, monotonic seconds)
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0
        self.stale = 0

    def get(self, key: str):
        if not self.capacity:
            return None
        entry = self._entries.get(key)
        if entry is None:
            self.misses += 1
            return None
        if time.monotonic() >= entry[1]:
            self._entries.pop(key, None)
            self.misses += 1
            return None
        self.hits += 1
        return entry[0]

    def put(self, key: str, result, asked_at: float) -> None:
        if not self.capacity or result.status != ErrorCode.OK or not result.replicas:
            return
        if len(self._entries) >= self.capacity:
            self._prune()
        self._entries[key] = (result, asked_at + self.validity)

    def invalidate(self, key: str, failed: bool) -> None:
        if self._entries.pop(key, None) is not None and failed:
            self.stale += 1

    def clear(self) -> None:
        """Drops every entry: this client removed keys it cannot name (REMOVE_MATCHING)."""
        self._entries.clear()

    def _prune(self) -> None:
        with self._lock:
            now = time.monotonic()
            for k in [k for k, e in list(self._entries.items()) if now >= e[1]]:
                self._entries.pop(k, None)
            over = len(self._entries) - self.capacity * 3 // 4
            for k in list(self._entries)[:max(0, over)]:
                self._entries.pop(k, None)

    def stats(self) -> LocationCacheStats:
        return LocationCacheStats(self.hits, self.misses, self.stale)
