"""LMCache's locks on the keys a lookup found, kept as the pool's read leases until LMCache unlocks them."""

from __future__ import annotations

import threading
import time
from typing import Callable

_CHUNK = 4096  # keys per renewal exchange (GET_REPLICAS takes at most this many)


class HeldLocks:
    """Counts LMCache's locks per key and keeps every locked key's read lease alive: every ``renew_every`` seconds the
    wire keys of the locked keys are looked up again (``renew``, one GET_REPLICAS per 4096 keys), which extends the
    master's lease, so the pool neither evicts nor removes them while LMCache holds them. A lock is renewed for at most
    ``max_hold`` seconds after the key was last locked: a lock LMCache never releases does not pin a value for ever.
    Thread safe; ``renew`` runs on this object's own daemon thread and must not raise."""

    def __init__(self, renew: Callable[[list], None], renew_every: float, max_hold: float,
                 clock: Callable[[], float] = time.monotonic):
        if renew_every <= 0:
            raise ValueError(f"lock renewal interval must be > 0, got {renew_every}")
        if max_hold < 0:
            raise ValueError(f"max_lock_seconds must be >= 0, got {max_hold}")
        self._renew = renew
        self._every = renew_every
        self._max_hold = max_hold
        self._clock = clock
        self._lock = threading.Lock()
        self._held: dict = {}  # key -> [count, wire key, locked at]
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def lock(self, keys: list, wire: list) -> None:
        now = self._clock()
        with self._lock:
            for key, w in zip(keys, wire):
                entry = self._held.get(key)
                if entry is None:
                    self._held[key] = [1, w, now]
                else:
                    entry[0] += 1
                    entry[2] = now
            if self._held and self._thread is None and not self._stop.is_set():
                self._thread = threading.Thread(target=self._run, name="kvpool-l2-locks", daemon=True)
                self._thread.start()

    def unlock(self, keys: list) -> None:
        with self._lock:
            for key in keys:
                entry = self._held.get(key)
                if entry is None:
                    continue
                if entry[0] <= 1:
                    del self._held[key]
                else:
                    entry[0] -= 1

    def forget(self, keys: list) -> None:
        """Drops every lock on ``keys`` (they were deleted)."""
        with self._lock:
            for key in keys:
                self._held.pop(key, None)

    def count(self) -> int:
        with self._lock:
            return len(self._held)

    def due(self) -> list:
        """The wire keys whose leases the next renewal extends: those locked within ``max_hold``."""
        oldest = self._clock() - self._max_hold
        with self._lock:
            return [w for _, w, at in self._held.values() if at >= oldest]

    def _run(self) -> None:
        while not self._stop.wait(self._every):
            wire = self.due()
            for start in range(0, len(wire), _CHUNK):
                if self._stop.is_set():
                    return
                self._renew(wire[start:start + _CHUNK])

    def close(self) -> None:
        self._stop.set()
        thread = self._thread
        if thread is not None:
            thread.join()
