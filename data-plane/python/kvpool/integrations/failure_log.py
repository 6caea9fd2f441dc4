"""Warnings about a pool's failures, at most one line per interval: while a pool is down every engine call fails, and
a line per call would bury the log."""

from __future__ import annotations

import logging
import threading
import time


class FailureLog:
    def __init__(self, logger: logging.Logger, interval: float = 10.0):
        self._logger = logger
        self._interval = interval
        self._lock = threading.Lock()
        self._last = float("-inf")
        self._held = 0

    def warning(self, message: str, *args) -> None:
        """Logs ``message`` unless another went out within the interval; the next line counts those held back."""
        with self._lock:
            now = time.monotonic()
            if now - self._last < self._interval:
                self._held += 1
                return
            held, self._held, self._last = self._held, 0, now
        if held:
            message += " (%d similar failures not logged in the last %.0f s)"
            args += (held, self._interval)
        self._logger.warning(message, *args)
