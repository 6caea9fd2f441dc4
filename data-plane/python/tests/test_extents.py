"""Puts through extents (protocol 2.4, PROTOCOL.md "Extents") from the Python client against a real pool: small puts of
one replica go into extents the master granted ahead, one exchange with their storage node each, byte for byte; what
an extent may not or cannot take goes through PUT_START; used-up and expiring extents are replaced, and closing a
client gives its extents back. The master's own count (``kvpool_extents_total``) says the values went into extents."""

import os
import random
import re
import socket
import struct
import threading
import time
import urllib.request

import pytest

from kvpool import PROTOCOL_MINOR, BlockMetadata, ClientConfig, ErrorCode, KvPoolClient, Regions
from kvpool import extents as extent_puts
from kvpool.codec import BodyWriter
from kvpool.connection import HEADER, MAGIC, Connection
from kvpool.messages import Opcode

EXTENT_OPCODES = {Opcode.EXTENT_GRANT, Opcode.EXTENT_WRITE, Opcode.EXTENT_RETURN}


def _client_id(what: str) -> str:
    """A client id of this test alone: the master limits the extents one client id holds (8)."""
    return f"extents-{what}-{os.getpid()}-{random.getrandbits(32):08x}"


def _client(pool, client_id: str, **settings) -> KvPoolClient:
    settings = {"replicas": 1, "timeout": 20, "operation_timeout": 60, "extents": True, **settings}
    return KvPoolClient(ClientConfig(pool.master, pool_key=pool.key, client_id=client_id, **settings))


def _reader(pool) -> KvPoolClient:
    """A fresh client without extents that asks the master for every get."""
    return KvPoolClient(ClientConfig(pool.master, pool_key=pool.key, timeout=20, operation_timeout=60,
                                     location_cache_entries=0))


def _master_extents(pool) -> dict:
    """The master's ``kvpool_extents_total`` by event (granted, put, refused), from its admin endpoint."""
    with urllib.request.urlopen(f"http://{pool.admin}/metrics", timeout=10) as r:
        text = r.read().decode()
    return {m.group(1): int(float(m.group(2)))
            for m in re.finditer(r'^kvpool_extents_total\{event="(\w+)"\} (\S+)$', text, re.M)}


def _delta(before: dict, after: dict) -> dict:
    return {k: after.get(k, 0) - before.get(k, 0) for k in ("granted", "put", "refused")}


def test_the_setting_comes_from_the_environment_too():
    env = {"KVPOOL_MASTER_ADDRESS": "127.0.0.1:7000"}
    assert ClientConfig.from_env(env).extents is False
    assert ClientConfig.from_env({**env, "KVPOOL_CLIENT_EXTENTS": "true"}).extents is True
    assert ClientConfig.from_env({**env, "KVPOOL_CLIENT_EXTENTS": "0"}).extents is False
    assert ClientConfig.from_env({**env, "KVPOOL_CLIENT_EXTENTS": "1"}, extents=False).extents is False
    assert ClientConfig("127.0.0.1:7000", extents="off").extents is False
    with pytest.raises(ValueError, match="neither true nor false"):
        ClientConfig.from_env({**env, "KVPOOL_CLIENT_EXTENTS": "maybe"})


def test_small_values_go_through_extents_byte_exact_and_a_fresh_client_reads_them(pool):
    rnd = random.Random(24)
    sizes = [1, 2, 63, 64, 65, 127, 4095, 4096, 4097, 65_536, 100_003, 256 << 10]
    keys = [f"extents/rt/{i}" for i in range(240)]
    values = [rnd.randbytes(sizes[i] if i < len(sizes) else rnd.choice([rnd.randrange(1, 2048),
                                                                        rnd.randrange(1, 256 << 10)]))
              for i in range(len(keys))]
    before = _master_extents(pool)
    with _client(pool, _client_id("rt")) as writer:
        for key, value in zip(keys, values):
            assert writer.put(key, value) is True
        # a value gathered from several regions goes out as one payload, uncopied
        parts = [rnd.randbytes(n) for n in (3, 4096, 70_000, 1)]
        assert writer.put_regions("extents/rt/regions", Regions([memoryview(p) for p in parts])) is True
        stats = writer.extent_stats()
        assert (stats.puts, stats.present, stats.fallbacks) == (len(keys) + 1, 0, 0), stats
        assert stats.granted >= 2  # more bytes than one extent holds
        assert writer.put_commit_stats() == (len(keys) + 1, 0)  # committed by their nodes, no PUT_END
        assert bytes(writer.get(keys[0])) == values[0]
    master = _delta(before, _master_extents(pool))
    assert master == {"granted": stats.granted, "put": len(keys) + 1, "refused": 0}, master
    with _reader(pool) as reader:
        assert [bytes(v) for v in reader.get_batch(keys)] == values
        assert bytes(reader.get("extents/rt/regions")) == b"".join(parts)
        assert len(reader._lookup(keys[0]).replicas) == 1


