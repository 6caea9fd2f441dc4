"""Who committed a client's puts (PROTOCOL.md, "Commits by storage nodes"): their storage nodes, which sent the
receipts to the master before answering the writes (protocol 2.2: one master exchange per put), or the client's own
PUT_END (a peer of protocol 2.1, a replica that failed, a grant close to its expiry)."""

from __future__ import annotations

import threading
from typing import NamedTuple


class PutCommitStats(NamedTuple):
    """Puts committed by their storage nodes (no PUT_END) and puts a PUT_END committed."""
    by_nodes: int
    by_put_end: int


class PutCommits:
    """Counts one client's committed puts by who committed them; shared by the client's threads."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._by_nodes = 0
        self._by_put_end = 0

    def by_nodes(self, puts: int) -> None:
        with self._lock:
            self._by_nodes += puts

    def by_put_end(self, puts: int) -> None:
        with self._lock:
            self._by_put_end += puts

    def stats(self) -> PutCommitStats:
        with self._lock:
            return PutCommitStats(self._by_nodes, self._by_put_end)
