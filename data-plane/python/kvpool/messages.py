"""Request encoders and reply decoders of the client's side of the protocol (PROTOCOL.md, "Requests")."""

from __future__ import annotations

import enum
from typing import NamedTuple, Sequence

from .codec import (MAX_BATCH, MAX_ENDPOINT_BYTES, MAX_ID_BYTES, MAX_SLICES, MAX_TOKEN_BYTES, MAX_VALUE_BYTES,
                    BodyReader, BodyWriter, to_i32)
from .errors import ErrorCode, ProtocolError


class Opcode(enum.IntEnum):
    HANDSHAKE = 1
    PING = 2
    AUTH = 3
    PUT_START = 20
    PUT_END = 21
    PUT_REVOKE = 22
    GET_REPLICAS = 23
    EXISTS = 24
    REMOVE = 25
    REMOVE_ALL = 26
    PIN = 27
    STATS = 28
    PUT_START_META = 29  # protocol 2.3
    WRITE = 40
    READ = 41
    READ_BATCH = 43  # protocol 2.1
    WRITE_BATCH = 44  # protocol 2.1
    READ_OBJECT = 46  # protocol 2.3: a whole value by its object, from memory or the node's disk tier
    REMOVE_MATCHING = 47  # protocol 2.4: remove the objects whose keys match an RE2 pattern
    EXTENT_GRANT = 50  # protocol 2.4: a range of one node and a run of generations, granted ahead of small puts
    EXTENT_WRITE = 51  # protocol 2.4: a whole small value into an extent, committed by its node
    EXTENT_RETURN = 53  # protocol 2.4: extents given back


class Role(enum.IntEnum):
    CLIENT = 1
    STORAGE = 2
    MASTER = 3


class ServerState(enum.IntEnum):
    SERVING = 0
    STANDBY = 1
    RECOVERING = 2


NONCE_BYTES = 32
# the protocol minor from which WRITE and WRITE_BATCH replies carry the commit flag (PROTOCOL.md, "Commits by storage
# nodes")
COMMIT_MINOR = 2
# the protocol minor from which WRITE and each WRITE_BATCH item carry the object's block metadata (PROTOCOL.md, "Block
# metadata")
WRITE_METADATA_MINOR = 5
_INT_LIMIT = 2**31 - 1
_LONG_LIMIT = 2**63 - 1


def _enum(kind, code: int, what: str):
    try:
        return kind(code)
    except ValueError:
        raise ProtocolError(f"unknown {what} {code}") from None


def error_code(code: int) -> ErrorCode:
    return _enum(ErrorCode, code, "error code")


# ---- handshake ----

class HandshakePrefix(NamedTuple):
    """The common prefix of every HANDSHAKE body, stable across protocol versions."""
    release: str
    major: int
    minor: int
    role: int
    pool_id: str
    peer_id: str

    def encode(self, w: BodyWriter) -> None:
        w.string(self.release).u8(self.major).u8(self.minor).u8(self.role).string(self.pool_id).string(self.peer_id)

    @staticmethod
    def decode(r: BodyReader) -> "HandshakePrefix":
        release = r.string(128, "release")
        major = r.u8()
        minor = r.u8()
        role = r.u8()
        pool_id = r.string(256, "pool id")
        peer_id = r.string(256, "peer id")
        return HandshakePrefix(release, major, minor, role, pool_id, peer_id)


def encode_handshake(prefix: HandshakePrefix, nonce: bytes, view: int = 0, key_id: bytes = b"") -> BodyWriter:
    w = BodyWriter()
    prefix.encode(w)
    w.i64(view).bytes(key_id).bytes(nonce)
    return w


class HandshakeReply(NamedTuple):
    prefix: HandshakePrefix
    view: int
    state: ServerState
    leader: str
    auth: bool
    nonce: bytes
    proof: bytes

    @staticmethod
    def decode_rest(prefix: HandshakePrefix, r: BodyReader) -> "HandshakeReply":
        view = r.i64()
        state = _enum(ServerState, r.u8(), "server state")
        leader = r.string(MAX_ENDPOINT_BYTES, "leader endpoint")
        auth = r.bool()
        nonce = r.bytes(NONCE_BYTES, "nonce")
        proof = r.bytes(MAX_TOKEN_BYTES, "proof")
        r.finish()
        if prefix.role not in (Role.MASTER, Role.STORAGE):
            raise ProtocolError(f"handshake reply from a peer of role {prefix.role}, expected a master or storage node")
        return HandshakeReply(prefix, view, state, leader, auth, nonce, proof)


