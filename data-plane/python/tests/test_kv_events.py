"""The master's KV events (docs/events.md) followed by a Python subscriber written as vLLM's own subscriber example is:
pyzmq SUB + DEALER, and the event structures of vLLM restated below with msgspec (vLLM itself does not install in a
test's time). After puts (with and without block metadata), removes, evictions, a subscriber away and back, and a
kill -9 of the master (the subscriber's sockets stay open through it and hear the new master live again), the
subscriber's block-hash set equals the master's readable objects (``GET /residents``)."""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import time
import urllib.request
from typing import Any, Optional, Union

import msgspec
import pytest
import zmq
from zmq.utils.monitor import recv_monitor_message

from pool import LocalPool, wait_for

from kvpool import BlockMetadata, ClientConfig, KvPoolClient, Regions

POOL = "events"
MODEL = "test-model"
TOPIC = f"kv@pool:{POOL}@{MODEL}"
END_SEQ = -1


# ---- vLLM's KV-event structures, restated from vllm/distributed/kv_events.py: the array_like, tagged msgspec structs
# of vllm-project/vllm commit b4e69e0af33f4698e157a262cc787fe61983cd3d, with the trailing fields later releases
# appended (EventBatch.data_parallel_rank, BlockStored.medium, BlockRemoved.medium) and block hashes as
# ExternalBlockHash (bytes | int). See docs/events.md, "Wire format".

class EventBatch(msgspec.Struct, array_like=True, omit_defaults=True, gc=False):
    ts: float
    events: list[Any]
    data_parallel_rank: Optional[int] = None


class KVCacheEvent(msgspec.Struct, array_like=True, omit_defaults=True, gc=False, tag=True):
    """Base class for all KV cache-related events."""


class BlockStored(KVCacheEvent):
    block_hashes: list[Union[bytes, int]]
    parent_block_hash: Optional[Union[bytes, int]]
    token_ids: list[int]
    block_size: int
    lora_id: Optional[int]
    medium: Optional[str]


class BlockRemoved(KVCacheEvent):
    block_hashes: list[Union[bytes, int]]
    medium: Optional[str]


class AllBlocksCleared(KVCacheEvent):
    pass


class KVEventBatch(EventBatch):
    events: list[Union[BlockStored, BlockRemoved, AllBlocksCleared]]


def hash_hex(h) -> str:
    """How the test names a block hash: hex of its bytes (an int hash: its 8 big-endian bytes, as the master does)."""
    return (h.to_bytes(8, "big", signed=True) if isinstance(h, int) else bytes(h)).hex()


