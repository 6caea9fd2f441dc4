"""The get protocol, once, for one key or many, within the operation's one deadline: keys whose replica lists this
client holds are read straight from a storage node; the others are looked up in one GET_REPLICAS (per 4096 keys);
every node's reads go at once; a held list a node refuses is looked up again (one request for all of them); keys a
recovering new leader has not found yet are asked again only after the others were read, so their leases do not tick
away; a read that fails tries the key's other replicas, then asks the master again, within the client's retries.
Every key ends with its own result: its value's length, or the exception that says why not (ObjectNotFound when it
is not stored, InvalidKey, BufferTooSmall, a failure of the pool)."""

from __future__ import annotations

import random
import time
from typing import Sequence

from .backoff import Backoff
from .codec import MAX_BATCH, key_problem
from .errors import (BufferTooSmall, ConnectionFailed, ErrorCode, InvalidKey, KvPoolError, KvPoolTimeout,
                     ObjectNotFound, remote_error)
from .memory import Regions
from .messages import Opcode, ReplicaListResult, decode_replica_list_reply, encode_keys
from .transfers import ReadPlan, read_replicas


class Destinations:
    """Where value i goes, once its size is known."""

    def fits(self, index: int, size: int) -> bool:
        """Whether a value of ``size`` bytes fits (a held list's size that does not is checked with the master)."""
        return True

    def of(self, index: int, size: int) -> Regions:
        """The regions value ``index`` of ``size`` bytes is read into (its first ``size`` bytes); may raise
        BufferTooSmall."""
        raise NotImplementedError


class NewBuffers(Destinations):
    """Each value into a new buffer of its size (``buffers[i]``): a bytearray, or what ``make(size)`` returns (any
    writable buffer)."""

    def __init__(self, count: int, make=bytearray):
        self.buffers: list = [None] * count
        self.make = make

    def of(self, index: int, size: int) -> Regions:
        self.buffers[index] = self.make(size)
        return Regions.of_buffer(self.buffers[index], writable=True)


class IntoRegions(Destinations):
    """Value i into the caller's ``dsts[i]``, from its start."""

    def __init__(self, keys: Sequence[str], dsts: Sequence[Regions]):
        self.keys = keys
        self.dsts = dsts

    def fits(self, index: int, size: int) -> bool:
        return size <= self.dsts[index].size

    def of(self, index: int, size: int) -> Regions:
        dst = self.dsts[index]
        if size > dst.size:
            raise BufferTooSmall(f"value of key '{self.keys[index]}' has {size} bytes but the buffer has {dst.size};"
                                 f" pass a buffer of at least {size} bytes")
        return dst