def test_a_key_already_stored_is_reported_present_and_keeps_its_value(pool):
    """ALREADY_EXISTS from an extent write ends the put as PUT_START's does. A put its nodes commit (protocol 2.2) may
    still be pending at the master when the next put of its key comes (its other node's COMMIT not applied yet): the
    extent write is then refused PUT_IN_PROGRESS and the put goes through PUT_START, which waits for it and finds the
    key present all the same."""
    with _client(pool, _client_id("present")) as c, _reader(pool) as reader:
        assert c.put("extents/present/1", b"first") is True
        assert c.put("extents/present/1", b"second value") is False
        assert c.extent_stats()[:3] == (1, 1, 0)
        assert c.put("extents/present/2", b"two replicas", replicas=2) is True  # through PUT_START
        assert c.put("extents/present/2", b"into an extent") is False
        stats = c.extent_stats()
        assert (stats.puts, stats.present + stats.fallbacks, stats.granted) == (1, 2, 1), stats
        assert not c._extents._current.retired  # PUT_IN_PROGRESS does not cost the extent
        assert bytes(reader.get("extents/present/1")) == b"first"
        assert bytes(reader.get("extents/present/2")) == b"two replicas"


def test_a_refused_write_drops_its_extent_and_the_put_goes_through_put_start(pool):
    """A value into an extent is refused (GRANT_REJECTED) when its key has a tombstone newer than the extent's
    generations: a later put of the key was removed since the grant (as an upsert does). The master refuses it, or the
    node before it when the node held the removed replica and keeps its tombstone. The client drops the extent (it
    cannot tell this from a dead one), gives it back, and puts the value through PUT_START."""
    with _client(pool, _client_id("refused")) as c, _reader(pool) as reader:
        assert c.put("extents/refused/first", b"grants an extent") is True
        held = c._extents._current
        assert c.put("extents/refused/key", b"old", replicas=2) is True  # PUT_START: a generation after the extent's
        assert c.remove("extents/refused/key", force=True) is True
        before = _master_extents(pool)
        assert c.put("extents/refused/key", b"new") is True
        master = _delta(before, _master_extents(pool))
        assert (master["granted"], master["put"]) == (0, 0) and master["refused"] <= 1, master
        stats = c.extent_stats()
        assert (stats.puts, stats.fallbacks, stats.granted, stats.returned) == (1, 1, 1, 1), stats
        assert held.retired and held.given_back and c._extents._current is None
        assert bytes(reader.get("extents/refused/key")) == b"new"
        assert c.put("extents/refused/after", b"a new extent") is True
        assert c.extent_stats()[:4] == (2, 0, 1, 2)


def test_what_an_extent_may_not_take_goes_through_put_start(pool):
    rnd = random.Random(7)
    limit = extent_puts.MAX_VALUE_BYTES
    puts = {
        "extents/start/over-256k": (rnd.randbytes(limit + 1), {}),
        "extents/start/1m": (rnd.randbytes(1 << 20), {}),
        "extents/start/two-replicas": (rnd.randbytes(1000), {"replicas": 2}),
        "extents/start/three-replicas": (rnd.randbytes(limit), {"replicas": 3}),
        "extents/start/metadata": (rnd.randbytes(1000), {"metadata": BlockMetadata([b"h1"], token_ids=[1, 2])}),
    }
    before = _master_extents(pool)
    with _client(pool, _client_id("start")) as c, _reader(pool) as reader:
        for key, (value, options) in puts.items():
            assert c.put(key, value, **options) is True
        batch = [f"extents/start/batch/{i}" for i in range(3)]
        batch_values = [rnd.randbytes(100 + i) for i in range(3)]
        assert c.put_batch(batch, [Regions.of_buffer(v) for v in batch_values]) == [None] * 3
        assert c.extent_stats() == (0, 0, 0, 0, 0)  # none asked for an extent
        assert c.put_commit_stats() == (len(puts) + 3, 0)
        assert c.put("extents/start/exactly-256k", rnd.randbytes(limit)) is True
        assert c.extent_stats().puts == 1
        for key, (value, _) in puts.items():
            assert bytes(reader.get(key)) == value
        assert [bytes(v) for v in reader.get_batch(batch)] == batch_values
        assert len(reader._lookup("extents/start/two-replicas").replicas) == 2
    assert _delta(before, _master_extents(pool))["put"] == 1


