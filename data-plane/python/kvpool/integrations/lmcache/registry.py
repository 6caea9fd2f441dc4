"""The keys an adapter stored or found in the pool, for LMCache's ``list_l2_keys``: a pool cannot enumerate its keys,
so each adapter lists what it has seen (bounded; the oldest entries are forgotten first)."""

from __future__ import annotations

import bisect
import threading


class KeyRegistry:
    """Wire key -> (ObjectKey, size), in the order first seen. A page runs from a cursor (the sequence number of the
    last entry of the previous page), so paging is stable while keys come and go."""

    def __init__(self, capacity: int):
        if capacity <= 0:
            raise ValueError(f"max_listed_keys must be > 0, got {capacity}")
        self._capacity = capacity
        self._entries: dict = {}  # wire key -> (seq, ObjectKey, size)
        self._order: list = []    # (seq, wire key), seq increasing; entries gone since are skipped
        self._seq = 0
        self._lock = threading.Lock()

    def add(self, wire_keys: list, keys: list, sizes: list) -> None:
        with self._lock:
            for wire, key, size in zip(wire_keys, keys, sizes):
                if wire in self._entries:
                    seq, _, _ = self._entries[wire]
                    self._entries[wire] = (seq, key, size)
                    continue
                self._seq += 1
                self._entries[wire] = (self._seq, key, size)
                self._order.append((self._seq, wire))
            while len(self._entries) > self._capacity:
                self._entries.pop(next(iter(self._entries)))
            if len(self._order) > 2 * max(len(self._entries), 1024):
                self._order = [(s, w) for s, w in self._order if self._entries.get(w, (None,))[0] == s]

    def size_of(self, wire_key: str) -> int:
        with self._lock:
            entry = self._entries.get(wire_key)
            return entry[2] if entry else 0

    def drop(self, wire_keys: list) -> None:
        with self._lock:
            for wire in wire_keys:
                self._entries.pop(wire, None)

    def page(self, model_name: str | None, page_size: int, cursor: int) -> tuple:
        """Up to ``page_size`` entries ``(wire key, ObjectKey, size)`` after ``cursor`` (of ``model_name`` if given),
        and the cursor after them (None: no more entries)."""
        out = []
        with self._lock:
            i = bisect.bisect_right(self._order, (cursor, "\U0010ffff"))
            while i < len(self._order) and len(out) < page_size:
                seq, wire = self._order[i]
                i += 1
                entry = self._entries.get(wire)
                if entry is None or entry[0] != seq:
                    continue
                if model_name is None or entry[1].model_name == model_name:
                    out.append((wire, entry[1], entry[2]))
                    cursor = seq
            more = any(self._entries.get(w, (None,))[0] == s and (model_name is None or
                                                                  self._entries[w][1].model_name == model_name)
                       for s, w in self._order[i:])
        return out, (cursor if more else None)
