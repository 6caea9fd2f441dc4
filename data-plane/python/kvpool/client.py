"""The kvpool client: metadata with the leading master, value bytes straight between the caller's buffers and
storage nodes. Thread-safe: connections are pooled, so threads sharing a client do not wait for each other.

A put of a key that already exists keeps the stored value (keys of a KV cache name their content); remove the key
first to replace it. A put succeeds once at least one replica is written and verified; the master copies the
missing ones. With protocol 2.2 the storage nodes commit a put whose replicas were all written, so it costs one
master exchange (PUT_START); the client sends PUT_END only when a node could not. With ``ClientConfig(extents=True)``
and protocol 2.4, a small put of one key and one replica costs no master exchange: it goes into an extent the master
granted ahead (:mod:`kvpool.extents`).
"""

from __future__ import annotations

from typing import Sequence

from .backoff import Backoff
from .checksum import crc32c_of_regions
from .codec import MAX_BATCH, key_problem
from .commits import PutCommits, PutCommitStats
from .config import ClientConfig
from .endpoints import any_master_answers
from .errors import ErrorCode, InvalidKey, KvPoolError, ObjectNotFound, RemoteError, VersionMismatch, remote_error
from .extents import ExtentPuts, ExtentStats
from .gets import Destinations, GetOperation, IntoRegions, NewBuffers
from .locations import LocationCache, LocationCacheStats
from .memory import Regions
from .messages import (EXTENT_MINOR, PUT_START_META_MINOR, REMOVE_MATCHING_MINOR, BlockMetadata, HandshakePrefix,
                       Opcode, PoolStats, RemovedMatches, Role, decode_count, decode_status_list, encode_keys,
                       encode_pin, encode_remove_matching, pattern_problem)
from .pools import MasterChannel, StorageConnections
from .puts import PutOperation, PutResult, entries, value_problem


_RECOVERING = frozenset({ErrorCode.RECOVERING})
# what a forced remove waits out: a new leader's recovery, reads under their lease, puts still being written
_FORCED = frozenset({ErrorCode.RECOVERING, ErrorCode.OBJECT_LEASED, ErrorCode.PUT_IN_PROGRESS})


def _check_key(key: str) -> None:
    problem = key_problem(key)
    if problem is not None:
        raise InvalidKey(problem)


def _check_keys(keys: Sequence[str]) -> None:
    for key in keys:
        _check_key(key)


