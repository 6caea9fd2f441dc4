"""An operation's one deadline, and the growing, jittered waits between its retries: every attempt of every key of a
single or batch call, master exchanges and storage exchanges included, ends by it (each exchange's own timeout is
cut to what is left of it: MasterChannel.call, transfers._exchange)."""

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
    def until(cls, budget: float) -> "Backoff":
        """The deadline ``budget`` seconds from now."""
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
