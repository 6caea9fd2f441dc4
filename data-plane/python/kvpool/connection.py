"""One TCP connection to a kvpool server: the handshake, then frames (PROTOCOL.md, "Frame").

Every socket operation runs against the deadline of the current exchange (:meth:`Connection.arm`), so a peer that
stalls or sends garbage ends in :class:`KvPoolTimeout` or :class:`ProtocolError`, never a hang. The socket stays in
blocking mode with the kernel's SO_RCVTIMEO/SO_SNDTIMEO set to what is left of the deadline (Python's own socket
timeouts would add a poll() before every call), and the deadline is checked again after every call. Value payloads
move between the socket and the caller's buffers directly: ``sendmsg`` gathers header, body and payload views in one
call, and ``recv_into(MSG_WAITALL)`` fills the caller's memoryviews in as few calls as the kernel allows.
"""

from __future__ import annotations

import hmac
import ipaddress
import os
import re
import socket
import ssl
import struct
import time
from typing import NamedTuple, Sequence

from . import version as versions
from .codec import MAX_TEXT_BYTES, BodyReader, BodyWriter
from .auth import PROOF_BYTES, PoolKey
from .errors import (AuthenticationFailed, AuthenticationRequired, ConnectionFailed, ErrorCode, HandshakeRefused,
                     KvPoolError, KvPoolTimeout, PoolMismatch, ProtocolError, TlsFailure, VersionMismatch,
                     remote_error)
from .messages import NONCE_BYTES, ErrorReply, HandshakePrefix, HandshakeReply, Opcode, encode_handshake

MAGIC = 0x4B565031  # "KVP1"
HEADER = struct.Struct(">IBBHHHQI")
HEADER_BYTES = HEADER.size
FLAG_RESPONSE = 1
FLAG_ERROR = 2
MAX_BODY_BYTES = 64 << 20
HANDSHAKE_BODY_BYTES = 4 << 10
# PROTOCOL.md: 4 MiB receive buffers; 4 MiB send buffers to another machine, 128 KiB to a peer on this one
RECEIVE_BUFFER_BYTES = 4 << 20
REMOTE_SEND_BUFFER_BYTES = 4 << 20
LOCAL_SEND_BUFFER_BYTES = 128 << 10
_STAGING_BYTES = 16 << 10
_BODY_CHUNK = 1 << 20
_MAX_IOV = 512
_EMPTY = b""
_TIMEVAL = struct.Struct("@ll")
_WAITALL = socket.MSG_WAITALL


class Endpoint(NamedTuple):
    host: str
    port: int

    @staticmethod
    def parse(text: str) -> "Endpoint":
        """``host:port``, with IPv6 literals in brackets (``[fd00::5]:50052``)."""
        t = text.strip()
        m = re.fullmatch(r"\[([0-9A-Fa-f:.%a-zA-Z0-9]+)\]:(\d{1,5})", t) if t.startswith("[") else \
            re.fullmatch(r"([^:\s\[\]]+):(\d{1,5})", t)
        if not m or not 0 < int(m.group(2)) < 65536:
            raise ValueError(f"endpoint '{text}' is not HOST:PORT (IPv6 as [ADDR]:PORT), e.g. 127.0.0.1:7000")
        return Endpoint(m.group(1), int(m.group(2)))

    @staticmethod
    def parse_list(text: str) -> list:
        endpoints = [Endpoint.parse(part) for part in text.split(",") if part.strip()]
        if not endpoints:
            raise ValueError("no master endpoint given: expected HOST:PORT[,HOST:PORT...]")
        return endpoints

    def __str__(self) -> str:
        return f"[{self.host}]:{self.port}" if ":" in self.host else f"{self.host}:{self.port}"


def is_local_peer(local: tuple, remote: tuple) -> bool:
    """Whether ``remote`` (a socket's peer address) is on this machine: a loopback address or the socket's own."""
    try:
        peer = ipaddress.ip_address(remote[0].split("%")[0])
    except (ValueError, IndexError, AttributeError):
        return False
    # a dual-stack socket names an IPv4 peer as ::ffff:a.b.c.d; Java sees the IPv4 address, so must this rule
    mapped = getattr(peer, "ipv4_mapped", None)
    return (mapped or peer).is_loopback or remote[0] == local[0]