class ErrorReply(NamedTuple):
    code: ErrorCode
    message: str

    @staticmethod
    def decode(r: BodyReader) -> "ErrorReply":
        code = error_code(r.u16())
        message = r.text()
        r.finish()
        return ErrorReply(code, message)


# ---- slices, grants, locations ----

class Slice(NamedTuple):
    """``length`` bytes at (segment, offset) holding the value's bytes from ``value_offset``."""
    segment: int
    offset: int
    length: int
    value_offset: int

    MIN_BYTES = 20

    @staticmethod
    def decode(r: BodyReader) -> "Slice":
        return Slice(r.index(_INT_LIMIT, "segment id"), r.length(_LONG_LIMIT, "offset"),
                     r.index(MAX_VALUE_BYTES, "slice length"), r.index(MAX_VALUE_BYTES, "value offset"))


class SliceGrant(NamedTuple):
    slice: Slice
    token: bytes


class ReplicaGrant(NamedTuple):
    node_id: str
    endpoint: str
    slices: list  # list[SliceGrant]

    @staticmethod
    def decode(r: BodyReader) -> "ReplicaGrant":
        node_id = r.string(MAX_ID_BYTES, "node id")
        endpoint = r.string(MAX_ENDPOINT_BYTES, "endpoint")
        n = r.count(MAX_SLICES, Slice.MIN_BYTES + 2, "slice grants")
        slices = [SliceGrant(Slice.decode(r), r.bytes(MAX_TOKEN_BYTES, "grant token")) for _ in range(n)]
        return ReplicaGrant(node_id, endpoint, slices)


class ReplicaLocation(NamedTuple):
    node_id: str
    endpoint: str
    token: bytes
    slices: list  # list[Slice]; empty: the replica is in the node's disk tier (protocol 2.3)

    @property
    def is_disk(self) -> bool:
        """Whether this replica lives in its node's disk tier (read whole with READ_OBJECT), not in its memory."""
        return not self.slices

    @property
    def is_memory(self) -> bool:
        return bool(self.slices)

    @staticmethod
    def decode(r: BodyReader) -> "ReplicaLocation":
        node_id = r.string(MAX_ID_BYTES, "node id")
        endpoint = r.string(MAX_ENDPOINT_BYTES, "endpoint")
        token = r.bytes(MAX_TOKEN_BYTES, "read token")
        n = r.count(MAX_SLICES, Slice.MIN_BYTES, "slices")
        return ReplicaLocation(node_id, endpoint, token, [Slice.decode(r) for _ in range(n)])


# ---- PUT_START / PUT_END / PUT_REVOKE ----

class PutStartItem(NamedTuple):
    key: str
    size: int
    crc: int
    replicas: int
    put_id: int
    avoid: Sequence[str] = ()


def encode_put_start(items: Sequence[PutStartItem]) -> BodyWriter:
    w = BodyWriter().count(len(items))
    for it in items:
        w.string(it.key).i32(it.size).i32(it.crc).u8(it.replicas).i64(it.put_id).count(len(it.avoid))
        for node in it.avoid:
            w.string(node)
    return w


PUT_START_META_MINOR = 3
MAX_BLOCK_HASHES = 64
MAX_HASH_BYTES = 64
MAX_TOKEN_IDS = 4096
MAX_BLOCK_SIZE = 65536


