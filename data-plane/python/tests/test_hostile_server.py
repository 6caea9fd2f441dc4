"""A server that stalls, garbles its frames, lies about lengths or closes mid-frame never hangs the client: every
case ends in a typed error (KvPoolTimeout, ProtocolError, ConnectionFailed...) within the configured deadline. The
servers here are tiny fakes in the test (the only fake servers of the suite); the leader-following cases pair a fake
standby with the real pool."""

import os
import socket
import struct
import threading
import time

import pytest

from kvpool import (PROTOCOL_MAJOR, PROTOCOL_MINOR, AuthenticationRequired, ClientConfig, ConnectionFailed,
                    KvPoolClient, KvPoolError, KvPoolTimeout, ProtocolError)
from kvpool.checksum import crc32c
from kvpool.codec import BodyWriter, to_i32
from kvpool.messages import NO_DISK_TIER

HEADER = struct.Struct(">IBBHHHQI")
MAGIC = 0x4B565031
TIMEOUT = 0.5
OPERATION_TIMEOUT = 2.0
SLACK = 3.0  # scheduling on a busy 2-core machine; a hang would last the 30 s the fakes stall


def frame(opcode, request_id, body=b"", flags=1, magic=MAGIC, major=2, length=None):
    return HEADER.pack(magic, major, 0, opcode, flags, 0, request_id, len(body) if length is None else length) + body


def handshake_reply(state=0, leader="", auth=False, role=3, nonce=None, proof=None, minor=PROTOCOL_MINOR):
    w = BodyWriter().string("0.2.0").u8(PROTOCOL_MAJOR).u8(minor).u8(role).string("").string("fake")
    w.i64(0).u8(state).string(leader).bool(auth)
    w.bytes(nonce or (os.urandom(32) if auth else b"")).bytes(proof or (os.urandom(32) if auth else b""))
    return bytes(w.buf)


def read_frame(conn):
    head = b""
    while len(head) < 24:
        chunk = conn.recv(24 - len(head))
        if not chunk:
            return None
        head += chunk
    _, _, _, opcode, _, _, rid, length = HEADER.unpack(head)
    body = b""
    while len(body) < length:
        chunk = conn.recv(length - len(body))
        if not chunk:
            return None
        body += chunk
    return opcode, rid, body


class FakeServer:
    """Accepts connections on 127.0.0.1 and runs ``behaviour(conn)`` for each on its own thread."""

    def __init__(self, behaviour):
        self.behaviour = behaviour
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(64)
        self.address = f"127.0.0.1:{self.sock.getsockname()[1]}"
        self.connections = []
        self.stopped = threading.Event()
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self):
        while not self.stopped.is_set():
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.connections.append(conn)
            threading.Thread(target=self._serve, args=(conn,), daemon=True).start()

    def _serve(self, conn):
        try:
            self.behaviour(conn)
            self.stopped.wait(30)  # then stall: never close first
        except OSError:
            pass

    def close(self):
        self.stopped.set()
        self.sock.close()
        for c in self.connections:
            c.close()


def after_handshake(reply_to_request):
    """A server with a valid handshake that answers the first request with ``reply_to_request(opcode, id)``."""
    def behaviour(conn):
        first = read_frame(conn)
        conn.sendall(frame(1, first[1], handshake_reply()))
        request = read_frame(conn)
        if request is not None:
            conn.sendall(reply_to_request(request[0], request[1]))
    return behaviour


def _stats_body(disk=None):
    """A STATS reply: 1 GiB, nothing used, one node, SERVING; ``disk`` (capacity, used, tiers, degraded) is the
    trailing block of protocol 2.5, left out for a master of 2.4."""
    w = BodyWriter().i64(1 << 30).i64(0).i64(0).i32(1).u8(0)
    if disk is not None:
        w.i64(disk[0]).i64(disk[1]).i32(disk[2]).i32(disk[3])
    return bytes(w.buf)