class Subscriber:
    """A subscriber that follows docs/events.md: replay from 0 on start (a full announcement), batches applied in
    sequence order, a gap replayed from the sequence after the last applied one, AllBlocksCleared empties the set."""

    def __init__(self, pub_port: int, replay_port: int, state: "Subscriber | None" = None):
        self.ctx = zmq.Context()
        self.sub = self.ctx.socket(zmq.SUB)
        self.sub.setsockopt(zmq.SUBSCRIBE, TOPIC.encode())
        self.sub.setsockopt(zmq.HEARTBEAT_IVL, 1000)  # drop a publisher silent for 5 s and dial again
        self.sub.setsockopt(zmq.HEARTBEAT_TIMEOUT, 5000)
        self.sub.connect(f"tcp://127.0.0.1:{pub_port}")
        self.replay_socket = self.ctx.socket(zmq.DEALER)
        self.replay_socket.setsockopt(zmq.RCVTIMEO, 30_000)
        self.replay_socket.connect(f"tcp://127.0.0.1:{replay_port}")
        self.decoder = msgspec.msgpack.Decoder(type=KVEventBatch)
        self.hashes: set = set(state.hashes) if state else set()
        self.by_medium: dict = {}  # medium -> hashes, as a subscriber that tells the media apart keeps them
        self.last_seq: int = state.last_seq if state else -1
        self.stored: list = []
        self.removed = 0
        self.clears = 0
        self.last_live = -1  # the highest sequence the SUB socket delivered live (applied or not)
        self.replay(self.last_seq + 1)

    def close(self) -> None:
        self.ctx.destroy(linger=0)

    def apply(self, payload: bytes) -> None:
        batch = self.decoder.decode(payload)
        assert batch.data_parallel_rank == 0
        for event in batch.events:
            if isinstance(event, AllBlocksCleared):
                self.clears += 1
                self.hashes.clear()
                self.by_medium.clear()
            elif isinstance(event, BlockStored):
                self.stored.append(event)
                self.hashes.update(hash_hex(h) for h in event.block_hashes)
                self.by_medium.setdefault(event.medium, set()).update(hash_hex(h) for h in event.block_hashes)
            else:
                self.removed += 1
                self.hashes.difference_update(hash_hex(h) for h in event.block_hashes)
                self.by_medium.get(event.medium, set()).difference_update(hash_hex(h) for h in event.block_hashes)

    def replay(self, start: int) -> None:
        """vLLM's replay request: (empty, 8-byte big-endian start) on the DEALER, batches until (-1, empty)."""
        self.replay_socket.send_multipart([b"", start.to_bytes(8, "big")])
        while True:
            _, seq_bytes, payload = self.replay_socket.recv_multipart()
            seq = int.from_bytes(seq_bytes, "big", signed=True)
            if seq == END_SEQ:
                return
            if seq > self.last_seq:
                self.apply(payload)
                self.last_seq = seq

    def poll(self, timeout_ms: int) -> None:
        """Applies what the PUB socket delivers within ``timeout_ms``; with nothing live, asks for a replay of what
        follows the last applied batch (one sent before the subscription took effect is never delivered live)."""
        if not self.sub.poll(timeout_ms):
            self.replay(self.last_seq + 1)
            return
        while self.sub.poll(0):
            topic, seq_bytes, payload = self.sub.recv_multipart()
            assert topic == TOPIC.encode()
            seq = int.from_bytes(seq_bytes, "big")
            self.last_live = max(self.last_live, seq)
            if seq <= self.last_seq:
                continue
            if self.last_seq >= 0 and seq > self.last_seq + 1:
                self.replay(self.last_seq + 1)
                if seq <= self.last_seq:
                    continue
            self.apply(payload)
            self.last_seq = seq


def free_ports(n: int = 2) -> list:
    """n distinct ports free now: the probes are held open together, since a port is free again once its probe closed
    and two probes one after the other may get the same one (the Java tests once did, and a master could not bind its
    replay port)."""
    probes = [socket.socket() for _ in range(n)]
    try:
        for s in probes:
            s.bind(("127.0.0.1", 0))
        return [s.getsockname()[1] for s in probes]
    finally:
        for s in probes:
            s.close()


def pool_with_events(**options) -> LocalPool:
    """A pool publishing KV events on two ports that were free a moment ago (``pub_port``, ``replay_port``). Another
    process may bind a probed port before the master does: the tests run on two workers, each starting JVMs that bind
    ephemeral ports, and .ci/run once lost that race (the master exited, `Address already in use`). The pool is then
    started again on new ports, up to five times."""
    for attempt in range(5):
        pub, replay = free_ports(2)
        try:
            p = LocalPool(pool_id=POOL, events_port=str(pub), events_replay_port=str(replay), events_model=MODEL,
                          **options)
        except AssertionError as e:
            if attempt < 4 and _lost_a_port(str(e)):
                print(f"an events port of {pub}, {replay} was taken before the master bound it; new ports")
                continue
            raise
        p.pub_port, p.replay_port = pub, replay
        return p
    raise AssertionError("unreachable")


def _lost_a_port(failure: str) -> bool:
    """Whether the master named in a failed start's message exited because a port was taken."""
    m = re.search(r"\(log (\S+master-\d+\.log)\)", failure)
    try:
        return m is not None and "Address already in use" in open(m.group(1), errors="replace").read()
    except OSError:
        return False