def test_a_used_up_extent_is_replaced_and_given_back(pool):
    """An extent holds 4 MiB and 4096 generations: values of 200 KiB use up its bytes every 20 puts, 4097 values of
    100 bytes its generations."""
    rnd = random.Random(3)
    big = [rnd.randbytes(200 << 10) for _ in range(45)]
    tiny = [rnd.randbytes(100) for _ in range(4097)]
    with _client(pool, _client_id("used-up-bytes")) as c:
        for i, value in enumerate(big):
            assert c.put(f"extents/used-up/big/{i}", value) is True
        stats = c.extent_stats()
        assert (stats.puts, stats.fallbacks, stats.granted, stats.returned) == (45, 0, 3, 2), stats
    assert c.extent_stats().returned == 3  # close gave back the last one
    with _client(pool, _client_id("used-up-generations")) as c:
        started = time.monotonic()
        for i, value in enumerate(tiny):
            assert c.put(f"extents/used-up/tiny/{i}", value) is True
        elapsed = time.monotonic() - started
        stats = c.extent_stats()
        assert (stats.puts, stats.fallbacks) == (4097, 0), stats
        assert stats.returned == stats.granted - 1, stats
        if elapsed < 10 - extent_puts.EXPIRY_MARGIN - 1:
            assert stats.granted == 2, (stats, elapsed)  # the first extent's generations ran out, not its time
        else:
            assert stats.granted >= 2, (stats, elapsed)  # a slow machine: the first extent neared its expiry first
    with _reader(pool) as reader:
        assert [bytes(v) for v in reader.get_batch([f"extents/used-up/big/{i}" for i in range(45)])] == big
        assert [bytes(v) for v in reader.get_batch([f"extents/used-up/tiny/{i}" for i in range(4097)])] == tiny


