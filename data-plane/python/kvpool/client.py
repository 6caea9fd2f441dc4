"""The kvpool client: metadata with the leading master, value bytes straight between the caller's buffers and
storage nodes. Thread-safe: connections are pooled, so threads sharing a client do not wait for each other.

A put of a key that already exists keeps the stored value (keys of a KV cache name their content); remove the key
first to replace it. A put succeeds once at least one replica is written and verified; the master copies the
missing ones. With protocol 2.2 the storage nodes commit a put whose replicas were all written, so it costs one
master exchange (PUT_START); the client sends PUT_END only when a node could not.
"""

from __future__ import annotations

import random
import time
from typing import Sequence

from .backoff import Backoff
from .checksum import crc32c_of_regions
from .codec import MAX_BATCH, MAX_VALUE_BYTES, key_problem
from .commits import PutCommits, PutCommitStats
from .config import ClientConfig
from .errors import (BufferTooSmall, ConnectionFailed, ErrorCode, KvPoolError, KvPoolTimeout, NoSpace,
                     ObjectNotFound, RemoteError, remote_error, retryable)
from .memory import Regions
from .messages import (HandshakePrefix, Opcode, PoolStats, PutEndItem, PutStartItem, ReplicaListResult, Role,
                       decode_count, decode_put_start_reply, decode_replica_list_reply, decode_status_list,
                       encode_keys, encode_pin, encode_put_end, encode_put_refs, encode_put_start)
from .locations import LocationCache, LocationCacheStats
from .pools import MasterChannel, StorageConnections
from .transfers import PutPlan, ReadPlan, read_replicas, write_replicas

_MAX_AVOIDED = 16


def _chunks(items: Sequence, size: int = MAX_BATCH):
    for i in range(0, len(items), size):
        yield items[i:i + size]


def _check_key(key: str) -> None:
    problem = key_problem(key)
    if problem is not None:
        raise ValueError(problem)


def _check_value(key: str, value: Regions, replicas: int) -> None:
    if value.size == 0:
        raise ValueError(f"value of key '{key}' is empty; values have 1 byte or more")
    if value.size > MAX_VALUE_BYTES:
        raise NoSpace(f"value of key '{key}' has {value.size} bytes; the limit is {MAX_VALUE_BYTES} bytes per value")
    if not 1 <= replicas <= 255:
        raise ValueError(f"replicas must be within 1..255, got {replicas}")


