"""Python client of kvpool, a Kubernetes-native KV-cache pool (wire protocol 2.4).

- :class:`KvPoolClient` / :class:`ClientConfig`: the client (typed exceptions in :mod:`kvpool.errors`);
- :class:`kvpool.store.KvPoolStore`: the Mooncake-store-compatible API;
- :mod:`kvpool.integrations.vllm_ascend`: a backend for vLLM-Ascend's KV pool;
- ``python -m kvpool.bench``: throughput next to the Java client on the same pool.
"""

from .client import KvPoolClient
from .config import ClientConfig
from .auth import PoolKey
from .errors import (AuthenticationError, AuthenticationFailed, AuthenticationRequired, BufferTooSmall, ChecksumMismatch, ConnectionFailed, ErrorCode,
                     HandshakeRefused, InvalidKey, KvPoolError, KvPoolTimeout, NoSpace, ObjectNotFound, PoolMismatch,
                     ProtocolError, RemoteError, TlsFailure, VersionMismatch)
from .memory import Regions
from .messages import BlockMetadata
from .version import PROTOCOL_MAJOR, PROTOCOL_MINOR, RELEASE

__version__ = RELEASE

__all__ = [
    "KvPoolClient", "ClientConfig", "Regions", "BlockMetadata", "ErrorCode", "KvPoolError", "ProtocolError", "KvPoolTimeout",
    "ConnectionFailed", "HandshakeRefused", "VersionMismatch", "PoolMismatch", "AuthenticationError",
    "AuthenticationRequired", "AuthenticationFailed", "PoolKey",
    "RemoteError", "ObjectNotFound", "InvalidKey", "TlsFailure", "NoSpace", "ChecksumMismatch", "BufferTooSmall", "RELEASE", "PROTOCOL_MAJOR",
    "PROTOCOL_MINOR",
]