class BlockMetadata(NamedTuple):
    """What an inference engine knows about the KV blocks a value holds (protocol 2.3, PROTOCOL.md "Block metadata"):
    the fields of vLLM's ``BlockStored``, which the master publishes in its KV events when the object becomes
    readable. A hash is ``bytes`` (published as msgpack bin) or, for all of them at once, an ``int`` (a signed 64-bit
    value, published as a msgpack integer). ``lora_id`` None or 0: none."""
    block_hashes: Sequence
    parent_block_hash: "bytes | int | None" = None
    token_ids: Sequence[int] = ()
    block_size: int = 0
    lora_id: "int | None" = None

    def int_hashes(self) -> bool:
        return bool(self.block_hashes) and isinstance(self.block_hashes[0], int)

    def limit_problem(self) -> "str | None":
        """None when within the protocol's limits, else why not (the master answers LIMIT_EXCEEDED the same way)."""
        hashes = list(self.block_hashes)
        if not 1 <= len(hashes) <= MAX_BLOCK_HASHES:
            return f"block metadata holds {len(hashes)} block hashes; 1..{MAX_BLOCK_HASHES} allowed"
        as_int = self.int_hashes()
        for h in hashes + ([] if self.parent_block_hash is None else [self.parent_block_hash]):
            if as_int != isinstance(h, int):
                return "block hashes must be all bytes or all int"
            if as_int and not -(1 << 63) <= h < (1 << 63):
                return f"integer block hash {h} does not fit 64 bits"
            if not as_int and not 1 <= len(h) <= MAX_HASH_BYTES:
                return f"block hash of {len(h)} bytes; 1..{MAX_HASH_BYTES} allowed"
        if len(self.token_ids) > MAX_TOKEN_IDS:
            return f"block metadata holds {len(self.token_ids)} token ids; at most {MAX_TOKEN_IDS} allowed"
        if not 0 <= self.block_size <= MAX_BLOCK_SIZE:
            return f"block size {self.block_size} outside 0..{MAX_BLOCK_SIZE}"
        if self.lora_id is not None and self.lora_id < 0:
            return f"LoRA id {self.lora_id} is negative (0 or None means none)"
        return None

    def encoded_bytes(self) -> int:
        """Bytes of its encoding (what it adds to a body)."""
        hashes = 8 * len(self.block_hashes) if self.int_hashes() else sum(len(h) for h in self.block_hashes)
        parent = 0 if self.parent_block_hash is None else (8 if self.int_hashes() else len(self.parent_block_hash))
        return 1 + 4 + 2 * len(self.block_hashes) + hashes + 2 + parent + 4 + 4 * len(self.token_ids) + 8

    def encode(self, w: BodyWriter) -> None:
        as_int = self.int_hashes()

        def raw(h) -> bytes:
            return h.to_bytes(8, "big", signed=True) if as_int else bytes(h)

        w.u8(1 if as_int else 0).count(len(self.block_hashes))
        for h in self.block_hashes:
            w.bytes(raw(h))
        w.bytes(b"" if self.parent_block_hash is None else raw(self.parent_block_hash))
        w.count(len(self.token_ids))
        for t in self.token_ids:
            w.i32(t)
        w.i32(self.block_size).i32(self.lora_id or 0)


def encode_put_start_meta(items: Sequence[PutStartItem], metadata: Sequence) -> BodyWriter:
    """PUT_START_META (protocol 2.3): PUT_START's items, then per item ``present bool`` and its BlockMetadata."""
    w = encode_put_start(items).count(len(metadata))
    for m in metadata:
        w.bool(m is not None)
        if m is not None:
            m.encode(w)
    return w


class PutStartResult(NamedTuple):
    status: ErrorCode
    message: str
    generation: int
    expires_at: int
    replicas: list  # list[ReplicaGrant]

    MIN_BYTES = 2 + 2 + 8 + 8 + 4

    @staticmethod
    def decode(r: BodyReader) -> "PutStartResult":
        status = error_code(r.u16())
        message = r.text()
        generation = r.i64()
        expires_at = r.i64()
        n = r.count(255, 8, "replica grants")
        return PutStartResult(status, message, generation, expires_at, [ReplicaGrant.decode(r) for _ in range(n)])


def decode_put_start_reply(r: BodyReader) -> list:
    n = r.count(MAX_BATCH, PutStartResult.MIN_BYTES, "put start results")
    out = [PutStartResult.decode(r) for _ in range(n)]
    r.finish()
    return out


class PutEndItem(NamedTuple):
    key: str
    generation: int
    receipts: Sequence[tuple]  # (node id, receipt bytes)


def encode_put_end(items: Sequence[PutEndItem]) -> BodyWriter:
    w = BodyWriter().count(len(items))
    for it in items:
        w.string(it.key).i64(it.generation).count(len(it.receipts))
        for node, receipt in it.receipts:
            w.string(node).bytes(receipt)
    return w


