"""Pooled connections: to the leading master (followed across failovers) and to storage nodes."""

from __future__ import annotations

import collections
import threading
import time
from typing import Callable, TypeVar

from .auth import PoolKey
from .backoff import Backoff
from .codec import BodyReader, BodyWriter
from .connection import Connection, Endpoint
from .errors import (ConnectionFailed, ErrorCode, HandshakeRefused, KvPoolError, KvPoolTimeout, ProtocolError,
                     RemoteError)
from .messages import HandshakePrefix, Opcode, ServerState

T = TypeVar("T")

MAX_IDLE = 16
MAX_IDLE_SECONDS = 60.0  # servers close idle connections after 300 s; pooled ones are dropped well before


class _DeadlinePassed(Exception):
    """The operation's deadline passed between attempts (raised as the last attempt's failure)."""


class _Idle:
    """A stack of idle connections (most recently used first), safe to share between threads."""

    def __init__(self) -> None:
        self._items: collections.deque = collections.deque()

    def take(self) -> Connection | None:
        while True:
            try:
                c = self._items.pop()
            except IndexError:
                return None
            if c.usable and time.monotonic() - c.idle_since < MAX_IDLE_SECONDS:
                return c
            c.close()

    def give(self, c: Connection) -> None:
        if not c.usable or len(self._items) >= MAX_IDLE:
            c.close()
            return
        c.idle_since = time.monotonic()
        self._items.append(c)

    def close_all(self) -> None:
        while True:
            try:
                self._items.pop().close()
            except IndexError:
                return


class MasterChannel:
    """Connections to the leading master. A call borrows one (opening it when none is idle). When the leader is
    lost (a closed connection, a standby's NOT_LEADER, a garbled reply) the channel moves through the configured
    endpoints, going straight to the leader a standby names, with jittered backoff, within the operation's
    deadline. Every master request of the protocol is safe to repeat (PUT_START carries the put's id, PUT_END is
    idempotent per generation)."""

    def __init__(self, endpoints: list, local: HandshakePrefix, timeout: float, operation_timeout: float,
                 key: PoolKey | None = None, tls=None):
        self.endpoints = list(endpoints)
        self.local = local
        self.key = key
        self.tls = tls
        self.timeout = timeout
        self.operation_timeout = operation_timeout
        self._idle = _Idle()
        self._current = 0  # index of the endpoint that led last
        self._leader_hint: Endpoint | None = None
        self._lock = threading.Lock()
        self.last_handshake = None

    def _open(self, deadline: float) -> Connection:
        hint = self._leader_hint
        endpoint = hint if hint is not None else self.endpoints[self._current % len(self.endpoints)]
        c = Connection.open(endpoint, self.local, self._budget(deadline), self.key, self.tls)
        hello = c.peer
        if hello.state == ServerState.STANDBY and hello.leader:
            # a standby names the leader: go there at once instead of trying the other endpoints
            c.close()
            try:
                leader = Endpoint.parse(hello.leader)
            except ValueError:
                raise ProtocolError(f"standby {endpoint} named an unusable leader endpoint '{hello.leader}'") from None
            c = Connection.open(leader, self.local, self._budget(deadline), self.key, self.tls)
            self._leader_hint = leader
        self.last_handshake = c.peer
        return c

    def _budget(self, deadline: float) -> float:
        left = deadline - time.monotonic()
        if left <= 0:
            raise _DeadlinePassed()
        return min(self.timeout, left)

    def _borrow(self, deadline: float) -> Connection:
        c = self._idle.take()
        return c if c is not None else self._open(deadline)

    def _fail_over(self) -> None:
        """This endpoint does not lead (or is gone): drop pooled connections and try the next one."""
        self._idle.close_all()
        with self._lock:
            if self._leader_hint is not None:
                self._leader_hint = None
            else:
                self._current = (self._current + 1) % len(self.endpoints)

    def call(self, opcode: int, body: BodyWriter | None, decode: Callable[[BodyReader], T],
             deadline: Backoff | float | None = None, unanswered: Callable[[], None] | None = None) -> T:
        """One request/reply with the leader, following it across failovers until ``deadline`` (the operation's
        :class:`Backoff`, or a monotonic time; default: the operation timeout from now); each attempt's exchange is
        cut to what is left of it. Refusals other than NOT_LEADER are final, as are version, pool and authentication
        refusals. When the deadline passes, the last failure is raised (with its type). ``unanswered`` runs whenever
        an attempt's request went out and no reply came back (the connection failed or timed out): that master may
        have applied it, which a repeated REMOVE, answered NOT_FOUND, must not hide."""
        if isinstance(deadline, Backoff):
            backoff = deadline
        else:
            backoff = Backoff(deadline if deadline is not None else time.monotonic() + self.operation_timeout)
        misses = 0
        last: KvPoolError | None = None
        while True:
            if backoff.expired():
                raise self._gave_up(opcode, last)
            c = None
            sent = False
            # an attempt the operation's deadline cuts short says less about the master than the one before it
            cut_short = backoff.deadline - time.monotonic() < self.timeout
            try:
                c = self._borrow(backoff.deadline)
                c.arm_until(min(time.monotonic() + self.timeout, backoff.deadline))
                request = c.send(opcode, body)
                sent = True
                result = decode(c.receive(opcode, request))
                self._idle.give(c)
                return result
            except _DeadlinePassed:
                raise self._gave_up(opcode, last) from None
            except RemoteError as e:
                if c is not None:
                    self._idle.give(c)
                if e.code != ErrorCode.NOT_LEADER:
                    raise
                last = e
            except HandshakeRefused as e:
                if c is not None:
                    c.close()
                if not (e.code is not None and e.code.retryable):
                    raise
                last = e
            except (ConnectionFailed, KvPoolTimeout, ProtocolError) as e:
                if c is not None:
                    c.close()
                if sent and unanswered is not None:
                    unanswered()
                if not (isinstance(e, KvPoolTimeout) and cut_short and last is not None):
                    last = e
            self._fail_over()
            misses += 1
            if backoff.expired() or (misses >= len(self.endpoints) and not backoff.pause()):
                raise self._gave_up(opcode, last)

    def _gave_up(self, opcode: int, last: KvPoolError | None) -> KvPoolError:
        if last is None:
            return KvPoolTimeout(f"{Opcode(opcode).name}: the deadline passed before a master answered")
        if isinstance(last, HandshakeRefused):
            return last
        return type(last)(f"{Opcode(opcode).name}: no leading master among {', '.join(map(str, self.endpoints))}"
                          f" answered within the deadline; last error: {last}", last.code)

    def close(self) -> None:
        self._idle.close_all()