class KvPoolClient:
    """Client of one pool. ``KvPoolClient(ClientConfig(...))`` or ``KvPoolClient.from_env()``; connects to the
    leader at once, so an unreachable or incompatible pool fails here with a typed error."""

    def __init__(self, config: ClientConfig):
        self.config = config
        major, minor = config.protocol
        local = HandshakePrefix(config.release, major, minor, Role.CLIENT, config.pool_id, config.client_id)
        tls = config.tls_context()
        self._master = MasterChannel(config.masters, local, config.timeout, config.operation_timeout, config.pool_key,
                                     tls)
        self.stats()  # STATS, not PING: a standby refuses it, so this finds the leader
        hello = self._master.last_handshake
        self.server_release = hello.prefix.release if hello else ""
        self.server_protocol = (hello.prefix.major, hello.prefix.minor) if hello else (0, 0)
        self.pool_id = hello.prefix.pool_id if hello else config.pool_id
        # storage nodes belong to the master's pool: insist on it from here on
        to_storage = local._replace(pool_id=self.pool_id)
        self._storage = StorageConnections(to_storage, config.timeout, config.pool_key, tls, config.batch_requests)
        self._locations = LocationCache(config.location_cache_entries, config.lease_ttl)
        self._commits = PutCommits()

    @classmethod
    def from_env(cls, **overrides) -> "KvPoolClient":
        return cls(ClientConfig.from_env(**overrides))

    def __enter__(self) -> "KvPoolClient":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        self._master.close()
        self._storage.close()

    # ---- master RPCs ----

    def _put_start(self, items: list) -> list:
        out = self._master.call(Opcode.PUT_START, encode_put_start(items), decode_put_start_reply)
        return self._expect(out, len(items), "PUT_START")

    def _put_end(self, items: list) -> list:
        out = self._master.call(Opcode.PUT_END, encode_put_end(items), decode_status_list)
        return self._expect(out, len(items), "PUT_END")

    def _end_puts(self, items: list, backoff: Backoff) -> list:
        """PUT_END, asking again for the entries a new leader answers RECOVERING (the nodes holding their replicas
        have not re-registered yet) until the deadline; the other statuses are final."""
        out = self._put_end(items)
        pending = [i for i, s in enumerate(out) if s == ErrorCode.RECOVERING]
        while pending and backoff.pause():
            for i, s in zip(pending, self._put_end([items[i] for i in pending])):
                out[i] = s
            pending = [i for i in pending if out[i] == ErrorCode.RECOVERING]
        return out

    def _revoke_quietly(self, refs: list) -> None:
        try:
            self._master.call(Opcode.PUT_REVOKE, encode_put_refs(refs), decode_status_list,
                              deadline=time.monotonic() + self.config.timeout)
        except KvPoolError:
            pass  # the master revokes abandoned puts itself when their grants expire

    def _replicas(self, keys: list) -> list:
        out = self._master.call(Opcode.GET_REPLICAS, encode_keys(keys), decode_replica_list_reply)
        return self._expect(out, len(keys), "GET_REPLICAS")

    def _statuses(self, opcode: int, keys: list) -> list:
        out = self._master.call(opcode, encode_keys(keys), decode_status_list)
        return self._expect(out, len(keys), Opcode(opcode).name)

    def _settled_statuses(self, opcode: int, keys: list) -> list:
        """Statuses of ``keys``, asking again for those a recovering new leader answers RECOVERING until the
        operation's deadline (then they stay RECOVERING)."""
        statuses = self._statuses(opcode, keys)
        backoff = Backoff.within(self.config.operation_timeout)
        pending = [i for i, s in enumerate(statuses) if s == ErrorCode.RECOVERING]
        while pending and backoff.pause():
            for i, s in zip(pending, self._statuses(opcode, [keys[i] for i in pending])):
                statuses[i] = s
            pending = [i for i in pending if statuses[i] == ErrorCode.RECOVERING]
        return statuses

    @staticmethod
    def _expect(results: list, expected: int, what: str) -> list:
        if len(results) != expected:
            raise KvPoolError(f"master answered {what} with {len(results)} results for {expected} keys")
        return results

    def stats(self) -> PoolStats:
        return self._master.call(Opcode.STATS, None, PoolStats.decode)

    # ---- put ----

    def put(self, key: str, value, replicas: int | None = None) -> bool:
        """Stores ``value`` (any buffer-protocol object, not copied). True when stored, False when the key already
        held a value (which is kept)."""
        return self.put_regions(key, Regions.of_buffer(value), replicas)

    def put_regions(self, key: str, value: Regions, replicas: int | None = None) -> bool:
        """As :meth:`put`, the value gathered from several regions."""
        replicas = self.config.replicas if replicas is None else replicas
        _check_key(key)
        _check_value(key, value, replicas)
        crc = crc32c_of_regions(value.views)
        avoid: list = []
        backoff = Backoff.within(self.config.operation_timeout)
        data_failures = 0
        while True:
            item = PutStartItem(key, value.size, crc, replicas, random.getrandbits(63), tuple(avoid[-_MAX_AVOIDED:]))
            start = self._put_start([item])[0]
            if start.status == ErrorCode.ALREADY_EXISTS:
                return False
            if start.status == ErrorCode.OK:
                plan = PutPlan(key, start.generation, start.expires_at, replicas, value, crc, start.replicas)
                outcome = write_replicas(self._storage, self.config.timeout, [plan])[0]
                for node, error in outcome.failures.items():
                    if isinstance(error, (ConnectionFailed, KvPoolTimeout)) and node not in avoid:
                        avoid.append(node)  # the master does not know yet: place the retry elsewhere
                if outcome.committed_by_nodes(plan):
                    self._commits.by_nodes(1)
                    return True
                if outcome.receipts:
                    end = self._end_puts([PutEndItem(key, start.generation, list(outcome.receipts.items()))],
                                         backoff)[0]
                    if end == ErrorCode.OK:
                        self._commits.by_put_end(1)
                        return True
                    # lost (a new leader never heard of it, or it expired): the next round starts it again, and
                    # finds the value stored (ALREADY_EXISTS) if a node's inventory brought it back meanwhile
                    last: KvPoolError = ConnectionFailed(
                        f"put of key '{key}' was dropped by the master before it completed ({end.name}): a storage"
                        " node holding it failed or the put outlived its grant", end)
                else:
                    self._revoke_quietly([(key, start.generation)])
                    last = next(iter(outcome.failures.values()), None) or ConnectionFailed(
                        f"put of key '{key}': no storage node returned a receipt")
                    if not retryable(last):
                        raise last
                data_failures += 1
                if data_failures > self.config.retries:
                    raise last
            elif start.status.retryable:
                last = remote_error(start.status, f"put of key '{key}': {start.message}")
            else:
                raise remote_error(start.status, f"put of key '{key}' refused by the master: {start.message}")
            if not backoff.pause():
                raise last

    def put_batch(self, keys: Sequence[str], values: Sequence[Regions], replicas: int | None = None) -> list:
        """Stores many values (each a :class:`Regions`) with one master round trip to start them and, for those their
        storage nodes did not commit, one to end them, writing every node's replicas at once. One entry per key: None
        when stored (or already present), else the error. Keys whose batch attempt failed for a retryable reason are
        retried one by one."""
        replicas = self.config.replicas if replicas is None else replicas
        if len(keys) != len(values):
            raise ValueError(f"{len(keys)} keys but {len(values)} values")
        results: list = [None] * len(keys)
        for k, v in zip(keys, values):
            _check_key(k)
            _check_value(k, v, replicas)
        offset = 0
        for chunk in _chunks(list(range(len(keys)))):
            self._put_chunk([keys[i] for i in chunk], [values[i] for i in chunk], replicas, results, offset)
            offset += len(chunk)
        for i, error in enumerate(results):
            if error is not None and retryable(error):
                try:
                    self.put_regions(keys[i], values[i], replicas)
                    results[i] = None
                except KvPoolError as e:
                    results[i] = e
        return results

    def _put_chunk(self, keys: list, values: list, replicas: int, results: list, offset: int) -> None:
        crcs = [crc32c_of_regions(v.views) for v in values]
        items = [PutStartItem(k, v.size, c, replicas, random.getrandbits(63)) for k, v, c in zip(keys, values, crcs)]
        try:
            started = self._put_start(items)
        except KvPoolError as e:
            for i in range(len(keys)):
                results[offset + i] = e
            return
        plans, where = [], []
        for i, r in enumerate(started):
            if r.status == ErrorCode.OK:
                plans.append(PutPlan(keys[i], r.generation, r.expires_at, replicas, values[i], crcs[i], r.replicas))
                where.append(i)
            elif r.status != ErrorCode.ALREADY_EXISTS:
                results[offset + i] = remote_error(r.status, f"put of key '{keys[i]}' refused: {r.message}")
        outcomes = write_replicas(self._storage, self.config.timeout, plans)
        ends, end_where, revoke = [], [], []
        committed = 0  # by their storage nodes: stored, no PUT_END
        for plan, i, outcome in zip(plans, where, outcomes):
            if outcome.committed_by_nodes(plan):
                committed += 1
            elif outcome.receipts:
                ends.append(PutEndItem(plan.key, plan.generation, list(outcome.receipts.items())))
                end_where.append(i)
            else:
                results[offset + i] = next(iter(outcome.failures.values()), None) or ConnectionFailed(
                    f"put of key '{plan.key}': no storage node returned a receipt")
                revoke.append((plan.key, plan.generation))
        self._commits.by_nodes(committed)
        if revoke:
            self._revoke_quietly(revoke)
        if ends:
            try:
                statuses = self._end_puts(ends, Backoff.within(self.config.operation_timeout))
            except KvPoolError as e:
                statuses = [e] * len(ends)
            for i, status in zip(end_where, statuses):
                if isinstance(status, KvPoolError):
                    results[offset + i] = status
                elif status != ErrorCode.OK:
                    results[offset + i] = ConnectionFailed(
                        f"put of key '{keys[i]}' was dropped by the master before it completed ({status.name})", status)
                else:
                    self._commits.by_put_end(1)

    # ---- get ----

    def get(self, key: str) -> bytearray:
        """The value of ``key`` in a new bytearray; ObjectNotFound when it is not stored."""
        _check_key(key)
        cached = self._locations.get(key)
        if cached is not None:
            dst = bytearray(cached.size)
            if self._read_cached(key, cached, Regions.of_buffer(dst, writable=True)):
                return dst
        asked = time.monotonic()
        result = self._lookup(key)
        dst = bytearray(result.size)
        self._locations.put(key, self._read_with_retries(key, result, Regions.of_buffer(dst, writable=True)), asked)
        return dst

    def get_into(self, key: str, buffer) -> int:
        """Reads the value of ``key`` into the start of ``buffer`` (any writable buffer-protocol object) and returns
        its length. BufferTooSmall (nothing written) when it does not fit."""
        return self.get_regions(key, Regions.of_buffer(buffer, writable=True))

    def get_regions(self, key: str, dst: Regions) -> int:
        """As :meth:`get_into`, the value scattered over several regions in order."""
        _check_key(key)
        cached = self._locations.get(key)
        if cached is not None:
            if cached.size <= dst.size and self._read_cached(key, cached, dst):
                return cached.size
            self._locations.invalidate(key, False)  # replaced by another size? ask the master before refusing
        asked = time.monotonic()
        result = self._lookup(key)
        if result.size > dst.size:
            raise BufferTooSmall(f"value of key '{key}' has {result.size} bytes but the buffer has {dst.size};"
                                 f" pass a buffer of at least {result.size} bytes")
        self._locations.put(key, self._read_with_retries(key, result, dst), asked)
        return result.size

    def _read_cached(self, key: str, cached: ReplicaListResult, dst: Regions) -> bool:
        """A read straight from one replica of a held replica list; False (the list dropped) when the node refuses it
        or the bytes do not verify: the caller then asks the master."""
        replica = random.choice(cached.replicas)
        if read_replicas(self._storage, self.config.timeout, [ReadPlan(key, cached, replica, dst)])[0] is None:
            return True
        self._locations.invalidate(key, True)
        return False

    def location_cache_stats(self) -> LocationCacheStats:
        """Gets served from held replica lists (no master round trip), lookups sent to the master, stale lists."""
        return self._locations.stats()

    def put_commit_stats(self) -> PutCommitStats:
        """How this client's puts were committed: by their storage nodes (protocol 2.2, no PUT_END) or by a PUT_END.
        Puts of keys that already held a value count in neither."""
        return self._commits.stats()

    def _lookup(self, key: str) -> ReplicaListResult:
        """The replica list of a key, waiting out a new leader's recovery; not found is final."""
        backoff = Backoff.within(self.config.operation_timeout)
        while True:
            r = self._replicas([key])[0]
            if r.status == ErrorCode.OK:
                return r
            if r.status == ErrorCode.RECOVERING and backoff.pause():
                continue
            if r.status in (ErrorCode.NOT_FOUND, ErrorCode.RECOVERING):
                raise ObjectNotFound(f"key '{key}' is not stored in pool '{self.pool_id}'"
                                     + (" (the master was still recovering)" if r.status == ErrorCode.RECOVERING
                                        else ""), ErrorCode.NOT_FOUND)
            raise remote_error(r.status, f"lookup of key '{key}'")

    def _read_with_retries(self, key: str, first: ReplicaListResult, dst: Regions) -> ReplicaListResult:
        """Reads one replica after another, asking the master again when all fail; returns the list it read with."""
        result = first
        last: KvPoolError | None = None
        for attempt in range(self.config.retries + 1):
            if attempt > 0:
                result = self._lookup(key)
                if result.size > dst.size:
                    raise KvPoolError(f"value of key '{key}' changed size while being read; read it again")
            last = self._read_any(key, result, dst)
            if last is None:
                return result
        raise last

    def _read_any(self, key: str, result: ReplicaListResult, dst: Regions):
        """Tries the replicas in random order; None on success, else the last failure."""
        replicas = result.replicas
        last: KvPoolError = ObjectNotFound(f"key '{key}' has no readable replica", ErrorCode.NOT_FOUND)
        first = random.randrange(len(replicas)) if len(replicas) > 1 else 0
        for n in range(len(replicas)):
            replica = replicas[(first + n) % len(replicas)]
            failure = read_replicas(self._storage, self.config.timeout, [ReadPlan(key, result, replica, dst)])[0]
            if failure is None:
                return None
            last = failure
        return last

    def get_batch_regions(self, keys: Sequence[str], dsts: Sequence[Regions]) -> list:
        """Reads many values with one master round trip and every node's reads sent at once. One entry per key:
        the value's length, or the error (ObjectNotFound, BufferTooSmall, ...). A value whose first replica fails is
        read from the others."""
        if len(keys) != len(dsts):
            raise ValueError(f"{len(keys)} keys but {len(dsts)} destinations")
        for k in keys:
            _check_key(k)
        out: list = [None] * len(keys)
        offset = 0
        for chunk in _chunks(list(keys)):
            self._get_chunk(chunk, dsts[offset:offset + len(chunk)], out, offset)
            offset += len(chunk)
        return out

    def _get_chunk(self, keys: list, dsts: Sequence[Regions], out: list, offset: int) -> None:
        """At most one master round trip (none for keys whose replica lists are held), one exchange per node; held
        lists a node refuses are looked up again, all in one request."""
        held, unknown = [], []
        for i, k in enumerate(keys):
            r = self._locations.get(k)
            (held if r is not None and r.size <= dsts[i].size else unknown).append((i, r))
        asked = time.monotonic()
        results: list = [None] * len(keys)
        if unknown:
            try:
                for (i, _), r in zip(unknown, self._replicas([keys[i] for i, _ in unknown])):
                    results[i] = r
            except KvPoolError as e:
                for i, _ in unknown:
                    out[offset + i] = e
                unknown = []
        stale = []
        if held:
            plans = [ReadPlan(keys[i], r, random.choice(r.replicas), dsts[i]) for i, r in held]
            for (i, r), failure in zip(held, read_replicas(self._storage, self.config.timeout, plans)):
                if failure is None:
                    out[offset + i] = r.size
                else:
                    self._locations.invalidate(keys[i], True)
                    stale.append(i)
        fresh = [i for i, _ in unknown]
        if stale:
            asked_again = time.monotonic()
            try:
                for i, r in zip(stale, self._replicas([keys[i] for i in stale])):
                    results[i] = r
            except KvPoolError as e:
                for i in stale:
                    out[offset + i] = e
                stale = []
        for group, at in ((fresh, asked), (stale, asked_again if stale else asked)):
            if not group:
                continue
            settled = self._settled([keys[i] for i in group], [results[i] for i in group])
            lengths: list = [None] * len(group)
            self._read_results([keys[i] for i in group], settled, [dsts[i] for i in group], lengths, 0)
            for i, r, n in zip(group, settled, lengths):
                out[offset + i] = n
                if isinstance(n, int) and not isinstance(r, KvPoolError):
                    self._locations.put(keys[i], r, at)

    def _settled(self, keys: list, results: list) -> list:
        """Replica lists with every RECOVERING entry asked again until found, missing or failed (the exception)."""
        settled = []
        for key, r in zip(keys, results):
            if r.status == ErrorCode.RECOVERING:
                try:
                    r = self._lookup(key)
                except KvPoolError as e:
                    r = e
            settled.append(r)
        return settled

    def _read_results(self, keys: list, results: list, dsts: Sequence[Regions], out: list, offset: int) -> None:
        """Reads the values whose replica lists are known: every node's reads at once, then, for a value whose
        replica failed, the other replicas one by one."""
        reads, where = [], []
        for i, r in enumerate(results):
            if isinstance(r, KvPoolError):
                out[offset + i] = r
            elif r.status != ErrorCode.OK or not r.replicas:
                out[offset + i] = ObjectNotFound(f"key '{keys[i]}' is not stored in pool '{self.pool_id}'",
                                                 ErrorCode.NOT_FOUND) if r.status in (ErrorCode.OK, ErrorCode.NOT_FOUND)\
                    else remote_error(r.status, f"lookup of key '{keys[i]}'")
            elif r.size > dsts[i].size:
                out[offset + i] = BufferTooSmall(f"value of key '{keys[i]}' has {r.size} bytes but the buffer has"
                                                 f" {dsts[i].size}")
            else:
                reads.append(ReadPlan(keys[i], r, random.choice(r.replicas), dsts[i]))
                where.append(i)
        failures = read_replicas(self._storage, self.config.timeout, reads)
        for read, i, failure in zip(reads, where, failures):
            if failure is not None:
                try:
                    self._read_with_retries(read.key, read.result, read.dst)
                except KvPoolError as e:
                    out[offset + i] = e
                    continue
            out[offset + i] = read.result.size

    def get_batch(self, keys: Sequence[str]) -> list:
        """Values of the keys in new bytearrays (one master round trip per 4096 keys); None for a key that is not
        stored. Other failures raise."""
        for k in keys:
            _check_key(k)
        out: list = []
        for chunk in _chunks(list(keys)):
            results = self._settled(chunk, self._replicas(chunk))
            buffers = [bytearray(r.size) if not isinstance(r, KvPoolError) and r.status == ErrorCode.OK else None
                       for r in results]
            lengths: list = [None] * len(chunk)
            self._read_results(chunk, results, [Regions.of_buffer(b, writable=True) if b is not None
                                                else Regions([]) for b in buffers], lengths, 0)
            for i, n in enumerate(lengths):
                if isinstance(n, ObjectNotFound):
                    buffers[i] = None  # not stored, or removed in between
                elif isinstance(n, KvPoolError):
                    raise n
            out.extend(buffers)
        return out

    # ---- metadata ----

    def exists_batch(self, keys: Sequence[str]) -> list:
        """One bool per key; a key not found yet while a new leader recovers is asked again until the deadline."""
        for k in keys:
            _check_key(k)
        out: list = []
        for chunk in _chunks(list(keys)):
            statuses = self._settled_statuses(Opcode.EXISTS, chunk)
            for s in statuses:
                if s not in (ErrorCode.OK, ErrorCode.NOT_FOUND, ErrorCode.RECOVERING):
                    raise remote_error(s, "exists")
            out.extend(s == ErrorCode.OK for s in statuses)
        return out

    def exists(self, key: str) -> bool:
        return self.exists_batch([key])[0]

    def remove_batch(self, keys: Sequence[str]) -> list:
        """One status per key: OK (removed), NOT_FOUND, OBJECT_LEASED (being read), PUT_IN_PROGRESS, ..."""
        for k in keys:
            _check_key(k)
        out: list = []
        for chunk in _chunks(list(keys)):
            statuses = self._settled_statuses(Opcode.REMOVE, chunk)
            for k, st in zip(chunk, statuses):
                if st == ErrorCode.OK:
                    self._locations.invalidate(k, False)
            out.extend(statuses)
        return out

    def remove(self, key: str) -> bool:
        """True if removed, False if it was not stored. An object under a read lease or being written raises a
        RemoteError (OBJECT_LEASED / PUT_IN_PROGRESS, retryable)."""
        status = self.remove_batch([key])[0]
        if status == ErrorCode.OK:
            return True
        if status in (ErrorCode.NOT_FOUND, ErrorCode.RECOVERING):
            return False
        raise RemoteError(f"remove of key '{key}' refused [{status.name}]", status)

    def remove_all(self) -> int:
        """Removes every object not leased or being written; returns how many were removed."""
        return self._master.call(Opcode.REMOVE_ALL, None, decode_count)

    def pin(self, key: str, pinned: bool = True) -> None:
        """Sets or clears the soft pin of a stored object: pinned objects are never evicted."""
        _check_key(key)
        status = self._master.call(Opcode.PIN, encode_pin(key, pinned), decode_status_list)
        if len(status) != 1 or status[0] != ErrorCode.OK:
            raise remote_error(status[0] if status else ErrorCode.INTERNAL, f"cannot pin key '{key}'")