def encode_put_refs(refs: Sequence[tuple]) -> BodyWriter:
    """PUT_REVOKE: (key, generation) pairs."""
    w = BodyWriter().count(len(refs))
    for key, generation in refs:
        w.string(key).i64(generation)
    return w


def decode_status_list(r: BodyReader) -> list:
    n = r.count(MAX_BATCH, 2, "statuses")
    out = [error_code(r.u16()) for _ in range(n)]
    r.finish()
    return out


# ---- GET_REPLICAS / EXISTS / REMOVE ----

def encode_keys(keys: Sequence[str]) -> BodyWriter:
    w = BodyWriter().count(len(keys))
    for k in keys:
        w.string(k)
    return w


class ReplicaListResult(NamedTuple):
    status: ErrorCode
    size: int
    crc: int
    generation: int
    expires_at: int
    replicas: list  # list[ReplicaLocation]

    MIN_BYTES = 2 + 4 + 4 + 8 + 8 + 4

    @staticmethod
    def decode(r: BodyReader) -> "ReplicaListResult":
        status = error_code(r.u16())
        size = r.index(MAX_VALUE_BYTES, "size")
        crc = r.u32()
        generation = r.i64()
        expires_at = r.i64()
        n = r.count(255, 10, "replica locations")
        return ReplicaListResult(status, size, crc, generation, expires_at,
                                 [ReplicaLocation.decode(r) for _ in range(n)])


def decode_replica_list_reply(r: BodyReader) -> list:
    n = r.count(MAX_BATCH, ReplicaListResult.MIN_BYTES, "replica lists")
    out = [ReplicaListResult.decode(r) for _ in range(n)]
    r.finish()
    return out


# ---- WRITE / READ ----

def encode_write(key: str, generation: int, s: Slice, value_size: int, crc: int, replicas: int,
                 expires_at: int, token: bytes, minor: int, metadata: "BlockMetadata | None" = None) -> BodyWriter:
    """A WRITE for a node whose agreed protocol minor is ``minor``: from 2.5 with the object's block metadata (None:
    none), which the node keeps with the replica for a new leader."""
    w = BodyWriter()
    _write_fields(w, key, generation, s, value_size, crc, replicas, expires_at, token, minor, metadata)
    return w


def _write_fields(w: BodyWriter, key, generation, s: Slice, value_size, crc, replicas, expires_at, token, minor,
                  metadata) -> None:
    w.string(key).i64(generation).i32(s.segment).i64(s.offset).i32(s.length).i32(s.value_offset)
    w.i32(value_size).i32(to_i32(crc)).u8(replicas).i64(expires_at).bytes(token)
    if minor >= WRITE_METADATA_MINOR:
        w.bool(metadata is not None)
        if metadata is not None:
            metadata.encode(w)


class WriteReply(NamedTuple):
    """A WRITE reply: the receipt when this write completed a verified replica (else empty) and, from protocol 2.2,
    whether the node sent that receipt to the master in a COMMIT before replying, so the put needs no PUT_END for it."""
    receipt: bytes
    committed: bool


def decode_write_reply(r: BodyReader, minor: int) -> WriteReply:
    """A WRITE reply on a connection whose agreed protocol minor is ``minor`` (the commit flag from 2.2 on)."""
    receipt = r.bytes(MAX_TOKEN_BYTES, "receipt")
    committed = minor >= COMMIT_MINOR and r.bool()
    r.finish()
    return WriteReply(receipt, committed)


def encode_read(key: str, generation: int, s: Slice, expires_at: int, token: bytes) -> BodyWriter:
    w = BodyWriter()
    w.string(key).i64(generation).i32(s.segment).i64(s.offset).i32(s.length).i64(expires_at).bytes(token)
    return w


def encode_read_object(key: str, generation: int, expires_at: int, token: bytes) -> BodyWriter:
    """READ_OBJECT (protocol 2.3): the whole value of (key, generation), from memory or the node's disk tier."""
    w = BodyWriter()
    w.string(key).i64(generation).i64(expires_at).bytes(token)
    return w


def decode_read_reply(r: BodyReader) -> int:
    n = r.index(MAX_VALUE_BYTES, "payload length")
    r.finish()
    return n


# ---- READ_BATCH / WRITE_BATCH (protocol 2.1) ----