class FailedNodes:
    """Storage nodes (by node id) whose connection failed or timed out lately, shared by every operation of a client
    (as in the Java client), for ``memory`` seconds after the failure (``ClientConfig.failed_node_memory``) or until
    the node answers a read or a write: a get reads their replicas last (the failed node only when no other replica is
    left), and a PUT_START asks the master to place the put elsewhere. A frozen or partitioned node then costs a client
    one exchange timeout, not one for every get or put that meets it until the master declares the node dead.
    ``failures`` counts the failures by node."""

    MAX_RECENT = 16  # the most nodes a PUT_START avoids (PROTOCOL.md)

    def __init__(self, memory: float = 10.0, clock: Callable[[], float] = time.monotonic):
        self._failed_at: dict = {}
        self._memory = memory
        self._clock = clock
        self.failures: collections.Counter = collections.Counter()

    def failed(self, node_id: str) -> None:
        """Records that an exchange with node ``node_id`` failed or timed out now."""
        self._failed_at[node_id] = self._clock()
        self.failures[node_id] += 1

    def answered(self, node_id: str) -> None:
        """Records that node ``node_id`` answered a read or a write: it is forgotten."""
        if self._failed_at:
            self._failed_at.pop(node_id, None)

    def read_last(self, node_id: str) -> bool:
        """Whether a read should go to node ``node_id`` only when no other replica is left."""
        if not self._failed_at:
            return False
        at = self._failed_at.get(node_id)
        if at is None:
            return False
        if self._clock() - at < self._memory:
            return True
        if self._failed_at.get(node_id) == at:  # forgotten, unless it failed again meanwhile
            self._failed_at.pop(node_id, None)
        return False

    def recent(self) -> list:
        """The nodes remembered now, the latest failure first, at most ``MAX_RECENT``."""
        if not self._failed_at:
            return []
        now = self._clock()
        live = [(at, node) for node, at in list(self._failed_at.items()) if now - at < self._memory]
        return [node for _, node in sorted(live, reverse=True)[:self.MAX_RECENT]]


class StorageConnections:
    """Pooled connections to storage nodes, by endpoint string (as the master names them)."""

    def __init__(self, local: HandshakePrefix, timeout: float, key: PoolKey | None = None, tls=None,
                 batch_requests: bool = True, failed_node_memory: float = 10.0):
        self.local = local
        self.timeout = timeout
        self.key = key
        self.tls = tls
        self.batch_requests = batch_requests
        self.failed = FailedNodes(failed_node_memory)
        self._idle: dict = {}
        self._lock = threading.Lock()

    def batches(self, c: Connection) -> bool:
        """Whether several reads or writes may go to this node as one READ_BATCH / WRITE_BATCH: the client allows it
        and both sides speak protocol 2.1."""
        return self.batch_requests and c.peer is not None and c.agreed_minor >= 1

    def borrow(self, endpoint: str, timeout: float | None = None) -> Connection:
        """An idle connection to ``endpoint``, or a new one opened (handshake included) within ``timeout`` seconds
        (default: the exchange timeout)."""
        idle = self._idle.get(endpoint)
        if idle is not None:
            c = idle.take()
            if c is not None:
                return c
        try:
            parsed = Endpoint.parse(endpoint)
        except ValueError:
            raise ProtocolError(f"the master named an unusable storage endpoint '{endpoint}'") from None
        return Connection.open(parsed, self.local, self.timeout if timeout is None else timeout, self.key, self.tls)

    def release(self, endpoint: str, c: Connection) -> None:
        idle = self._idle.get(endpoint)
        if idle is None:
            with self._lock:
                idle = self._idle.setdefault(endpoint, _Idle())
        idle.give(c)

    def close(self) -> None:
        with self._lock:
            for idle in self._idle.values():
                idle.close_all()
            self._idle.clear()
