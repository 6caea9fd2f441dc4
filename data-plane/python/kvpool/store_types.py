"""The values of Mooncake's store API as kvpool gives them: its error codes (and the mapping from kvpool's failures),
``ReplicateConfig``, the ``BufferHandle`` a get returns and the replica descriptors."""

from __future__ import annotations

import ctypes
import enum

from .errors import (BufferTooSmall, ChecksumMismatch, ConnectionFailed, ErrorCode, InvalidKey, KvPoolError,
                     KvPoolTimeout, ProtocolError, VersionMismatch)
from .messages import ReplicaListResult


class MooncakeError:
    """Mooncake's error codes (``mooncake::ErrorCode``) that this API returns."""
    OK = 0
    INTERNAL_ERROR = -1
    NO_AVAILABLE_HANDLE = -200
    INVALID_VERSION = -300
    INVALID_KEY = -400
    INVALID_PARAMS = -600
    ILLEGAL_CLIENT = -601
    OBJECT_NOT_FOUND = -704
    OBJECT_ALREADY_EXISTS = -705
    OBJECT_HAS_LEASE = -706
    TRANSFER_FAIL = -800
    CHECKSUM_MISMATCH = -801
    RPC_FAIL = -900
    RPC_TIMEOUT = -901
    UNAVAILABLE_IN_CURRENT_STATUS = -1010
    # kvpool's own, for a refusal Mooncake has no code for: -10000 - the protocol's error code
    POOL_MISMATCH = -10000 - ErrorCode.POOL_MISMATCH  # -10004: the master serves another pool than pool_id


_BY_KVPOOL_CODE = {
    ErrorCode.NOT_FOUND: MooncakeError.OBJECT_NOT_FOUND,
    ErrorCode.ALREADY_EXISTS: MooncakeError.OBJECT_ALREADY_EXISTS,
    ErrorCode.OBJECT_LEASED: MooncakeError.OBJECT_HAS_LEASE,
    ErrorCode.PUT_IN_PROGRESS: MooncakeError.OBJECT_HAS_LEASE,
    ErrorCode.NO_SPACE: MooncakeError.NO_AVAILABLE_HANDLE,
    ErrorCode.NOT_ENOUGH_NODES: MooncakeError.NO_AVAILABLE_HANDLE,
    ErrorCode.CHECKSUM_MISMATCH: MooncakeError.CHECKSUM_MISMATCH,
    ErrorCode.LIMIT_EXCEEDED: MooncakeError.INVALID_PARAMS,
    ErrorCode.MALFORMED_REQUEST: MooncakeError.INVALID_PARAMS,  # e.g. a pattern RE2 does not accept
    ErrorCode.VERSION_MISMATCH: MooncakeError.INVALID_VERSION,
    ErrorCode.RECOVERING: MooncakeError.UNAVAILABLE_IN_CURRENT_STATUS,
    ErrorCode.NOT_LEADER: MooncakeError.RPC_FAIL,
    ErrorCode.AUTH_REQUIRED: MooncakeError.ILLEGAL_CLIENT,
    ErrorCode.AUTH_FAILED: MooncakeError.ILLEGAL_CLIENT,
    ErrorCode.POOL_MISMATCH: MooncakeError.POOL_MISMATCH,
}


def mooncake_status(status: ErrorCode) -> int:
    """The Mooncake error code closest to a kvpool status."""
    return _BY_KVPOOL_CODE.get(status, MooncakeError.INTERNAL_ERROR)


def mooncake_code(error: BaseException) -> int:
    """The Mooncake error code closest to a kvpool failure."""
    if isinstance(error, VersionMismatch):
        return MooncakeError.INVALID_VERSION
    if isinstance(error, InvalidKey):
        return MooncakeError.INVALID_KEY
    if isinstance(error, (BufferTooSmall, ValueError, TypeError)):
        return MooncakeError.INVALID_PARAMS
    if isinstance(error, ChecksumMismatch):
        return MooncakeError.CHECKSUM_MISMATCH
    if isinstance(error, KvPoolError) and error.code in _BY_KVPOOL_CODE:
        return _BY_KVPOOL_CODE[error.code]
    if isinstance(error, KvPoolTimeout):
        return MooncakeError.RPC_TIMEOUT
    if isinstance(error, (ConnectionFailed, ProtocolError)):
        return MooncakeError.RPC_FAIL
    return MooncakeError.INTERNAL_ERROR