def send_buffer_bytes(sock: socket.socket) -> int:
    """The send buffer for a connected socket: small to a peer on this machine, large to another (PROTOCOL.md)."""
    try:
        local = is_local_peer(sock.getsockname(), sock.getpeername())
    except OSError:
        local = False
    return LOCAL_SEND_BUFFER_BYTES if local else REMOTE_SEND_BUFFER_BYTES


def tls_context(ca_file: str) -> ssl.SSLContext:
    """TLS 1.3 verifying that servers' certificates chain to the pool's CA (``ca.crt``); host names are not checked
    (PROTOCOL.md, "TLS": peers are dialled by pod IP, and the pool key admits them)."""
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    context.minimum_version = ssl.TLSVersion.TLSv1_3
    context.check_hostname = False
    context.verify_mode = ssl.CERT_REQUIRED
    context.load_verify_locations(cafile=ca_file)
    return context


def connect_socket(endpoint: Endpoint, timeout: float) -> socket.socket:
    """A TCP connection to ``endpoint`` within ``timeout`` seconds: KvPoolTimeout, or ConnectionFailed (a host that
    does not resolve, nothing listening, no route)."""
    try:
        return socket.create_connection((endpoint.host, endpoint.port), timeout=max(0.001, timeout))
    except socket.timeout:
        raise KvPoolTimeout(f"no connection to {endpoint} within {timeout:.1f} s") from None
    except OSError as e:
        raise ConnectionFailed(f"cannot connect to {endpoint}: {e.strerror or e}") from None