class GetOperation:
    def __init__(self, config, master, storage, locations, pool_id: str):
        self.config = config
        self.master = master
        self.storage = storage
        self.locations = locations
        self.pool_id = pool_id
        self.deadline = Backoff.until(config.operation_timeout)
        # nodes whose connection failed or timed out lately, in this operation or another of the client's: read from
        # last, so a frozen node costs one exchange's timeout, not one per key or get
        self.failed_nodes = storage.failed

    def _pick(self, replicas: list):
        """A replica on a node that did not fail lately when there is one."""
        answering = [r for r in replicas if not self.failed_nodes.read_last(r.node_id)]
        return random.choice(answering or replicas)

    def read(self, keys: Sequence[str], destinations: Destinations) -> list:
        """Reads ``keys``; one entry per key: the value's length, or the exception that says why not."""
        n = len(keys)
        out: list = [None] * n
        lists: list = [None] * n
        dsts: list = [None] * n
        sized: list = [-1] * n  # the size each destination was made for
        state = (keys, lists, dsts, sized, out, destinations)
        cached, unknown = [], []
        for i, key in enumerate(keys):
            problem = key_problem(key)
            if problem is not None:
                out[i] = InvalidKey(problem)
                continue
            r = self.locations.get(key)
            if r is not None and destinations.fits(i, r.size):
                lists[i] = r
                cached.append(i)
            else:
                if r is not None:
                    self.locations.invalidate(key, False)  # the key may have been replaced: ask the master
                unknown.append(i)
        asked = time.monotonic()
        recovering = self._lookup_all(keys, unknown, lists, out)
        # held lists a node refuses (or whose bytes do not verify) are looked up again, all in one request
        stale = self._read_all(state, cached, None)
        failed = self._read_all(state, unknown, asked)
        for i in stale:
            self.locations.invalidate(keys[i], True)
        if stale:
            asked = time.monotonic()
            recovering += self._lookup_all(keys, stale, lists, out)
            failed += self._read_all(state, stale, asked)
        if recovering:
            asked = time.monotonic()
            for i in recovering:
                try:
                    lists[i] = self.lookup(keys[i])
                except KvPoolError as e:
                    out[i] = e
            failed += self._read_all(state, recovering, asked)
        for i in failed:
            try:
                out[i] = self._read_with_retries(state, i).size
            except KvPoolError as e:
                out[i] = e
        for i in range(n):
            if out[i] is None:
                out[i] = self._not_read(keys[i], lists[i])
        return out

    def _not_read(self, key: str, r: ReplicaListResult | None) -> KvPoolError:
        if r is not None and r.status not in (ErrorCode.OK, ErrorCode.NOT_FOUND, ErrorCode.RECOVERING):
            return remote_error(r.status, f"lookup of key '{key}'")
        return ObjectNotFound(f"key '{key}' is not stored in pool '{self.pool_id}'", ErrorCode.NOT_FOUND)

    def _destination(self, state, i: int, size: int) -> Regions:
        _, _, dsts, sized, _, destinations = state
        if sized[i] != size:
            dsts[i] = destinations.of(i, size)  # a stale list's replacement may have another size
            sized[i] = size
        return dsts[i]

    def _read_all(self, state, indexes: list, asked: float | None) -> list:
        """Reads the values at ``indexes`` whose replica lists are found, every node's reads at once; remembers the
        lists read successfully when ``asked`` (when their lookup was sent) is given. Returns the indexes whose read
        failed."""
        keys, lists, _, _, out, _ = state
        reads, where = [], []
        for i in indexes:
            r = lists[i]
            if out[i] is not None or r is None or r.status != ErrorCode.OK or not r.replicas:
                continue
            try:
                dst = self._destination(state, i, r.size)
            except (KvPoolError, ValueError) as e:
                out[i] = e
                continue
            reads.append(ReadPlan(keys[i], r, self._pick(r.replicas), dst))
            where.append(i)
        failed = []
        for start in range(0, len(reads), MAX_BATCH):
            chunk = reads[start:start + MAX_BATCH]
            failures = read_replicas(self.storage, self.config.timeout, chunk, self.deadline.deadline)
            unreachable = set()
            for i, plan, failure in zip(where[start:start + MAX_BATCH], chunk, failures):
                if failure is not None:
                    failed.append(i)
                    if isinstance(failure, (ConnectionFailed, KvPoolTimeout)):
                        unreachable.add(plan.replica.node_id)
                    continue
                self.failed_nodes.answered(plan.replica.node_id)
                out[i] = lists[i].size
                if asked is not None:
                    self.locations.put(keys[i], lists[i], asked)
            for node in unreachable:  # once per node: its reads shared one exchange
                self.failed_nodes.failed(node)
        return failed

    def _lookup_all(self, keys: Sequence[str], indexes: list, lists: list, out: list) -> list:
        """GET_REPLICAS for the keys at ``indexes``, their lists into ``lists`` (a failed exchange into ``out``);
        returns the indexes a recovering new leader answered RECOVERING (not found yet), to be asked again."""
        recovering = []
        for start in range(0, len(indexes), MAX_BATCH):
            chunk = indexes[start:start + MAX_BATCH]
            try:
                results = self._replicas([keys[i] for i in chunk])
            except KvPoolError as e:
                for i in chunk:
                    out[i] = e
                continue
            for i, r in zip(chunk, results):
                lists[i] = r
                if r.status == ErrorCode.RECOVERING:
                    recovering.append(i)
        return recovering

    def lookup_many(self, keys: Sequence[str]) -> list:
        """Per key its replica list, or the exception that says why there is none (InvalidKey, ObjectNotFound, a
        failure of the pool): one GET_REPLICAS per 4096 keys, keys a recovering new leader has not found yet asked
        again within the deadline."""
        out: list = [None] * len(keys)
        lists: list = [None] * len(keys)
        valid = []
        for i, key in enumerate(keys):
            problem = key_problem(key)
            if problem is None:
                valid.append(i)
            else:
                out[i] = InvalidKey(problem)
        for i in self._lookup_all(keys, valid, lists, out):
            try:
                lists[i] = self.lookup(keys[i])
            except KvPoolError as e:
                out[i] = e
        for i in valid:
            if out[i] is None:
                out[i] = lists[i] if lists[i].status == ErrorCode.OK else self._not_read(keys[i], lists[i])
        return out

    def lookup(self, key: str) -> ReplicaListResult:
        """The replica list of a key, waiting out a new leader's recovery within the deadline; not found is final."""
        while True:
            r = self._replicas([key])[0]
            if r.status == ErrorCode.OK:
                return r
            if r.status == ErrorCode.RECOVERING and self.deadline.pause():
                continue
            if r.status in (ErrorCode.NOT_FOUND, ErrorCode.RECOVERING):
                raise ObjectNotFound(f"key '{key}' is not stored in pool '{self.pool_id}'"
                                     + (" (the master was still recovering)" if r.status == ErrorCode.RECOVERING
                                        else ""), ErrorCode.NOT_FOUND)
            raise remote_error(r.status, f"lookup of key '{key}'")

    def _read_with_retries(self, state, i: int) -> ReplicaListResult:
        """Reads one replica after another; when all fail (tokens expired, replicas moved) asks the master again,
        within the client's retries and the deadline. When the retries are spent and the nodes still answer that they
        do not hold what the master lists (a move or a repair the master has not heard of yet), it goes on asking after
        a pause until the deadline: the master's own not found ends it at once. Returns the replica list the value was
        read with."""
        keys, lists, _, _, _, _ = state
        key, r = keys[i], lists[i]
        attempt = 0
        while True:
            if attempt > 0:
                r = lists[i] = self.lookup(key)
            last = self._read_any(key, r, self._destination(state, i, r.size))
            if last is None:
                return r
            if attempt < self.config.retries:
                again = not self.deadline.expired()
            else:
                again = isinstance(last, ObjectNotFound) and self.deadline.pause()
            if not again:
                raise last
            attempt += 1

    def _read_any(self, key: str, r: ReplicaListResult, dst: Regions) -> KvPoolError | None:
        """Tries the replicas in random order, those on nodes that failed lately last; None on success, else the last
        failure."""
        replicas = random.sample(r.replicas, len(r.replicas))
        replicas.sort(key=lambda replica: self.failed_nodes.read_last(replica.node_id))
        last: KvPoolError = ObjectNotFound(f"key '{key}' has no readable replica", ErrorCode.NOT_FOUND)
        for replica in replicas:
            failure = read_replicas(self.storage, self.config.timeout, [ReadPlan(key, r, replica, dst)],
                                    self.deadline.deadline)[0]
            if failure is None:
                self.failed_nodes.answered(replica.node_id)
                return None
            if isinstance(failure, (ConnectionFailed, KvPoolTimeout)):
                self.failed_nodes.failed(replica.node_id)
            last = failure
        return last

    def _replicas(self, keys: list) -> list:
        out = self.master.call(Opcode.GET_REPLICAS, encode_keys(keys), decode_replica_list_reply, self.deadline)
        if len(out) != len(keys):
            raise KvPoolError(f"master answered GET_REPLICAS with {len(out)} results for {len(keys)} keys")
        return out