def test_threads_share_a_clients_extents_without_collisions(pool):
    """Every value of every thread gets its own range and generation: a collision would be refused by the node
    (OUT_OF_BOUNDS) and show as a fallback; an extent is given back only after the last write into it."""
    rnd = random.Random(11)
    values = {f"extents/threads/{t}/{i}": rnd.randbytes(rnd.randrange(1, 120 << 10))
              for t in range(4) for i in range(40)}
    failures = []
    with _client(pool, _client_id("threads")) as c:
        def work(t):
            try:
                for i in range(40):
                    assert c.put(f"extents/threads/{t}/{i}", values[f"extents/threads/{t}/{i}"]) is True
            except BaseException as e:  # noqa: BLE001 - reported below
                failures.append(e)
        threads = [threading.Thread(target=work, args=(t,)) for t in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(60)
        assert not failures, failures
        stats = c.extent_stats()
        assert (stats.puts, stats.fallbacks) == (160, 0), stats
        assert stats.granted >= 2 and stats.returned == stats.granted - 1
    with _reader(pool) as reader:
        keys = list(values)
        assert [bytes(v) for v in reader.get_batch(keys)] == list(values.values())


def test_closing_gives_extents_back_and_a_refused_grant_falls_back_to_put_start(pool):
    """The master grants one client id at most 8 open extents: a ninth client of that id is refused (LIMIT_EXCEEDED)
    and puts through PUT_START; once the eight closed and gave theirs back, the id gets extents again."""
    client_id = _client_id("limit")
    before = _master_extents(pool)
    holders = [_client(pool, client_id) for _ in range(8)]
    try:
        for i, c in enumerate(holders):
            assert c.put(f"extents/limit/holder/{i}", b"held") is True
            assert c.extent_stats()[:4] == (1, 0, 0, 1)
        with _client(pool, client_id) as refused:
            assert refused.put("extents/limit/refused", b"through PUT_START") is True
            assert refused.extent_stats() == (0, 0, 1, 0, 0)
            assert refused.put_commit_stats() == (1, 0)
    finally:
        for c in holders:
            c.close()
    assert [c.extent_stats().returned for c in holders] == [1] * 8
    with _client(pool, client_id) as later:
        assert later.put("extents/limit/later", b"into an extent again") is True
        assert later.extent_stats()[:4] == (1, 0, 0, 1)
    assert _delta(before, _master_extents(pool)) == {"granted": 9, "put": 9, "refused": 0}
    with _reader(pool) as reader:
        assert bytes(reader.get("extents/limit/refused")) == b"through PUT_START"
        assert bytes(reader.get("extents/limit/later")) == b"into an extent again"


def test_clients_given_no_id_each_get_extents_of_their_own(pool):
    """Clients not given a client_id each get one of their own (``python-client-<pid>-<hex>``), so the master's limit
    of 8 extents per id does not make the ninth of them put through PUT_START (it did with one shared default)."""
    before = _master_extents(pool)
    clients = [KvPoolClient(ClientConfig(pool.master, pool_key=pool.key, replicas=1, timeout=20, operation_timeout=60,
                                         extents=True)) for _ in range(9)]
    try:
        assert len({c.config.client_id for c in clients}) == 9
        for i, c in enumerate(clients):
            assert c.put(f"extents/anonymous/{i}", b"anonymous %d" % i) is True
            assert c.extent_stats()[:4] == (1, 0, 0, 1), c.config.client_id
    finally:
        for c in clients:
            c.close()
    assert _delta(before, _master_extents(pool)) == {"granted": 9, "put": 9, "refused": 0}
    with _reader(pool) as reader:
        for i in range(9):
            assert bytes(reader.get(f"extents/anonymous/{i}")) == b"anonymous %d" % i


def test_a_master_that_did_not_agree_on_protocol_2_4_is_never_sent_extent_requests(pool, monkeypatch):
    """A client one minor older than the pool (2.4) still uses extents; one whose master speaks 2.3 (two minors from
    this pool, so simulated by the version the client recorded from its handshake) sends none of their opcodes and
    puts through PUT_START."""
    with _client(pool, _client_id("older"), protocol=(2, PROTOCOL_MINOR - 1)) as older:
        assert older.put("extents/minor/2.4", b"into an extent") is True
        assert older.extent_stats().puts == (1 if PROTOCOL_MINOR - 1 >= 4 else 0)
    sent = []
    original = Connection.send

    def recording(self, opcode, body, payload=()):
        sent.append(opcode)
        return original(self, opcode, body, payload)

    monkeypatch.setattr(Connection, "send", recording)
    with _client(pool, _client_id("2.3")) as c, _reader(pool) as reader:
        c.server_protocol = (2, 3)
        assert c.put("extents/minor/2.3", b"through PUT_START") is True
        assert c.extent_stats() == (0, 0, 0, 0, 0)
        assert bytes(reader.get("extents/minor/2.3")) == b"through PUT_START"
    assert Opcode.PUT_START in sent and not EXTENT_OPCODES & set(sent), sent


def test_an_extent_is_not_written_once_it_nears_its_expiry(pool):
    """The one test that waits for an extent's time (10 s, less the client's 2 s margin): the next put takes a new
    extent, and the old one is given back."""
    with _client(pool, _client_id("expiry")) as c, _reader(pool) as reader:
        assert c.put("extents/expiry/1", b"first") is True
        held = c._extents._current
        left = held.usable_until - time.monotonic()
        assert 10 - extent_puts.EXPIRY_MARGIN - 4 < left <= 10 - extent_puts.EXPIRY_MARGIN, left
        time.sleep(left + 0.05)
        assert c.put("extents/expiry/2", b"second") is True
        stats = c.extent_stats()
        assert (stats.puts, stats.fallbacks, stats.granted, stats.returned) == (2, 0, 2, 1), stats
        assert c._extents._current is not held
        assert bytes(reader.get("extents/expiry/1")) == b"first"
        assert bytes(reader.get("extents/expiry/2")) == b"second"


def _read_exactly(sock: socket.socket, n: int) -> bytes:
    data = bytearray()
    while len(data) < n:
        chunk = sock.recv(n - len(data))
        if not chunk:
            raise EOFError
        data += chunk
    return bytes(data)


class _AnswerLosingRelay:
    """A TCP relay in front of a real storage node: every byte goes through unchanged but for EXTENT_WRITE, whose
    answer the client never sees. ``swallow`` False: the write reaches the node, which stores and commits the value,
    and its OK is replaced by NODE_UNAVAILABLE (the answer lost); True: the write never reaches the node and the relay
    answers NODE_UNAVAILABLE itself (nothing stored)."""

    def __init__(self, node: str, swallow: bool):
        host, port = node.rsplit(":", 1)
        self.node = (host.strip("[]"), int(port))
        self.swallow = swallow
        self.writes = 0
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(8)
        self.address = f"127.0.0.1:{self.sock.getsockname()[1]}"
        threading.Thread(target=self._accept, daemon=True).start()

    def close(self) -> None:
        self.sock.close()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.sock.accept()
            except OSError:
                return
            threading.Thread(target=self._requests, args=(client,), daemon=True).start()

    @staticmethod
    def _lost(major: int, minor: int, request_id: int) -> bytes:
        body = bytes(BodyWriter().u16(ErrorCode.NODE_UNAVAILABLE).string("the relay lost the answer").buf)
        return HEADER.pack(MAGIC, major, minor, Opcode.EXTENT_WRITE, 3, 0, request_id, len(body)) + body

    def _requests(self, client: socket.socket) -> None:
        node = socket.create_connection(self.node)
        lock = threading.Lock()
        threading.Thread(target=self._replies, args=(node, client, lock), daemon=True).start()
        try:
            while True:
                head = _read_exactly(client, HEADER.size)
                _, major, minor, opcode, _, _, request_id, length = HEADER.unpack(head)
                body = _read_exactly(client, length)
                payload = b""
                if opcode == Opcode.EXTENT_WRITE:
                    self.writes += 1
                    payload = _read_exactly(client, struct.unpack(">i", body[-8:-4])[0])  # the value size field
                    if self.swallow:
                        with lock:
                            client.sendall(self._lost(major, minor, request_id))
                        continue
                node.sendall(head + body + payload)
        except (EOFError, OSError):
            pass
        finally:
            client.close()
            node.close()

    def _replies(self, node: socket.socket, client: socket.socket, lock: threading.Lock) -> None:
        try:
            while True:
                head = _read_exactly(node, HEADER.size)
                _, major, minor, opcode, flags, _, request_id, length = HEADER.unpack(head)
                frame = head + _read_exactly(node, length)
                if opcode == Opcode.EXTENT_WRITE and flags == 1:  # the node's OK
                    frame = self._lost(major, minor, request_id)
                with lock:
                    client.sendall(frame)
        except (EOFError, OSError):
            pass


@pytest.mark.parametrize("swallow", [False, True], ids=["stored", "not-stored"])
def test_a_write_whose_answer_is_lost_is_settled_by_put_end(pool, swallow):
    """NODE_UNAVAILABLE: the node's answer is unknown, so the client asks the master with PUT_END (key, generation, no
    receipts): OK when the node did store and commit the value, else the put goes through PUT_START. The extent is
    dropped, and the next one is granted on another node."""
    with _client(pool, _client_id("lost")) as c, _reader(pool) as reader:
        assert c.put(f"extents/lost/{swallow}/first", b"grants an extent") is True
        held = c._extents._current
        relay = _AnswerLosingRelay(held.endpoint, swallow)
        try:
            held.endpoint = relay.address
            value = os.urandom(5000)
            assert c.put(f"extents/lost/{swallow}/value", value) is True
            assert relay.writes == 1
        finally:
            relay.close()
        stats = c.extent_stats()
        if swallow:
            assert (stats.puts, stats.fallbacks) == (1, 1), stats
            assert c.put_commit_stats() == (2, 0)  # the second through PUT_START, committed by its node
        else:
            assert (stats.puts, stats.fallbacks) == (2, 0), stats
            assert c.put_commit_stats() == (1, 1)  # the second confirmed by PUT_END
        assert held.retired and c._extents._current is None
        assert bytes(reader.get(f"extents/lost/{swallow}/value")) == value
        assert c.put(f"extents/lost/{swallow}/after", b"a new extent") is True
        assert c.extent_stats().granted == 2 and c._extents._current.node_id != held.node_id