class Connection:
    """Client side of one connection. Not thread-safe: one exchange at a time (pools hand it to one thread)."""

    def __init__(self, sock: socket.socket, endpoint: Endpoint, major: int, minor: int, tls: bool = False):
        self.sock = sock
        self.tls = tls  # an SSLSocket: Python's socket timeouts, no sendmsg, no recv flags
        self.endpoint = endpoint
        self.major = major
        self.minor = minor
        self.peer: HandshakeReply | None = None
        self.deadline = 0.0
        self._kernel_timeout = 0.0  # seconds SO_RCVTIMEO/SO_SNDTIMEO are set to
        self.broken = False
        self.idle_since = 0.0
        self._next_id = 1
        self._staging = bytearray(_STAGING_BYTES)
        self._view = memoryview(self._staging)
        self._start = 0  # unread staged bytes are [_start, _end)
        self._end = 0

    # ---- opening ----

    @classmethod
    def open(cls, endpoint: Endpoint, local: HandshakePrefix, timeout: float, key: PoolKey | None = None,
             tls: ssl.SSLContext | None = None) -> "Connection":
        """Connects (over TLS with a ``tls`` context), handshakes and, with a pool ``key``, authenticates within
        ``timeout`` seconds; typed errors for every refusal."""
        deadline = time.monotonic() + timeout
        return cls.over(connect_socket(endpoint, timeout), endpoint, local, deadline, key, tls)

    @classmethod
    def over(cls, sock: socket.socket, endpoint: Endpoint, local: HandshakePrefix, deadline: float,
             key: PoolKey | None = None, tls: ssl.SSLContext | None = None) -> "Connection":
        """The handshake (TLS first with a ``tls`` context, then authentication with a pool ``key``) on a connected
        socket, by ``deadline`` (monotonic); the socket is closed when it fails."""
        conn = cls(sock, endpoint, local.major, local.minor, tls is not None)
        try:
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE, 1)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, send_buffer_bytes(sock))
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, RECEIVE_BUFFER_BYTES)
            if tls is not None:
                conn.sock = sock = conn._start_tls(sock, tls, deadline)
            else:
                sock.settimeout(None)
            conn.arm_until(deadline)
            conn.peer = conn._handshake(local, key)
            return conn
        except BaseException:
            conn.close()
            raise

    def _start_tls(self, sock: socket.socket, tls: ssl.SSLContext, deadline: float) -> ssl.SSLSocket:
        sock.settimeout(max(0.001, deadline - time.monotonic()))
        try:
            return tls.wrap_socket(sock)
        except ssl.SSLCertVerificationError as e:
            raise TlsFailure(f"{self.endpoint}'s certificate does not chain to the pool's CA: {e.verify_message}")\
                from None
        except socket.timeout:
            raise KvPoolTimeout(f"no TLS handshake with {self.endpoint} before the deadline") from None
        except ssl.SSLError as e:
            raise TlsFailure(f"TLS handshake with {self.endpoint} failed ({e.reason or e}): does it run TLS 1.3?")\
                from None
        except OSError as e:
            raise ConnectionFailed(f"TLS handshake with {self.endpoint} failed: {e.strerror or e}"
                                   " (a server without TLS closes the connection)") from None

    def _handshake(self, local: HandshakePrefix, key: PoolKey | None) -> HandshakeReply:
        request = bytes(encode_handshake(local, os.urandom(NONCE_BYTES), key_id=key.id if key else b"").buf)
        self._send_frame(Opcode.HANDSHAKE, 0, request, ())
        flags, body = self._read_frame(Opcode.HANDSHAKE, 0, handshake=True)
        r = BodyReader(body)
        if flags & FLAG_ERROR:
            raise self._refusal(ErrorReply.decode(r), local)
        prefix = HandshakePrefix.decode(r)
        problem = versions.incompatibility(local.release, local.major, local.minor,
                                           prefix.release, prefix.major, prefix.minor)
        if problem is not None:
            raise VersionMismatch(f"refusing {self.endpoint}: {problem}", f"{local.release}/{local.major}.{local.minor}",
                                  f"{prefix.release}/{prefix.major}.{prefix.minor}")
        if local.pool_id and prefix.pool_id and local.pool_id != prefix.pool_id:
            raise PoolMismatch(f"refusing {self.endpoint}: pool id mismatch: local pool '{local.pool_id}', peer pool"
                               f" '{prefix.pool_id}' (connect to the right master or fix the pool id)")
        reply = HandshakeReply.decode_rest(prefix, r)
        self._authenticate(reply, key, request, local)
        return reply

    def _refusal(self, error: ErrorReply, local: HandshakePrefix) -> HandshakeRefused:
        message = f"refused by {self.endpoint}: {error.message}"
        if error.code == ErrorCode.VERSION_MISMATCH:
            return _version_mismatch(message, local)
        if error.code == ErrorCode.POOL_MISMATCH:
            return PoolMismatch(message)
        if error.code == ErrorCode.AUTH_REQUIRED:
            return AuthenticationRequired(f"{message} (give the client the pool's client key: KVPOOL_CLIENT_KEY)")
        if error.code == ErrorCode.AUTH_FAILED:
            return AuthenticationFailed(message)
        return HandshakeRefused(f"{message} [{error.code.name}]", error.code)

    def _authenticate(self, reply: HandshakeReply, key: PoolKey | None, request: bytes,
                      local: HandshakePrefix) -> None:
        """The server proves it holds the pool's key first; only then does this side prove it (AUTH)."""
        if not reply.auth:
            if key is not None:
                raise AuthenticationFailed(f"{self.endpoint} does not authenticate peers but this client was given the"
                                           " pool's key: refusing a server that cannot prove it belongs to the pool")
            return
        if key is None:
            raise AuthenticationRequired(f"{self.endpoint} authenticates peers and this client has no pool key: give"
                                         " it the pool's client key (KVPOOL_CLIENT_KEY or KVPOOL_CLIENT_KEY_FILE)")
        if len(reply.nonce) != NONCE_BYTES or len(reply.proof) != PROOF_BYTES:
            raise ProtocolError(f"{self.endpoint} asks for authentication with a nonce of {len(reply.nonce)} and a"
                                f" proof of {len(reply.proof)} bytes, expected {NONCE_BYTES} and {PROOF_BYTES}")
        if not hmac.compare_digest(key.server_proof(request, reply.nonce), reply.proof):
            raise AuthenticationFailed(f"{self.endpoint} could not prove it holds the pool's key: refusing it")
        self._send_frame(Opcode.AUTH, 0, BodyWriter().bytes(key.client_proof(request, reply.nonce)).buf, ())
        flags, body = self._read_frame(Opcode.AUTH, 0, handshake=True)
        r = BodyReader(body)
        if flags & FLAG_ERROR:
            raise self._refusal(ErrorReply.decode(r), local)
        r.finish()

    # ---- deadlines ----

    def arm(self, timeout: float) -> None:
        """Starts an exchange: every socket operation until the next arm must finish within ``timeout`` seconds."""
        self.arm_until(time.monotonic() + timeout)

    def arm_until(self, deadline: float) -> None:
        self.deadline = deadline
        if self.tls:
            return  # each call sets Python's socket timeout (_remaining)
        left = max(0.001, deadline - time.monotonic())
        if not 0.9 * self._kernel_timeout <= left <= self._kernel_timeout:  # usually unchanged: no system call
            self._set_kernel_timeout(left)

    def _set_kernel_timeout(self, seconds: float) -> None:
        whole = int(seconds)
        timeval = _TIMEVAL.pack(whole, int((seconds - whole) * 1e6))
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVTIMEO, timeval)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDTIMEO, timeval)
        self._kernel_timeout = seconds

    def _remaining(self) -> None:
        """Fails once the deadline has passed; keeps the kernel's wait at most a little past it."""
        left = self.deadline - time.monotonic()
        if left <= 0:
            raise KvPoolTimeout(f"no complete exchange with {self.endpoint} before the deadline")
        if self.tls:
            self.sock.settimeout(left)
        elif left < self._kernel_timeout * 0.9:
            self._set_kernel_timeout(left)

    # ---- sending ----

    def send(self, opcode: int, body: BodyWriter | None, payload: Sequence = ()) -> int:
        """Sends a request (with optional payload views) and returns its request id; read the reply with
        :meth:`receive`. Requests may be pipelined: replies come in request order."""
        request_id = self._next_id
        self._next_id += 1
        self._send_frame(opcode, request_id, body.buf if body is not None else _EMPTY, payload)
        return request_id

    def _send_frame(self, opcode: int, request_id: int, body, payload: Sequence) -> None:
        head = HEADER.pack(MAGIC, self.major, self.minor, opcode, 0, 0, request_id, len(body)) + body
        try:
            if self.tls:
                self._send_tls([head, *payload])
                return
            if not payload:
                self._remaining()
                sent = self.sock.send(head)
                if sent == len(head):
                    return
                payload, head = (memoryview(head)[sent:],), b""
            self._send_gathered([head, *payload])
        except KvPoolError:
            self.broken = True
            raise
        except (socket.timeout, BlockingIOError):
            self.broken = True
            raise KvPoolTimeout(f"sending to {self.endpoint} did not finish before the deadline") from None
        except OSError as e:
            self.broken = True
            raise ConnectionFailed(f"sending to {self.endpoint} failed: {e.strerror or e}") from None

    def _send_tls(self, buffers: list) -> None:
        """SSLSocket has no sendmsg: each buffer in pieces of at most 1 MiB, the deadline checked between them."""
        for b in buffers:
            view = memoryview(b).cast("B") if not isinstance(b, bytes) else memoryview(b)
            for start in range(0, len(view), _BODY_CHUNK):
                self._remaining()
                self.sock.sendall(view[start:start + _BODY_CHUNK])

    def _send_gathered(self, buffers: list) -> None:
        pending = [memoryview(b).cast("B") if not isinstance(b, bytes) else b for b in buffers if len(b)]
        while pending:
            self._remaining()
            batch = pending[:_MAX_IOV]
            sent = self.sock.sendmsg(batch)
            total = sum(len(b) for b in batch)
            if sent == total:
                del pending[:len(batch)]
                continue
            i = 0
            while sent >= len(pending[i]):
                sent -= len(pending[i])
                i += 1
            del pending[:i]
            pending[0] = memoryview(pending[0])[sent:]

    # ---- receiving ----

    def receive(self, opcode: int, request_id: int) -> BodyReader:
        """The reply to request ``request_id``. A server error raises its typed :class:`RemoteError` (the
        connection stays usable). The reader is valid until the next receive on this connection."""
        try:
            flags, body = self._read_frame(opcode, request_id, handshake=False)
        except KvPoolError:
            self.broken = True
            raise
        if flags & FLAG_ERROR:
            try:
                error = ErrorReply.decode(BodyReader(body))
            except ProtocolError:
                self.broken = True
                raise
            raise remote_error(error.code, f"{Opcode(opcode).name} at {self.endpoint}: {error.message}")
        return BodyReader(body)

    def _read_frame(self, opcode: int, request_id: int, handshake: bool):
        try:
            self._fill(HEADER_BYTES)
            magic, major, _minor, op, flags, reserved, rid, length = HEADER.unpack_from(self._staging, self._start)
            self._start += HEADER_BYTES
            if magic != MAGIC:
                raise ProtocolError(f"bad magic 0x{magic:08x} from {self.endpoint}: not a kvpool peer")
            if flags & ~(FLAG_RESPONSE | FLAG_ERROR):
                raise ProtocolError(f"unknown header flags 0x{flags:x} from {self.endpoint}")
            if reserved:
                raise ProtocolError(f"reserved header field is {reserved} from {self.endpoint}, expected 0")
            limit = MAX_BODY_BYTES
            if handshake:
                limit = MAX_TEXT_BYTES + 4 if flags & FLAG_ERROR else HANDSHAKE_BODY_BYTES
            if length > limit:
                raise ProtocolError(f"frame body of {length} bytes from {self.endpoint} exceeds the limit of {limit}")
            if not flags & FLAG_RESPONSE or rid != request_id or op != opcode:
                raise ProtocolError(f"reply from {self.endpoint} (opcode {op}, request {rid}, flags {flags}) does"
                                    f" not match request {Opcode(opcode).name} #{request_id}")
            if not handshake and major != self.major:
                raise ProtocolError(f"frame from {self.endpoint} carries protocol major {major}, agreed {self.major}")
            return flags, self._read_body(length)
        except (socket.timeout, BlockingIOError):
            raise KvPoolTimeout(f"no complete reply from {self.endpoint} to {Opcode(opcode).name} before the"
                                f" deadline") from None
        except OSError as e:
            raise ConnectionFailed(f"reading from {self.endpoint} failed: {e.strerror or e}") from None

    def _read_body(self, length: int):
        if length <= _STAGING_BYTES:
            self._fill(length)
            body = self._view[self._start:self._start + length]
            self._start += length
            return body
        # a large body: never allocate by the declared length before the bytes arrive
        parts = []
        staged = min(length, self._end - self._start)
        parts.append(bytes(self._view[self._start:self._start + staged]))
        self._start += staged
        left = length - staged
        while left:
            chunk = bytearray(min(left, _BODY_CHUNK))
            self._recv_exactly(memoryview(chunk))
            parts.append(chunk)
            left -= len(chunk)
        return b"".join(parts)

    def _fill(self, n: int) -> None:
        """Makes at least ``n`` (at most the staging size) unread bytes available."""
        if self._end - self._start >= n:
            return
        if self._start:
            unread = self._end - self._start
            self._view[:unread] = bytes(self._view[self._start:self._end])
            self._start, self._end = 0, unread
        while self._end < n:
            self._remaining()
            got = self.sock.recv_into(self._view[self._end:])
            if not got:
                raise ConnectionFailed(f"{self.endpoint} closed the connection"
                                       + (f" inside a frame ({self._end} of {n} bytes)" if self._end else ""))
            self._end += got

    def _recv_exactly(self, view: memoryview) -> None:
        got_total = 0
        size = len(view)
        while got_total < size:
            self._remaining()
            got = self.sock.recv_into(view[got_total:], 0, 0 if self.tls else _WAITALL)
            if not got:
                raise ConnectionFailed(f"{self.endpoint} closed the connection with {size - got_total} bytes missing")
            got_total += got

    def read_payload(self, views: Sequence[memoryview]) -> None:
        """Fills each view completely, in order, with the payload that follows the last reply."""
        try:
            for view in views:
                staged = min(len(view), self._end - self._start)
                if staged:
                    view[:staged] = self._view[self._start:self._start + staged]
                    self._start += staged
                if staged < len(view):
                    self._recv_exactly(view[staged:])
        except (socket.timeout, BlockingIOError):
            self.broken = True
            raise KvPoolTimeout(f"payload from {self.endpoint} did not arrive before the deadline") from None
        except OSError as e:
            self.broken = True
            raise ConnectionFailed(f"reading a payload from {self.endpoint} failed: {e.strerror or e}") from None
        except KvPoolError:
            self.broken = True
            raise

    # ---- life cycle ----

    @property
    def agreed_minor(self) -> int:
        """The protocol minor both sides speak on this handshaken connection: the older of the two (PROTOCOL.md,
        "HANDSHAKE"); it decides which requests may be sent and how replies are laid out."""
        return min(self.minor, self.peer.prefix.minor)

    @property
    def usable(self) -> bool:
        return not self.broken and self.sock.fileno() >= 0

    def close(self) -> None:
        self.broken = True
        try:
            self.sock.close()
        except OSError:
            pass


_VERSIONS = re.compile(r"local release (\S+) speaks protocol (\d+\.\d+), peer release (\S+) speaks protocol (\d+\.\d+)")


def _version_mismatch(message: str, local: HandshakePrefix) -> VersionMismatch:
    """The server's refusal names its own version as "local" and ours as "peer"."""
    m = _VERSIONS.search(message)
    ours = f"{local.release}/{local.major}.{local.minor}"
    if not m:
        return VersionMismatch(message, ours, "")
    return VersionMismatch(message, ours, f"{m.group(1)}/{m.group(2)}")