def residents(pool: LocalPool) -> dict:
    """The master's readable objects: key -> the block hashes its events name it by."""
    with urllib.request.urlopen(f"http://{pool.admin}/residents", timeout=10) as r:
        doc = json.load(r)
    return {o["key"]: o["blockHashes"] for o in doc["objects"]}


def converge(sub: Subscriber, pool: LocalPool, what: str) -> dict:
    """Follows the events until the subscriber holds exactly the master's readable objects; returns them."""
    state: dict = {}

    def same() -> bool:
        sub.poll(200)
        state["master"] = residents(pool)
        return sub.hashes == {h for hashes in state["master"].values() for h in hashes}

    try:
        wait_for(same, 60, f"the subscriber to hold the master's objects after {what}")
    except AssertionError:
        expected = {h for hashes in state.get("master", {}).values() for h in hashes}
        raise AssertionError(f"after {what}: missing {sorted(expected - sub.hashes)[:10]}, extra"
                             f" {sorted(sub.hashes - expected)[:10]}, subscriber at {sub.last_seq}") from None
    return state["master"]


@pytest.fixture(scope="module")
def events_pool():
    p = pool_with_events(storage_nodes="2", memory="16MiB")
    yield p
    p.stop()


def test_a_subscriber_holds_the_pools_objects_through_puts_removes_evictions_a_reconnect_and_a_master_kill(events_pool):
    pool = events_pool
    client = KvPoolClient(ClientConfig(pool.master, pool_key=pool.key, replicas=1, timeout=20, operation_timeout=60))
    sub = Subscriber(pool.pub_port, pool.replay_port)
    try:
        assert sub.clears == 1, "a new subscriber's replay from 0 is a full announcement"

        # puts: bytes hashes with a parent chain, int hashes (vLLM before 0.10), and none (the key names the block)
        parent = bytes(range(32))
        meta = BlockMetadata(block_hashes=[b"\x01" * 32, b"\x02" * 32], parent_block_hash=parent,
                             token_ids=list(range(32)), block_size=16, lora_id=3)
        assert client.put("blocks/1", b"x" * 4096, metadata=meta)
        assert client.put_batch(["blocks/2", "plain/0"], [Regions.of_buffer(b"y" * 100), Regions.of_buffer(b"z" * 100)],
                                metadata=[BlockMetadata(block_hashes=[-7], token_ids=[1, 2]), None]) == [None, None]
        for i in range(1, 10):
            client.put(f"plain/{i}", b"v" * 1000)
        converge(sub, pool, "puts")
        stored = next(e for e in sub.stored if e.block_hashes == [b"\x01" * 32, b"\x02" * 32])
        assert (stored.parent_block_hash, stored.token_ids, stored.block_size, stored.lora_id, stored.medium) == (
            parent, list(range(32)), 16, 3, f"pool:{POOL}")
        assert next(e for e in sub.stored if e.block_hashes == [-7]).lora_id is None
        assert next(e for e in sub.stored if e.block_hashes == [b"plain/0"]).token_ids == []

        # removes
        assert client.remove("plain/0") and client.remove("blocks/1")
        converge(sub, pool, "removes")
        assert b"plain/0".hex() not in sub.hashes and (b"\x01" * 32).hex() not in sub.hashes

        # evictions: more than the pool's 32 MiB
        removed = sub.removed
        for i in range(48):
            client.put(f"big/{i}", b"b" * (1 << 20))
        master = converge(sub, pool, "evictions")
        assert len([k for k in master if k.startswith("big/")]) < 48 and sub.removed > removed

        # the subscriber goes away and comes back with what it had: the master replays what it missed
        sub.close()
        client.remove("plain/1")
        client.put("later/1", b"l" * 10)
        sub = Subscriber(pool.pub_port, pool.replay_port, state=sub)
        converge(sub, pool, "a disconnect and a replay")
        assert sub.clears == 0 and b"later/1".hex() in sub.hashes and b"plain/1".hex() not in sub.hashes

        # kill -9 of the master: the new one numbers on from a larger sequence and announces what it recovered, with
        # the block metadata the writer sent its storage nodes (protocol 2.5)
        kept = BlockMetadata(block_hashes=[b"\x05" * 32], parent_block_hash=b"\x04" * 32, token_ids=[7, 8, 9],
                             block_size=16, lora_id=2)
        assert client.put("blocks/kept", b"k" * 2048, metadata=kept) and client.exists("blocks/kept")
        converge(sub, pool, "a put before the kill")
        before = set(residents(pool))
        last_of_old = sub.last_seq
        announced_from = len(sub.stored)
        pool.restart_master()
        wait_for(lambda: client.stats().state.name == "SERVING", 120, "the new master to finish recovering")
        wait_for(lambda: "blocks/kept" in residents(pool), 60, "the new master to adopt blocks/kept")
        after = converge(sub, pool, "a master kill and its recovery")
        again = next(e for e in sub.stored[announced_from:] if e.block_hashes == [b"\x05" * 32])
        assert (again.parent_block_hash, again.token_ids, again.block_size, again.lora_id) == (b"\x04" * 32, [7, 8, 9],
                                                                                              16, 2)
        # nothing readable is lost; an object evicted or removed less than a heartbeat before the kill may come back
        # with the replica its node had not released yet (PROTOCOL.md, issue 28): the subscriber then holds it too
        assert before <= set(after)
        assert sub.last_seq > last_of_old and sub.clears >= 1

        # the same sockets, never reopened: ZMQ reconnected the SUB socket to the new master, which it hears live
        # again (one put at a time until a batch of the new master arrives live, not only by the quiet-spell replay)
        puts_after = []

        def live_again() -> bool:
            key = f"after/{len(puts_after)}"
            assert client.put(key, b"a" * 100)
            puts_after.append(key)
            sub.poll(500)
            return sub.last_live > last_of_old

        wait_for(live_again, 60, "a batch of the new master on the SUB socket", interval=0)
        # exactly the master's objects (a put may have been evicted at once: the pool is full, and what the new
        # master recovered is leased for a lease TTL)
        converge(sub, pool, "puts after the failover")
    finally:
        sub.close()
        client.close()