class ReplicateConfig:
    """Mooncake's ``ReplicateConfig``: ``replica_num`` and ``with_soft_pin`` are honoured; the placement hints
    (``preferred_segment``, ``prefer_alloc_in_same_node``) are accepted and ignored (kvpool places replicas)."""

    def __init__(self, replica_num: int = 0, with_soft_pin: bool = False, preferred_segment: str = "",
                 prefer_alloc_in_same_node: bool = False):
        self.replica_num = replica_num  # 0: the pool's default (KVPOOL_OBJECT_REPLICAS)
        self.with_soft_pin = with_soft_pin
        self.preferred_segment = preferred_segment
        self.prefer_alloc_in_same_node = prefer_alloc_in_same_node

    def __repr__(self) -> str:
        return (f"ReplicateConfig(replica_num={self.replica_num}, with_soft_pin={self.with_soft_pin},"
                f" preferred_segment={self.preferred_segment!r})")


class BufferHandle(bytearray):
    """Mooncake's ``BufferHandle`` (from :meth:`KvPoolStore.get_buffer`): the value, read straight into memory of its
    own. A bytearray, so it has the buffer protocol (``memoryview``, ``numpy.frombuffer``, ``torch.frombuffer`` use
    it in place), plus Mooncake's ``ptr()`` (its address) and ``size()``."""

    __slots__ = ()

    def ptr(self) -> int:
        return ctypes.addressof(ctypes.c_char.from_buffer(self))

    def size(self) -> int:
        return len(self)


class ReplicaStatus(enum.Enum):
    """Mooncake's ``ReplicaStatus``; a replica kvpool names is always COMPLETE (readable)."""
    COMPLETE = "COMPLETE"


class BufferDescriptor:
    """Mooncake's buffer ``Descriptor``: ``size`` (the value's bytes), ``transport_endpoint`` (the storage node's RPC
    address) and ``buffer_address`` (the offset of the value's first slice in the node's segment: kvpool nodes are
    reached over TCP, not by address). kvpool adds ``node_id`` and ``slices`` (segment, offset, length,
    value_offset)."""

    def __init__(self, size: int, transport_endpoint: str, buffer_address: int, node_id: str, slices: list):
        self.size = size
        self.transport_endpoint = transport_endpoint
        self.buffer_address = buffer_address
        self.node_id = node_id
        self.slices = slices

    def __repr__(self) -> str:
        return (f"<Descriptor size={self.size} buffer_address={self.buffer_address}"
                f" transport_endpoint={self.transport_endpoint} node_id={self.node_id}>")


class MemoryDescriptor:
    def __init__(self, buffer_descriptor: BufferDescriptor):
        self.buffer_descriptor = buffer_descriptor


class ReplicaDescriptor:
    """Mooncake's ``ReplicaDescriptor`` of one replica: kvpool keeps replicas in storage nodes' memory only."""

    def __init__(self, memory: MemoryDescriptor):
        self.status = ReplicaStatus.COMPLETE
        self._memory = memory

    def is_memory_replica(self) -> bool:
        return True

    def is_disk_replica(self) -> bool:
        return False

    def is_local_disk_replica(self) -> bool:
        return False

    def get_memory_descriptor(self) -> MemoryDescriptor:
        return self._memory

    def get_disk_descriptor(self):
        raise ValueError("kvpool replicas are memory replicas: there is no disk descriptor")

    def __repr__(self) -> str:
        return f"ReplicaDescriptor(status={self.status.name}, memory={self._memory.buffer_descriptor!r})"


def replica_descriptors(r: ReplicaListResult) -> list:
    return [ReplicaDescriptor(MemoryDescriptor(BufferDescriptor(
        r.size, loc.endpoint, loc.slices[0].offset if loc.slices else 0, loc.node_id, list(loc.slices))))
        for loc in r.replicas]
