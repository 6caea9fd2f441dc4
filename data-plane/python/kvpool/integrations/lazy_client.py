"""A pool client connected on first use, so an engine starts (and computes everything itself) while its pool is
unreachable. After a failed connect, calls fail at once with the same error for ``retry_after`` seconds before the
next attempt: a scheduler asking once per request does not wait a connect timeout for each."""

from __future__ import annotations

import threading
import time
from typing import Callable

from ..client import KvPoolClient
from ..errors import ConnectionFailed, KvPoolError


class LazyClient:
    def __init__(self, connect: Callable[[], KvPoolClient], retry_after: float = 5.0):
        self._connect = connect
        self._retry_after = retry_after
        self._client: KvPoolClient | None = None
        self._failure: BaseException | None = None
        self._failed_at = 0.0
        self._lock = threading.Lock()

    def get(self) -> KvPoolClient:
        """The client; raises what the connect raised (a KvPoolError; ValueError for bad settings) when it fails."""
        with self._lock:
            if self._client is None:
                since = time.monotonic() - self._failed_at
                if self._failure is not None and since < self._retry_after:
                    raise ConnectionFailed(f"the pool was unreachable {since:.1f} s ago, next try in"
                                           f" {self._retry_after - since:.1f} s: {self._failure}")
                try:
                    self._client = self._connect()
                    self._failure = None
                except KvPoolError as e:  # bad settings (ValueError, TypeError) are not remembered: they raise
                    self._failure, self._failed_at = e, time.monotonic()
                    raise
            return self._client

    def close(self) -> None:
        with self._lock:
            if self._client is not None:
                self._client.close()
                self._client = None