def test_a_block_the_keys_of_several_ranks_name_is_held_until_the_last_of_them_is_removed():
    # a pool of its own: in the module's pool, filled past its memory by the first test and leased by its reads, each
    # rank's put evicted the one before (the only object that could go), and the block was announced again each time
    pool = pool_with_events(storage_nodes="2", memory="16MiB")
    client = KvPoolClient(ClientConfig(pool.master, pool_key=pool.key, replicas=1, timeout=20, operation_timeout=60))
    sub = Subscriber(pool.pub_port, pool.replay_port)
    try:
        shared = BlockMetadata(block_hashes=[b"\x31" * 32], token_ids=list(range(16)), block_size=16)
        for rank in range(4):
            assert client.put(f"ranks/tp{rank}", b"r" * 512, metadata=shared)
        converge(sub, pool, "four ranks' puts of one block")
        assert len([e for e in sub.stored if e.block_hashes == [b"\x31" * 32]]) == 1, "one BlockStored, the first rank's"
        for rank in range(3):
            assert client.remove(f"ranks/tp{rank}")
        converge(sub, pool, "three of the ranks' removals")
        assert (b"\x31" * 32).hex() in sub.hashes, "the last rank still holds the block"
        assert client.remove("ranks/tp3")
        converge(sub, pool, "the last rank's removal")
        assert (b"\x31" * 32).hex() not in sub.hashes
        assert sub.removed == 1, "one BlockRemoved, the last rank's"
    finally:
        sub.close()
        client.close()
        pool.stop()