CASES = {
    "silent after accept": (lambda conn: None, KvPoolTimeout),
    "closes at once": (lambda conn: conn.close(), ConnectionFailed),
    "random bytes": (lambda conn: conn.sendall(os.urandom(64)), ProtocolError),
    "bad magic": (lambda conn: (read_frame(conn), conn.sendall(frame(1, 0, handshake_reply(), magic=0x12345678))),
                  ProtocolError),
    "unknown flag bits": (lambda conn: (read_frame(conn), conn.sendall(frame(1, 0, handshake_reply(), flags=5))),
                          ProtocolError),
    "2 GiB handshake body": (lambda conn: (read_frame(conn), conn.sendall(frame(1, 0, b"", length=2 << 30))),
                             ProtocolError),
    "half a header then silence": (lambda conn: (read_frame(conn), conn.sendall(frame(1, 0, handshake_reply())[:10])),
                                   KvPoolTimeout),
    "body cut short then silence": (lambda conn: (read_frame(conn),
                                                  conn.sendall(frame(1, 0, handshake_reply())[:-5])), KvPoolTimeout),
    "truncated handshake body": (lambda conn: (read_frame(conn), conn.sendall(frame(1, 0, handshake_reply()[:-3]))),
                                 ProtocolError),
    "trailing bytes in the handshake": (lambda conn: (read_frame(conn),
                                                      conn.sendall(frame(1, 0, handshake_reply() + b"\0"))),
                                        ProtocolError),
    "a client role in the reply": (lambda conn: (read_frame(conn), conn.sendall(frame(1, 0, handshake_reply(role=1)))),
                                   ProtocolError),
    "wrong request id": (lambda conn: (read_frame(conn), conn.sendall(frame(1, 7, handshake_reply()))), ProtocolError),
    "garbage reply to STATS": (after_handshake(lambda op, rid: frame(op, rid, os.urandom(41))), ProtocolError),
    "60 MiB STATS body never sent": (after_handshake(lambda op, rid: frame(op, rid, b"", length=60 << 20)),
                                     KvPoolTimeout),
    "STATS reply for another request": (after_handshake(lambda op, rid: frame(op, rid + 1, bytes(29))), ProtocolError),
    "STATS reply with another major": (after_handshake(lambda op, rid: frame(op, rid, bytes(29), major=3)),
                                       ProtocolError),
    "STATS disk totals with more degraded tiers than tiers": (
        after_handshake(lambda op, rid: frame(op, rid, _stats_body((1 << 30, 0, 1, 2)))), ProtocolError),
    "STATS disk totals with a negative capacity": (
        after_handshake(lambda op, rid: frame(op, rid, _stats_body((-1, 0, 1, 0)))), ProtocolError),
    "STATS without the disk totals protocol 2.5 owes": (
        after_handshake(lambda op, rid: frame(op, rid, _stats_body())), ProtocolError),
    "unknown error code": (after_handshake(lambda op, rid: frame(op, rid, b"\x03\xe7\x00\x00", flags=3)),
                           ProtocolError),
    "requires authentication": (lambda conn: (read_frame(conn), conn.sendall(frame(1, 0, handshake_reply(auth=True)))),
                                AuthenticationRequired),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_hostile_master_ends_in_a_typed_error_within_the_deadline(case):
    behaviour, expected = CASES[case]
    server = FakeServer(behaviour)
    started = time.monotonic()
    try:
        with pytest.raises(expected) as raised:
            KvPoolClient(ClientConfig(server.address, timeout=TIMEOUT, operation_timeout=OPERATION_TIMEOUT))
    finally:
        server.close()
    elapsed = time.monotonic() - started
    assert elapsed < OPERATION_TIMEOUT + SLACK, f"{case}: took {elapsed:.1f} s ({raised.value})"
    assert isinstance(raised.value, KvPoolError)


def _stats_master(minor, disk):
    def behaviour(conn):
        first = read_frame(conn)
        conn.sendall(frame(1, first[1], handshake_reply(minor=minor)))
        while (request := read_frame(conn)) is not None:
            conn.sendall(frame(request[0], request[1], _stats_body(disk)))
    return behaviour


def test_a_client_reads_the_stats_of_a_master_of_protocol_2_4_without_disk_totals():
    server = FakeServer(_stats_master(PROTOCOL_MINOR - 1, None))
    try:
        with KvPoolClient(ClientConfig(server.address, timeout=TIMEOUT, operation_timeout=OPERATION_TIMEOUT)) as c:
            assert c.server_protocol == (PROTOCOL_MAJOR, PROTOCOL_MINOR - 1)
            stats = c.stats()
            assert stats.capacity == 1 << 30 and stats.alive_nodes == 1
            assert stats.disk == NO_DISK_TIER
    finally:
        server.close()


def _lying_master(storage_address, value_size=1000, slice_length=1000, value_offset=0, checksum=0):
    """A master whose replica list sends reads to ``storage_address``."""
    def behaviour(conn):
        first = read_frame(conn)
        conn.sendall(frame(1, first[1], handshake_reply()))
        while True:
            request = read_frame(conn)
            if request is None:
                return
            opcode, rid, _ = request
            if opcode == 28:  # STATS
                conn.sendall(frame(opcode, rid, _stats_body((0, 0, 0, 0))))
            elif opcode == 23:  # GET_REPLICAS: one key, one replica, one slice
                w = BodyWriter().i32(1).u16(0).i32(value_size).i32(to_i32(checksum)).i64(1).i64(int(time.time() * 1000) + 60000)
                w.i32(1).string("n1").string(storage_address).bytes(b"t" * 16)
                w.i32(1).i32(0).i64(0).i32(slice_length).i32(value_offset)
                conn.sendall(frame(opcode, rid, bytes(w.buf)))
    return behaviour


def _storage(reply):
    def behaviour(conn):
        first = read_frame(conn)
        conn.sendall(frame(1, first[1], handshake_reply(role=2)))
        request = read_frame(conn)
        if request is not None:
            conn.sendall(reply(request[0], request[1]))
    return behaviour


STORAGE_CASES = {
    "payload never sent": (_storage(lambda op, rid: frame(op, rid, struct.pack(">i", 1000))), KvPoolTimeout),
    "payload cut short": (_storage(lambda op, rid: frame(op, rid, struct.pack(">i", 1000)) + b"x" * 10),
                          KvPoolTimeout),
    "other length than asked": (_storage(lambda op, rid: frame(op, rid, struct.pack(">i", 999)) + b"x" * 999),
                                ProtocolError),
    "wrong bytes": (_storage(lambda op, rid: frame(op, rid, struct.pack(">i", 1000)) + b"x" * 1000), KvPoolError),
}


@pytest.mark.parametrize("case", sorted(STORAGE_CASES))
def test_hostile_storage_node_ends_in_a_typed_error_within_the_deadline(case):
    behaviour, expected = STORAGE_CASES[case]
    storage = FakeServer(behaviour)
    master = FakeServer(_lying_master(storage.address))
    try:
        client = KvPoolClient(ClientConfig(master.address, timeout=TIMEOUT, operation_timeout=OPERATION_TIMEOUT,
                                           retries=1))
        started = time.monotonic()
        with pytest.raises(expected):
            client.get_into("k", bytearray(1000))
        # every attempt is bounded by the exchange timeout; the retries by the retry count
        assert time.monotonic() - started < 3 * TIMEOUT + OPERATION_TIMEOUT + SLACK
        client.close()
    finally:
        master.close()
        storage.close()


def test_a_get_asks_again_past_its_retries_while_a_node_answers_not_found_for_what_the_master_lists():
    """A node that does not hold yet what the master lists (a move to disk or a repair the master has not heard of)
    answers NOT_FOUND; past its retries the client asks the master again after a pause, until the operation's
    deadline, and reads the value once the node serves it. (The master's own NOT_FOUND ends a get at once.)"""
    value = os.urandom(1000)
    not_found = 3
    reads = []

    def storage_behaviour(conn):
        first = read_frame(conn)
        conn.sendall(frame(1, first[1], handshake_reply(role=2)))
        while (request := read_frame(conn)) is not None:
            reads.append(request[0])
            if len(reads) <= not_found:
                refusal = BodyWriter().u16(5).string("node n1 holds no replica of k generation 1 yet")
                conn.sendall(frame(request[0], request[1], bytes(refusal.buf), flags=3))
            else:
                conn.sendall(frame(request[0], request[1], struct.pack(">i", len(value))) + value)

    storage = FakeServer(storage_behaviour)
    master = FakeServer(_lying_master(storage.address, checksum=crc32c(value)))
    try:
        with KvPoolClient(ClientConfig(master.address, timeout=TIMEOUT, operation_timeout=OPERATION_TIMEOUT,
                                       retries=0)) as client:
            target = bytearray(len(value))
            client.get_into("k", target)
            assert bytes(target) == value
            assert len(reads) == not_found + 1, reads
    finally:
        master.close()
        storage.close()


def test_a_replica_list_beyond_the_value_is_refused():
    storage = FakeServer(lambda conn: None)
    master = FakeServer(_lying_master(storage.address, value_size=1000, slice_length=1000, value_offset=500))
    try:
        client = KvPoolClient(ClientConfig(master.address, timeout=TIMEOUT, operation_timeout=OPERATION_TIMEOUT,
                                           retries=0))
        target = bytearray(4000)
        with pytest.raises(ProtocolError, match="exceeds the value size"):
            client.get_into("k", target)
        assert target == bytearray(4000)
        client.close()
    finally:
        master.close()
        storage.close()


def _standby(leader: str, key):
    """A standby master of the pool (it holds the pool's ``key`` and proves it, PROTOCOL.md "Authentication"): names
    ``leader`` (may be empty) in its handshake and refuses requests with NOT_LEADER."""
    def behaviour(conn):
        first = read_frame(conn)
        nonce = os.urandom(32)
        conn.sendall(frame(1, first[1], handshake_reply(state=1, leader=leader, auth=True, nonce=nonce,
                                                        proof=key.server_proof(first[2], nonce))))
        auth = read_frame(conn)
        if auth is None or auth[0] != 3 or auth[2][2:] != key.client_proof(first[2], nonce):
            return
        conn.sendall(frame(3, auth[1]))
        while True:
            request = read_frame(conn)
            if request is None:
                return
            refusal = BodyWriter().u16(16).string("this master is a standby")
            conn.sendall(frame(request[0], request[1], bytes(refusal.buf), flags=3))
    return behaviour


def test_a_standby_naming_the_leader_sends_the_client_there(pool):
    standby = FakeServer(_standby(pool.master, pool.key))
    try:
        with KvPoolClient(ClientConfig(standby.address, pool_key=pool.key, operation_timeout=20)) as c:
            c.put("leader/named", b"via the standby's hint")
            assert bytes(c.get("leader/named")) == b"via the standby's hint"
    finally:
        standby.close()


def test_not_leader_moves_the_client_to_the_next_master(pool):
    standby = FakeServer(_standby("", pool.key))
    try:
        with KvPoolClient(ClientConfig(f"{standby.address},{pool.master}", pool_key=pool.key,
                                       operation_timeout=20)) as c:
            c.put("leader/next", b"found by trying the next endpoint")
            assert bytes(c.get("leader/next")) == b"found by trying the next endpoint"
    finally:
        standby.close()