def encode_read_batch(items: Sequence[tuple]) -> BodyWriter:
    """READ_BATCH: items (key, generation, slice, expires-at, token), each exactly a READ body."""
    w = BodyWriter().count(len(items))
    for key, generation, s, expires_at, token in items:
        w.string(key).i64(generation).i32(s.segment).i64(s.offset).i32(s.length).i64(expires_at).bytes(token)
    return w


class BatchResult(NamedTuple):
    """One item's outcome in a READ_BATCH reply (``length`` payload bytes when OK) or a WRITE_BATCH reply
    (``receipt`` when that write completed a verified replica, ``committed`` as in :class:`WriteReply`)."""
    status: ErrorCode
    length: int
    message: str
    receipt: bytes = b""
    committed: bool = False


def decode_read_batch_reply(r: BodyReader) -> list:
    n = r.count(MAX_BATCH, 2 + 4 + 2, "read results")
    out = []
    for _ in range(n):
        status = error_code(r.u16())
        length = r.index(MAX_VALUE_BYTES, "payload length")
        message = r.text()
        if status != ErrorCode.OK and length:
            raise ProtocolError(f"a refused read announces {length} payload bytes")
        out.append(BatchResult(status, length, message))
    r.finish()
    return out


def encode_write_batch(items: Sequence[tuple], minor: int) -> BodyWriter:
    """WRITE_BATCH: items (key, generation, slice, value size, crc, replicas, expires-at, token, metadata), each
    exactly a WRITE body for protocol minor ``minor``; the payload is every item's slice bytes in order."""
    w = BodyWriter().count(len(items))
    for key, generation, s, value_size, crc, replicas, expires_at, token, metadata in items:
        _write_fields(w, key, generation, s, value_size, crc, replicas, expires_at, token, minor, metadata)
    return w


def decode_write_batch_reply(r: BodyReader, minor: int) -> list:
    """A WRITE_BATCH reply on a connection whose agreed protocol minor is ``minor`` (each result's commit flag from
    2.2 on)."""
    flagged = minor >= COMMIT_MINOR
    n = r.count(MAX_BATCH, 2 + 2 + 2 + (1 if flagged else 0), "write results")
    out = []
    for _ in range(n):
        status = error_code(r.u16())
        message = r.text()
        receipt = r.bytes(MAX_TOKEN_BYTES, "receipt")
        out.append(BatchResult(status, 0, message, receipt, flagged and r.bool()))
    r.finish()
    return out


# ---- STATS / REMOVE_ALL / PIN ----

# STATS carries the disk tiers' totals from protocol 2.5 (PROTOCOL.md, "Pool totals")
STATS_DISK_MINOR = 5


class DiskTier(NamedTuple):
    """The storage nodes' disk tiers, summed over the nodes that are not dead: their caps, the bytes their files
    occupy on disk (what the caps bound), how many nodes have one and how many of those are degraded."""
    capacity: int
    used: int
    nodes: int
    degraded_nodes: int

    @staticmethod
    def decode(r: BodyReader) -> "DiskTier":
        capacity, used, nodes = r.i64(), r.i64(), r.i32()
        degraded = r.i32()
        if capacity < 0 or used < 0 or nodes < 0 or not 0 <= degraded <= nodes:
            raise ProtocolError(f"disk tier totals out of range: capacity {capacity}, used {used}, nodes {nodes},"
                                f" degraded {degraded}")
        return DiskTier(capacity, used, nodes, degraded)


NO_DISK_TIER = DiskTier(0, 0, 0, 0)


class PoolStats(NamedTuple):
    """Pool totals; ``capacity`` and ``used`` are the memory tier's. ``disk``: the disk tiers (protocol 2.5; all zero
    without disk tiers and from a master of protocol 2.4)."""
    capacity: int
    used: int
    objects: int
    alive_nodes: int
    state: ServerState
    disk: DiskTier = NO_DISK_TIER

    @staticmethod
    def decode(r: BodyReader, minor: int) -> "PoolStats":
        s = PoolStats(r.i64(), r.i64(), r.i64(), r.i32(), _enum(ServerState, r.u8(), "server state"),
                      DiskTier.decode(r) if minor >= STATS_DISK_MINOR else NO_DISK_TIER)
        r.finish()
        return s