def test_block_metadata_over_a_limit_is_refused_before_anything_is_sent(events_pool):
    with KvPoolClient(ClientConfig(events_pool.master, pool_key=events_pool.key, replicas=1, timeout=20)) as client:
        with pytest.raises(ValueError, match="65 block hashes"):
            client.put("over", b"x", metadata=BlockMetadata(block_hashes=[b"h"] * 65))
        with pytest.raises(ValueError, match="4097 token ids"):
            client.put("over", b"x", metadata=BlockMetadata(block_hashes=[b"h"], token_ids=[0] * 4097))
        assert not client.exists("over")


def test_a_batch_past_16_mib_of_metadata_per_node_keeps_every_items_metadata_on_the_nodes(events_pool):
    """The client sends a node's writes whose metadata passes 16 MiB as pipelined WRITEs instead of one WRITE_BATCH
    (kvpool/transfers.py); each WRITE carries its item's metadata, which a new master learns only from the nodes'
    inventories after a kill -9."""
    from kvpool.transfers import BATCH_METADATA_BYTES

    pool = events_pool
    items = 840

    def largest(i: int) -> BlockMetadata:  # metadata at every limit of PROTOCOL.md, unique to the item
        return BlockMetadata(block_hashes=[i.to_bytes(4, "big") + h.to_bytes(4, "big") + bytes(56) for h in range(64)],
                             parent_block_hash=(i + 1 << 20).to_bytes(64, "big"),
                             token_ids=[i * 10_000 + t for t in range(4096)], block_size=65536, lora_id=1 + i)

    keys = [f"fallback/{i}" for i in range(items)]
    metadata = [largest(i) for i in range(items)]
    # R=2 on two nodes: every node gets every item's write, with its metadata
    assert sum(m.encoded_bytes() for m in metadata) > BATCH_METADATA_BYTES
    with KvPoolClient(ClientConfig(pool.master, pool_key=pool.key, replicas=2, timeout=60,
                                   operation_timeout=120)) as client:
        client.remove_all()  # room without evictions: the module's pool is full of the first test's values
        assert client.put_batch(keys, [Regions.of_buffer(i.to_bytes(4, "big") * 64) for i in range(items)],
                                 metadata=metadata) == [None] * items
        pool.restart_master()
        wait_for(lambda: client.stats().state.name == "SERVING", 120, "the new master to finish recovering")
        wanted = {k: [h.hex() for h in m.block_hashes] for k, m in zip(keys, metadata)}

        def adopted() -> bool:
            held = residents(pool)
            return all(held.get(k) == hashes for k, hashes in wanted.items())

        try:
            wait_for(adopted, 60, "the new master to adopt every item with its block hashes")
        except AssertionError:
            held = residents(pool)
            wrong = [k for k, hashes in wanted.items() if held.get(k) != hashes]
            raise AssertionError(f"{len(wrong)} of {items} items not adopted with their metadata, e.g. {wrong[:3]}: "
                                 f"{[held.get(k) for k in wrong[:1]]}") from None
        client.remove_matching("^fallback/")


def residents_by_tier(pool: LocalPool) -> dict:
    """The master's readable objects' block hashes per tier (``memory``: any replica in memory; ``disk``: all on disk)."""
    with urllib.request.urlopen(f"http://{pool.admin}/residents", timeout=10) as r:
        doc = json.load(r)
    out: dict = {"memory": set(), "disk": set()}
    for o in doc["objects"]:
        out[o["tier"]].update(o["blockHashes"])
    return out


