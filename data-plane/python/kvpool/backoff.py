"""Growing, jittered waits between retries, bounded by an operation's deadline."""

from __future__ import annotations

import random
import time

_FIRST = 0.02
_MAX = 1.0


class Backoff:
    def __init__(self, deadline: float):
        self.deadline = deadline
        self._next = _FIRST

    @classmethod
    def within(cls, budget: float) -> "Backoff":
        return cls(time.monotonic() + budget)

    def left(self) -> float:
        return self.deadline - time.monotonic()

    def expired(self) -> bool:
        return self.left() <= 0

    def pause(self) -> bool:
        """Sleeps the next wait (half fixed, half random); False when the deadline has passed instead."""
        left = self.left()
        if left <= 0:
            return False
        wait = min(left, self._next / 2 + random.uniform(0, self._next / 2))
        self._next = min(_MAX, self._next * 2)
        time.sleep(wait)
        return not self.expired()
