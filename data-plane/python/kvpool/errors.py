"""Typed exceptions of the kvpool client and the protocol's error codes."""

from __future__ import annotations

import enum


class ErrorCode(enum.IntEnum):
    """Status of a request or of one entry of a batch (PROTOCOL.md, "Error codes")."""

    OK = 0
    MALFORMED_REQUEST = 1
    UNKNOWN_OPCODE = 2
    VERSION_MISMATCH = 3
    POOL_MISMATCH = 4
    NOT_FOUND = 5
    ALREADY_EXISTS = 6
    NO_SPACE = 7
    INVALID_STATE = 8
    OBJECT_LEASED = 9
    OUT_OF_BOUNDS = 10
    GRANT_REJECTED = 11
    CHECKSUM_MISMATCH = 12
    UNKNOWN_NODE = 13
    NODE_UNAVAILABLE = 14
    LIMIT_EXCEEDED = 15
    NOT_LEADER = 16
    INTERNAL = 17
    PUT_IN_PROGRESS = 18
    RECOVERING = 19
    STALE_VIEW = 20
    AUTH_REQUIRED = 21
    AUTH_FAILED = 22
    NODE_ID_IN_USE = 23
    BUSY = 24
    TOKEN_REJECTED = 25
    NOT_ENOUGH_NODES = 26
    WRITE_INCOMPLETE = 27

    @property
    def retryable(self) -> bool:
        """The same request may succeed later or elsewhere (the "retryable" column of PROTOCOL.md)."""
        return self in _RETRYABLE


_RETRYABLE = frozenset({
    ErrorCode.OBJECT_LEASED, ErrorCode.GRANT_REJECTED, ErrorCode.CHECKSUM_MISMATCH, ErrorCode.NODE_UNAVAILABLE,
    ErrorCode.NOT_LEADER, ErrorCode.PUT_IN_PROGRESS, ErrorCode.RECOVERING, ErrorCode.BUSY,
    ErrorCode.TOKEN_REJECTED, ErrorCode.WRITE_INCOMPLETE,
})


class KvPoolError(Exception):
    """Base of every error this client raises. ``code`` is the protocol's error code when a server named one."""

    def __init__(self, message: str, code: ErrorCode | None = None):
        super().__init__(message)
        self.code = code


class ProtocolError(KvPoolError):
    """A peer sent bytes that are not a valid frame or body; the connection that carried them is closed."""


class KvPoolTimeout(KvPoolError, TimeoutError):
    """A network exchange or an operation did not finish before its deadline."""


class ConnectionFailed(KvPoolError):
    """A server could not be reached, or the connection broke mid-exchange."""


class HandshakeRefused(KvPoolError):
    """A server refused the connection in its handshake (other than for versions: see VersionMismatch)."""


class VersionMismatch(HandshakeRefused):
    """The two sides speak incompatible protocol versions. The message names both releases and protocols."""

    def __init__(self, message: str, local: str = "", peer: str = ""):
        super().__init__(message, ErrorCode.VERSION_MISMATCH)
        self.local = local
        self.peer = peer


class PoolMismatch(HandshakeRefused):
    """The server belongs to another pool."""

    def __init__(self, message: str):
        super().__init__(message, ErrorCode.POOL_MISMATCH)


class AuthenticationError(HandshakeRefused):
    """Authentication with the pool's key failed (PROTOCOL.md, "Authentication")."""


class AuthenticationRequired(AuthenticationError):
    """The server authenticates its peers and this client has no pool key: give it the pool's client key."""

    def __init__(self, message: str):
        super().__init__(message, ErrorCode.AUTH_REQUIRED)


class AuthenticationFailed(AuthenticationError):
    """A wrong key (the server refused our proof), or a server that could not prove it holds the pool's key (or
    does not authenticate although this client was given one): the connection is refused."""

    def __init__(self, message: str):
        super().__init__(message, ErrorCode.AUTH_FAILED)


class TlsFailure(HandshakeRefused):
    """The TLS handshake failed: the server's certificate does not chain to the pool's CA, or the server does not
    speak TLS 1.3."""


class RemoteError(KvPoolError):
    """A server answered a request with an error frame or a failed batch status."""


class ObjectNotFound(RemoteError):
    """No complete object is stored under the key."""


class NoSpace(RemoteError):
    """The pool has no room for the value, or fewer storage nodes than the replicas asked for."""


class ChecksumMismatch(RemoteError):
    """Bytes did not match their CRC32C."""


class InvalidKey(ValueError):
    """A key that is not 1 to 4096 UTF-8 bytes: refused before anything is sent (a ValueError, as every bad
    argument)."""


class BufferTooSmall(KvPoolError):
    """The destination cannot hold the value; nothing was written into it."""


def remote_error(code: ErrorCode, message: str) -> RemoteError:
    """The typed exception for a server's error code."""
    if code == ErrorCode.NOT_FOUND:
        return ObjectNotFound(message, code)
    if code in (ErrorCode.NO_SPACE, ErrorCode.NOT_ENOUGH_NODES):
        return NoSpace(message, code)
    if code == ErrorCode.CHECKSUM_MISMATCH:
        return ChecksumMismatch(message, code)
    return RemoteError(f"{message} [{code.name}]", code)


def retryable(error: BaseException) -> bool:
    """Worth another attempt of the whole operation."""
    if isinstance(error, (ConnectionFailed, ChecksumMismatch, KvPoolTimeout)):
        return True
    return isinstance(error, KvPoolError) and error.code is not None and error.code.retryable