def test_objects_evicted_to_the_disk_tier_are_announced_on_the_disk_medium():
    pool = pool_with_events(storage_nodes="2", memory="8MiB", disk="64MiB")
    pub, replay = pool.pub_port, pool.replay_port
    client = KvPoolClient(ClientConfig(pool.master, pool_key=pool.key, replicas=1, timeout=20, operation_timeout=60))
    sub = Subscriber(pub, replay)
    memory_medium, disk_medium = f"pool:{POOL}", f"pool:{POOL}:disk"
    try:
        for i in range(96):  # 24 MiB: three times the pool's memory
            assert client.put(f"tiered/{i}", bytes([i]) * (256 << 10))
        state: dict = {}

        def same() -> bool:
            sub.poll(200)
            state["master"] = residents_by_tier(pool)
            return (sub.by_medium.get(memory_medium, set()) == state["master"]["memory"]
                    and sub.by_medium.get(disk_medium, set()) == state["master"]["disk"]
                    and sub.hashes == state["master"]["memory"] | state["master"]["disk"])

        try:
            wait_for(same, 60, "the subscriber to hold the master's objects on each medium")
        except AssertionError:
            raise AssertionError(f"master per tier { {t: len(h) for t, h in state.get('master', {}).items()} }, "
                                 f"subscriber per medium { {m: len(h) for m, h in sub.by_medium.items()} }") from None
        assert state["master"]["disk"], "values past the memory were moved to the disk tiers"
        assert state["master"]["memory"], "the newest values stay in memory"
        for i in range(96):
            assert client.get(f"tiered/{i}") == bytes([i]) * (256 << 10)
    finally:
        sub.close()
        client.close()
        pool.stop()


def _await_monitor_event(monitor, event: int, seconds: float, what: str) -> float:
    """Waits for ``event`` on a socket monitor; returns when it came (time.monotonic())."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if monitor.poll(200):
            if recv_monitor_message(monitor)["event"] == event:
                return time.monotonic()
    raise AssertionError(f"no {what} within {seconds} s")


def test_a_subscriber_with_heartbeats_drops_a_frozen_publisher_and_receives_live_again():
    """docs/events.md's subscriber sets ZMTP heartbeats on its SUB socket: it pings the publisher every second and drops
    a connection that answers nothing for 5 s, so a publisher that vanished without closing its connections (here frozen
    with SIGSTOP; in a cluster, a leader pod whose address went away) is left and dialled again. Without them the SUB
    socket keeps the silent connection and never receives live again."""
    pool = pool_with_events(storage_nodes="1", memory="16MiB")
    pub, replay = pool.pub_port, pool.replay_port
    ctx = zmq.Context()
    client = KvPoolClient(ClientConfig(pool.master, pool_key=pool.key, replicas=1, timeout=20, operation_timeout=60))
    master = pool.master_process()
    frozen = False
    try:
        sub = ctx.socket(zmq.SUB)
        sub.setsockopt(zmq.SUBSCRIBE, TOPIC.encode())
        sub.setsockopt(zmq.HEARTBEAT_IVL, 1000)
        sub.setsockopt(zmq.HEARTBEAT_TIMEOUT, 5000)
        monitor = sub.get_monitor_socket(zmq.EVENT_CONNECTED | zmq.EVENT_DISCONNECTED)
        sub.connect(f"tcp://127.0.0.1:{pub}")

        def live() -> bool:
            client.put(f"live/{time.monotonic_ns()}", b"v" * 100)
            if sub.poll(500) == 0:
                return False
            topic, seq, _ = sub.recv_multipart()
            assert topic == TOPIC.encode() and len(seq) == 8
            return True

        # a batch received live: the handshake is done and the subscription in effect
        wait_for(live, 60, "a batch delivered live on the SUB socket")
        os.kill(master.pid, signal.SIGSTOP)
        frozen = True
        stopped = time.monotonic()
        dropped = _await_monitor_event(monitor, zmq.EVENT_DISCONNECTED, 60,
                                       "drop of the frozen publisher's connection")
        assert dropped - stopped >= 1, "the connection was dropped for its silence, not at once"
        os.kill(master.pid, signal.SIGCONT)
        frozen = False
        _await_monitor_event(monitor, zmq.EVENT_CONNECTED, 60, "reconnection to the publisher")
        wait_for(live, 60, "a batch delivered live on the reconnected SUB socket")
    finally:
        if frozen:
            os.kill(master.pid, signal.SIGCONT)
        client.close()
        ctx.destroy(linger=0)
        pool.stop()