class KvPoolClient:
    """Client of one pool. ``KvPoolClient(ClientConfig(...))`` or ``KvPoolClient.from_env()``; connects to the
    leader at once, so an unreachable or incompatible pool fails here with a typed error (at once, naming each
    endpoint's problem, with ``ClientConfig(fail_fast_connect=...)``)."""

    def __init__(self, config: ClientConfig):
        self.config = config
        major, minor = config.protocol
        local = HandshakePrefix(config.release, major, minor, Role.CLIENT, config.pool_id, config.client_id)
        tls = config.tls_context()
        self._master = MasterChannel(config.masters, local, config.timeout, config.operation_timeout, config.pool_key,
                                     tls)
        if config.fail_fast_connect is not None:
            any_master_answers(config.masters, local, config.pool_key, tls, config.fail_fast_connect)
        self.stats()  # STATS, not PING: a standby refuses it, so this finds the leader
        hello = self._master.last_handshake
        self.server_release = hello.prefix.release if hello else ""
        self.server_protocol = (hello.prefix.major, hello.prefix.minor) if hello else (0, 0)
        self.pool_id = hello.prefix.pool_id if hello else config.pool_id
        # storage nodes belong to the master's pool: insist on it from here on
        to_storage = local._replace(pool_id=self.pool_id)
        self._storage = StorageConnections(to_storage, config.timeout, config.pool_key, tls, config.batch_requests,
                                           config.failed_node_memory)
        self._locations = LocationCache(config.location_cache_entries, config.lease_ttl)
        self._commits = PutCommits()
        self._extents = ExtentPuts(config, self._master, self._storage, self._commits) if config.extents else None

    @classmethod
    def from_env(cls, **overrides) -> "KvPoolClient":
        return cls(ClientConfig.from_env(**overrides))

    def __enter__(self) -> "KvPoolClient":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        """Gives back the extents this client holds (best effort, within one exchange timeout) and closes every
        connection."""
        if self._extents is not None:
            self._extents.close()
        self._master.close()
        self._storage.close()

    def stats(self) -> PoolStats:
        """Pool totals; the disk tiers' (``stats().disk``) from a master of protocol 2.5."""
        return self._master.call(Opcode.STATS, None, self._decode_stats)

    def _decode_stats(self, r) -> PoolStats:
        # the minor the master's connection agreed on (the newer side speaks the older dialect)
        hello = self._master.last_handshake
        return PoolStats.decode(r, min(hello.prefix.minor if hello else 0, self.config.protocol[1]))

    # ---- put ----

    def put(self, key: str, value, replicas: int | None = None, metadata: BlockMetadata | None = None) -> bool:
        """Stores ``value`` (any buffer-protocol object, not copied) within the operation timeout, retries included.
        True when stored, False when the key already held a value (which is kept). ``metadata``: what the value's KV
        blocks are (protocol 2.3): the master keeps it with the object and names it in its KV events."""
        return self.put_regions(key, Regions.of_buffer(value), replicas, metadata)

    def put_regions(self, key: str, value: Regions, replicas: int | None = None,
                    metadata: BlockMetadata | None = None) -> bool:
        """As :meth:`put`, the value gathered from several regions."""
        replicas = self.config.replicas if replicas is None else replicas
        _check_key(key)
        refused = value_problem(key, value, replicas)
        if refused is not None:
            raise refused
        self._check_metadata(key, metadata)
        entry = self._put_entries([key], [value], replicas, metadata=None if metadata is None else [metadata])[0]
        if entry.result == PutResult.FAILED:
            raise entry.failure
        return entry.result == PutResult.STORED

    def put_batch(self, keys: Sequence[str], values: Sequence[Regions], replicas: int | None = None,
                  metadata: Sequence | None = None) -> list:
        """Stores many values (each a :class:`Regions`) with one master round trip to start them and, for those their
        storage nodes did not commit, one to end them, writing every node's replicas at once; keys that fail are
        tried again together, all within one operation timeout. One entry per key: None when stored (or already
        present), else the key's error. Bad arguments (an invalid key, an empty value) raise ValueError before
        anything is sent."""
        replicas = self.config.replicas if replicas is None else replicas
        if len(keys) != len(values):
            raise ValueError(f"{len(keys)} keys but {len(values)} values")
        _check_keys(keys)
        if metadata is not None and len(metadata) != len(keys):
            raise ValueError(f"{len(keys)} keys but {len(metadata)} metadata entries")
        for i, (k, v) in enumerate(zip(keys, values)):
            refused = value_problem(k, v, replicas)
            if refused is not None:
                raise refused
            self._check_metadata(k, None if metadata is None else metadata[i])
        return [e.failure if e.result == PutResult.FAILED else None
                for e in self._put_entries(keys, values, replicas, metadata=metadata)]

    def _check_metadata(self, key: str, metadata: BlockMetadata | None) -> None:
        """Metadata over a limit raises ValueError; a master that cannot keep it (protocol < 2.3) VersionMismatch."""
        if metadata is None:
            return
        problem = metadata.limit_problem()
        if problem is not None:
            raise ValueError(f"block metadata of key '{key}': {problem}")
        if min(self.server_protocol[1], self.config.protocol[1]) < PUT_START_META_MINOR:
            raise VersionMismatch(f"block metadata needs protocol 2.{PUT_START_META_MINOR}; the master speaks protocol"
                                  f" {self.server_protocol[0]}.{self.server_protocol[1]}: put without metadata, or"
                                  " upgrade the master")

    def _put_entries(self, keys: Sequence[str], values: Sequence[Regions], replicas: int | None = None,
                     deadline: Backoff | None = None, metadata: Sequence | None = None) -> list:
        """One put operation for every key (one deadline: the operation timeout from now, or ``deadline``); an
        invalid key or value fails only its own entry. Returns the :class:`kvpool.puts.PutEntry` of each key, with
        its ``result`` and ``failure``. A call of one key goes through an extent when it may (``ClientConfig.extents``),
        and through PUT_START when it may not or the extent cannot take it; a call of several keys through PUT_START,
        whose one master round trip starts them all."""
        replicas = self.config.replicas if replicas is None else replicas
        deadline = deadline or Backoff.until(self.config.operation_timeout)
        todo = entries(keys, values, replicas, lambda v: crc32c_of_regions(v.views), metadata)
        if len(todo) == 1 and self._takes_extent(todo[0], replicas):
            self._extents.put(todo[0], deadline)
        return PutOperation(self.config, self._master, self._storage, self._commits, todo, replicas, deadline).run()

    def _takes_extent(self, entry, replicas: int) -> bool:
        """Whether a put may go through an extent: extents on, a master that agreed on protocol 2.4, one replica, no
        block metadata, at most 256 KiB."""
        return (self._extents is not None and min(self.server_protocol[1], self.config.protocol[1]) >= EXTENT_MINOR
                and ExtentPuts.takes(entry, replicas))

    # ---- get ----

    def _get_operation(self) -> GetOperation:
        return GetOperation(self.config, self._master, self._storage, self._locations, self.pool_id)

    def _read(self, keys: Sequence[str], destinations: Destinations) -> list:
        """One get operation for every key (one deadline): per key, the value's length or the exception that says
        why not (an invalid key fails only its own entry)."""
        return self._get_operation().read(keys, destinations)

    def get(self, key: str) -> bytearray:
        """The value of ``key`` in a new bytearray; ObjectNotFound when it is not stored."""
        _check_key(key)
        buffers = NewBuffers(1)
        outcome = self._read([key], buffers)[0]
        if isinstance(outcome, BaseException):
            raise outcome
        return buffers.buffers[0]

    def get_into(self, key: str, buffer) -> int:
        """Reads the value of ``key`` into the start of ``buffer`` (any writable buffer-protocol object) and returns
        its length. BufferTooSmall (nothing written) when it does not fit."""
        return self.get_regions(key, Regions.of_buffer(buffer, writable=True))

    def get_regions(self, key: str, dst: Regions) -> int:
        """As :meth:`get_into`, the value scattered over several regions in order."""
        _check_key(key)
        outcome = self._read([key], IntoRegions([key], [dst]))[0]
        if isinstance(outcome, BaseException):
            raise outcome
        return outcome

    def get_batch_regions(self, keys: Sequence[str], dsts: Sequence[Regions]) -> list:
        """Reads many values with one master round trip (none for keys whose replica lists this client holds) and
        every node's reads sent at once, all within one operation timeout. One entry per key: the value's length, or
        the key's error (ObjectNotFound, BufferTooSmall, ...). A value whose first replica fails is read from the
        others. An invalid key raises ValueError before anything is sent."""
        if len(keys) != len(dsts):
            raise ValueError(f"{len(keys)} keys but {len(dsts)} destinations")
        _check_keys(keys)
        return self._read(keys, IntoRegions(keys, dsts))

    def get_batch(self, keys: Sequence[str]) -> list:
        """Values of the keys in new bytearrays (one master round trip per 4096 keys), within one operation timeout;
        None for a key that is not stored. A key that could not be read raises its error once the others were read
        (:meth:`get_batch_regions` answers per key)."""
        _check_keys(keys)
        values = self._get_values(keys)
        for v in values:
            if isinstance(v, BaseException) and not isinstance(v, ObjectNotFound):
                raise v
        return [None if isinstance(v, BaseException) else v for v in values]

    def _get_values(self, keys: Sequence[str], make=bytearray) -> list:
        """Per key: its value in a new bytearray (or what ``make(size)`` returns), or the exception that says why
        not."""
        buffers = NewBuffers(len(keys), make)
        return [buffers.buffers[i] if isinstance(n, int) else n for i, n in enumerate(self._read(keys, buffers))]

    def _lookups(self, keys: Sequence[str]) -> list:
        """Per key its replica list or the exception that says why there is none, within one operation timeout."""
        return self._get_operation().lookup_many(keys)

    def _lookup(self, key: str):
        """The replica list of ``key`` (its size, CRC32C and replicas); ObjectNotFound when it is not stored."""
        _check_key(key)
        return self._get_operation().lookup(key)

    def location_cache_stats(self) -> LocationCacheStats:
        """Gets served from held replica lists (no master round trip), lookups sent to the master, stale lists."""
        return self._locations.stats()

    def put_commit_stats(self) -> PutCommitStats:
        """How this client's puts were committed: by their storage nodes (protocol 2.2, no PUT_END; puts into extents
        too) or by a PUT_END. Puts of keys that already held a value count in neither."""
        return self._commits.stats()

    def extent_stats(self) -> ExtentStats:
        """What this client's puts through extents did (``ClientConfig(extents=True)``): all zero when off."""
        return self._extents.stats() if self._extents is not None else ExtentStats(0, 0, 0, 0, 0)

    # ---- metadata ----

    def _key_statuses(self, opcode: int, keys: Sequence[str], again: frozenset = _RECOVERING,
                      deadline: Backoff | None = None) -> list:
        """The master's status of each key for EXISTS or REMOVE, within one operation timeout (or ``deadline``): keys
        answered a status in ``again`` (RECOVERING: a new leader still recovering) are asked again until the deadline
        (then they keep that status). Per key: the status, or the exception that says why there is none (an invalid
        key fails only its own entry)."""
        deadline = deadline or Backoff.until(self.config.operation_timeout)
        out: list = [None] * len(keys)
        asking = []
        for i, key in enumerate(keys):
            problem = key_problem(key)
            if problem is not None:
                out[i] = InvalidKey(problem)
            else:
                asking.append(i)
        # REMOVEs a master may have applied without its answer reaching us: NOT_FOUND when asked again means removed
        maybe_removed: set = set()
        while asking:
            for start in range(0, len(asking), MAX_BATCH):
                chunk = asking[start:start + MAX_BATCH]
                unanswered = (lambda c=chunk: maybe_removed.update(c)) if opcode == Opcode.REMOVE else None
                try:
                    statuses = self._master.call(opcode, encode_keys([keys[i] for i in chunk]), decode_status_list,
                                                 deadline, unanswered)
                    if len(statuses) != len(chunk):
                        raise KvPoolError(f"master answered {Opcode(opcode).name} with {len(statuses)} results for"
                                          f" {len(chunk)} keys")
                except KvPoolError as e:
                    statuses = [e] * len(chunk)
                for i, status in zip(chunk, statuses):
                    out[i] = ErrorCode.OK if status == ErrorCode.NOT_FOUND and i in maybe_removed else status
            asking = [i for i in asking if out[i] in again]
            if asking and not deadline.pause():
                break
        return out

    def exists_batch(self, keys: Sequence[str]) -> list:
        """One bool per key, within one operation timeout; a key not found yet while a new leader recovers is asked
        again until the deadline. An invalid key raises ValueError, a failure of the pool its error."""
        _check_keys(keys)
        out = []
        for status in self._key_statuses(Opcode.EXISTS, keys):
            if isinstance(status, BaseException):
                raise status
            if status not in (ErrorCode.OK, ErrorCode.NOT_FOUND, ErrorCode.RECOVERING):
                raise remote_error(status, "exists")
            out.append(status == ErrorCode.OK)
        return out

    def exists(self, key: str) -> bool:
        return self.exists_batch([key])[0]

    def remove_batch(self, keys: Sequence[str], force: bool = False) -> list:
        """One status per key: OK (removed), NOT_FOUND, OBJECT_LEASED (being read), PUT_IN_PROGRESS, ...; within one
        operation timeout (``force``: as :meth:`remove`). An invalid key raises ValueError, a failure of the pool its
        error."""
        _check_keys(keys)
        statuses = self._removed(keys, force)
        for status in statuses:
            if isinstance(status, BaseException):
                raise status
        return statuses

    def _removed(self, keys: Sequence[str], force: bool = False, deadline: Backoff | None = None) -> list:
        """REMOVE of every key; per key its status or exception. ``force``: a key being read (OBJECT_LEASED) or
        written (PUT_IN_PROGRESS) is asked again until it is removed or the deadline passes."""
        statuses = self._key_statuses(Opcode.REMOVE, keys, _FORCED if force else _RECOVERING, deadline)
        for key, status in zip(keys, statuses):
            if status == ErrorCode.OK:
                self._locations.invalidate(key, False)
        return statuses

    def remove(self, key: str, force: bool = False) -> bool:
        """True if removed, False if it was not stored. An object under a read lease or being written raises a
        RemoteError (OBJECT_LEASED / PUT_IN_PROGRESS, retryable); with ``force`` the remove waits for those reads and
        writes to end, within the operation timeout (kvpool never frees bytes a reader may still be reading)."""
        _check_key(key)
        status = self._removed([key], force)[0]
        if isinstance(status, BaseException):
            raise status
        if status == ErrorCode.OK:
            return True
        if status in (ErrorCode.NOT_FOUND, ErrorCode.RECOVERING):
            return False
        raise RemoteError(f"remove of key '{key}' refused [{status.name}]", status)

    def remove_all(self, force: bool = False) -> int:
        """Removes every object not leased or being written; returns how many were removed. ``force``: asks again
        while the pool still holds objects (being read or written), until it is empty or the operation timeout
        passes."""
        deadline = Backoff.until(self.config.operation_timeout)
        removed = self._master.call(Opcode.REMOVE_ALL, None, decode_count, deadline)
        while force and self._master.call(Opcode.STATS, None, self._decode_stats, deadline).objects > 0 and \
                deadline.pause():
            removed += self._master.call(Opcode.REMOVE_ALL, None, decode_count, deadline)
        return removed

    def remove_matching(self, pattern: str, force: bool = False) -> RemovedMatches:
        """Removes every object whose key contains a match of ``pattern``, an RE2 regular expression (protocol 2.4,
        REMOVE_MATCHING; no backreferences or look-arounds), within one operation timeout: asks again while the master
        stopped at its time limit, or is recovering. Objects being read, copied or written are kept and counted in
        ``kept`` (``force``: asked again until none is kept or the deadline passes). A pattern of 0 or over 1024 bytes
        raises ValueError, a master of protocol 2.3 or older VersionMismatch, a pattern RE2 refuses RemoteError."""
        problem = pattern_problem(pattern)
        if problem is not None:
            raise ValueError(problem)
        if min(self.server_protocol[1], self.config.protocol[1]) < REMOVE_MATCHING_MINOR:
            raise VersionMismatch(f"removing by pattern needs protocol 2.{REMOVE_MATCHING_MINOR}; the master (release"
                                  f" {self.server_release}) speaks protocol {self.server_protocol[0]}."
                                  f"{self.server_protocol[1]}")
        deadline = Backoff.until(self.config.operation_timeout)
        removed = 0
        while True:
            try:
                r = self._master.call(Opcode.REMOVE_MATCHING, encode_remove_matching(pattern), RemovedMatches.decode,
                                      deadline)
            except KvPoolError as e:
                if e.code in (ErrorCode.RECOVERING, ErrorCode.BUSY) and deadline.pause():
                    continue
                raise
            removed += r.removed
            self._locations.clear()  # which cached keys matched is the master's to know
            more = not r.finished or (force and r.kept > 0)
            if not more or not deadline.pause():
                return RemovedMatches(removed, r.kept, r.finished)

    def pin(self, key: str, pinned: bool = True) -> None:
        """Sets or clears the soft pin of a stored object: pinned objects are never evicted."""
        _check_key(key)
        status = self._master.call(Opcode.PIN, encode_pin(key, pinned), decode_status_list)
        if len(status) != 1 or status[0] != ErrorCode.OK:
            raise remote_error(status[0] if status else ErrorCode.INTERNAL, f"cannot pin key '{key}'")