def decode_count(r: BodyReader) -> int:
    n = r.i64()
    r.finish()
    return n


# REMOVE_MATCHING (PROTOCOL.md, "Removing by pattern")
REMOVE_MATCHING_MINOR = 4
MAX_PATTERN_BYTES = 1024


def pattern_problem(pattern: str) -> str | None:
    """Why a REMOVE_MATCHING pattern may not be sent (None: it may)."""
    size = len(pattern.encode("utf-8"))
    if not 0 < size <= MAX_PATTERN_BYTES:
        return f"pattern of {size} bytes; 1..{MAX_PATTERN_BYTES} UTF-8 bytes allowed in REMOVE_MATCHING"
    return None


class RemovedMatches(NamedTuple):
    """What a REMOVE_MATCHING did: objects removed; matching objects kept because they were being read, copied or
    written; whether every key was looked at (False: the master stopped at its time limit)."""
    removed: int
    kept: int
    finished: bool

    @staticmethod
    def decode(r: BodyReader) -> "RemovedMatches":
        m = RemovedMatches(r.i64(), r.i64(), r.bool())
        r.finish()
        return m


def encode_remove_matching(pattern: str) -> BodyWriter:
    return BodyWriter().string(pattern)


def encode_pin(key: str, pinned: bool) -> BodyWriter:
    return BodyWriter().string(key).bool(pinned)


# ---- extents (protocol 2.4, PROTOCOL.md "Extents") ----

EXTENT_MINOR = 4
MIN_EXTENT_BYTES = 64 << 10
MAX_EXTENT_BYTES = 64 << 20


class Extent(NamedTuple):
    """``length`` bytes at (segment, offset) of one storage node and the generations [first_generation,
    first_generation + generations), granted to this client until ``expires_at`` (master time); ``first_generation``
    names it, ``token`` is the master's signature the node checks. Its numbers are taken as they come: the node checks
    them against the token."""
    first_generation: int
    generations: int
    segment: int
    offset: int
    length: int
    expires_at: int
    token: bytes

    def encode(self, w: BodyWriter) -> None:
        w.i64(self.first_generation).i32(self.generations).i32(self.segment).i64(self.offset).i32(self.length)
        w.i64(self.expires_at).bytes(self.token)

    @staticmethod
    def decode(r: BodyReader) -> "Extent":
        return Extent(r.i64(), r.i32(), r.i32(), r.i64(), r.i32(), r.i64(), r.bytes(MAX_TOKEN_BYTES, "extent token"))


def encode_extent_grant(length: int, avoid: Sequence[str] = ()) -> BodyWriter:
    """EXTENT_GRANT: an extent of ``length`` bytes (64 KiB .. 64 MiB) on a node, none of ``avoid`` when others can
    serve."""
    w = BodyWriter().i32(length).count(len(avoid))
    for node in avoid:
        w.string(node)
    return w


class ExtentGrant(NamedTuple):
    """An EXTENT_GRANT reply: the extent on node ``node_id`` at ``endpoint``, or why not (``status`` not OK; the other
    fields are then empty)."""
    status: ErrorCode
    message: str
    node_id: str
    endpoint: str
    extent: Extent

    @staticmethod
    def decode(r: BodyReader) -> "ExtentGrant":
        g = ExtentGrant(error_code(r.u16()), r.text(), r.string(MAX_ID_BYTES, "node id"),
                        r.string(MAX_ENDPOINT_BYTES, "endpoint"), Extent.decode(r))
        r.finish()
        return g


def encode_extent_write(extent: Extent, key: str, generation: int, at: int, size: int, crc: int) -> BodyWriter:
    """EXTENT_WRITE: the ``size`` payload bytes that follow are the whole value of (key, generation), to go ``at``
    bytes into the extent (a multiple of 64)."""
    w = BodyWriter()
    extent.encode(w)
    w.string(key).i64(generation).i32(at).i32(size).i32(to_i32(crc))
    return w


def decode_empty(r: BodyReader) -> None:
    """A reply whose body is empty (EXTENT_WRITE's OK)."""
    r.finish()


def encode_extent_return(extents: Sequence[int]) -> BodyWriter:
    """EXTENT_RETURN: extents by first generation."""
    w = BodyWriter().count(len(extents))
    for first in extents:
        w.i64(first)
    return w
