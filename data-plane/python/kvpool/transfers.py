"""Moving value bytes between the caller's regions and storage nodes, many values at once and without helper
threads: every node first gets all of its requests, then the replies are collected node by node, so a node answers
while the requests of the nodes after it go out and the replies of those before it are taken in. A node that speaks
protocol 2.1 gets several reads (writes) as one READ_BATCH (WRITE_BATCH): one frame each way; an older node gets them
pipelined on one connection. Each value learns, per node, its result or why not, and a put whether the node committed
its replica at the master itself (protocol 2.2).

Sending a node its requests (its connection opened if none is idle) gets the exchange timeout, and so does taking in
its replies, from when that starts: a frozen node costs its own values one timeout and the nodes collected after it
theirs only if they are late too. Both are cut to the operation's deadline when one is given, so a batch over frozen
nodes ends with its operation: a node whose turn comes after the deadline is not tried, or its replies are not waited
for (its values fail with :class:`KvPoolTimeout`)."""

from __future__ import annotations

import time
from typing import NamedTuple, Sequence

from .checksum import crc32c_of_regions
from .errors import (ChecksumMismatch, ConnectionFailed, ErrorCode, KvPoolError, KvPoolTimeout, ProtocolError,
                     remote_error)
from .memory import Regions
from .messages import (BlockMetadata, Opcode, ReplicaGrant, ReplicaListResult, ReplicaLocation, decode_read_batch_reply,
                       decode_read_reply, decode_write_batch_reply, decode_write_reply, encode_read, encode_read_batch,
                       encode_read_object, encode_write, encode_write_batch)
from .pools import StorageConnections


# block metadata bytes one WRITE_BATCH carries at most; a node's writes carrying more go as pipelined WRITEs, each its
# own body, so that no body nears the frame's limit
BATCH_METADATA_BYTES = 16 << 20


class PutPlan(NamedTuple):
    """A granted put: its object, its value, where to write it and its block metadata (None: none; it goes to each
    node of protocol 2.5 with the value's first slice)."""
    key: str
    generation: int
    expires_at: int
    replicas: int
    value: Regions
    crc: int
    grants: Sequence[ReplicaGrant]
    metadata: "BlockMetadata | None" = None

    def metadata_of(self, s) -> "BlockMetadata | None":
        """The metadata a write of slice ``s`` carries: the put's, with the value's first slice only."""
        return self.metadata if s.value_offset == 0 else None


class WriteOutcome(NamedTuple):
    receipts: dict  # node id -> receipt of a complete, verified replica
    failures: dict  # node id -> KvPoolError
    committed: set  # ids of the nodes that committed their replica at the master themselves (protocol 2.2)

    def committed_by_nodes(self, put: PutPlan) -> bool:
        """Whether the put is committed without a PUT_END: every granted replica written, each committed by its node
        (PROTOCOL.md, "Commits by storage nodes"). Else the client's PUT_END completes it."""
        granted = {grant.node_id for grant in put.grants}
        return bool(granted) and not self.failures and self.receipts.keys() == granted and self.committed >= granted


def _check_range(offset: int, length: int, size: int, what: str) -> None:
    if offset + length > size:
        raise ProtocolError(f"{what}: slice [{offset}, +{length}) exceeds the value size {size}")


def _until(timeout: float, deadline: float | None, what: str) -> float:
    """When a step that may take ``timeout`` seconds from now must end: then, or the operation's ``deadline``
    (monotonic; None: no cut) if earlier. KvPoolTimeout, saying that ``what`` was not done, once the deadline has
    passed."""
    now = time.monotonic()
    until = now + timeout if deadline is None else min(now + timeout, deadline)
    if until <= now:
        raise KvPoolTimeout(f"{what}: the operation's deadline had passed")
    return until


def _exchange(storage: StorageConnections, endpoint: str, timeout: float, deadline: float | None):
    """A connection to ``endpoint`` armed for one exchange of ``timeout`` seconds, cut to the operation's
    ``deadline`` (monotonic; None: no cut). KvPoolTimeout, no connection touched, once the deadline has passed."""
    until = _until(timeout, deadline, f"no exchange with {endpoint}")
    c = storage.borrow(endpoint, until - time.monotonic())
    c.arm_until(until)
    return c


class _Sent(NamedTuple):
    """A node's requests, sent on ``connection``: ``ids`` (one batch request, or pipelined ones) for ``items``."""
    endpoint: str
    connection: object
    items: list
    ids: list
    batch: bool


def _per_node(storage: StorageConnections, groups: dict, send, collect, timeout: float, deadline: float | None,
              fail) -> None:
    """Sends every node its requests (``send(endpoint, items)`` returns the :class:`_Sent`, or None when no
    connection could be had), then takes in their replies node by node in the same order (``collect(sent)``), each
    with the exchange timeout from when its turn comes, and returns every connection (closes those whose replies an
    exception left unread). A node whose turn comes after the operation's deadline fails its items (``fail(item,
    error)``) unread. (Tried: one I/O thread per node, since socket
    calls release the GIL; on 2 cores shared with the pool it was no faster for 64 x 256 KiB batches, so it was left
    out.)"""
    pending: list = []
    try:
        for endpoint, items in groups.items():
            s = send(endpoint, items)
            if s is not None:
                pending.append(s)
        while pending:
            s = pending[0]
            try:
                s.connection.arm_until(_until(timeout, deadline, f"no reply from {s.endpoint} taken in"))
            except KvPoolTimeout as e:
                s.connection.broken = True  # its replies are left unread
                for item in s.items:
                    fail(item, e)
            else:
                collect(s)
            storage.release(s.endpoint, pending.pop(0).connection)
    finally:
        for s in pending:  # something else than a KvPoolError escaped (an interrupt): replies left unread
            s.connection.close()


def write_replicas(storage: StorageConnections, timeout: float, puts: Sequence[PutPlan],
                   deadline: float | None = None) -> list:
    """One outcome per put. Each node's exchange takes at most ``timeout`` seconds and ends by ``deadline`` (the
    operation's, monotonic) when given; a node reached after it is not tried."""
    outcomes = [WriteOutcome({}, {}, set()) for _ in puts]

    def fail(item, error: KvPoolError) -> None:
        outcome = outcomes[item[0]]
        outcome.failures.setdefault(item[1].node_id, error)
        outcome.receipts.pop(item[1].node_id, None)
        outcome.committed.discard(item[1].node_id)

    def received(item, receipt: bytes, committed: bool) -> None:
        """Records the receipt of the write that completed a replica (the others answer none) and whether its node
        committed it, unless another write of that replica failed."""
        outcome, node_id = outcomes[item[0]], item[1].node_id
        if receipt and node_id not in outcome.failures:
            outcome.receipts[node_id] = receipt
            if committed:
                outcome.committed.add(node_id)

    by_node: dict = {}
    for p, put in enumerate(puts):
        for grant in put.grants:
            try:
                for sg in grant.slices:
                    _check_range(sg.slice.value_offset, sg.slice.length, put.value.size,
                                 f"write grant for key '{put.key}'")
            except ProtocolError as e:
                outcomes[p].failures.setdefault(grant.node_id, e)
                continue
            for sg in grant.slices:
                by_node.setdefault(grant.endpoint, []).append((p, grant, sg))

    def send_writes(endpoint: str, items: list) -> _Sent | None:
        """Sends every write of this node: one WRITE_BATCH, or pipelined WRITEs."""
        try:
            c = _exchange(storage, endpoint, timeout, deadline)
        except KvPoolError as e:
            for item in items:
                fail(item, e)
            return None
        metadata_bytes = sum(m.encoded_bytes() for m in (puts[p].metadata_of(sg.slice) for p, _, sg in items) if m)
        if len(items) > 1 and storage.batches(c) and metadata_bytes <= BATCH_METADATA_BYTES:
            body = encode_write_batch([(puts[p].key, puts[p].generation, sg.slice, puts[p].value.size, puts[p].crc,
                                        puts[p].replicas, puts[p].expires_at, sg.token, puts[p].metadata_of(sg.slice))
                                       for p, _, sg in items], c.agreed_minor)
            payload = []
            for p, _, sg in items:
                payload.extend(puts[p].value.slice(sg.slice.value_offset, sg.slice.length))
            try:
                return _Sent(endpoint, c, items, [c.send(Opcode.WRITE_BATCH, body, payload)], True)
            except KvPoolError as e:
                for item in items:
                    fail(item, e)
                return _Sent(endpoint, c, [], [], True)
        ids = []
        try:
            for p, grant, sg in items:
                put = puts[p]
                s = sg.slice
                body = encode_write(put.key, put.generation, s, put.value.size, put.crc, put.replicas,
                                    put.expires_at, sg.token, c.agreed_minor, put.metadata_of(s))
                ids.append(c.send(Opcode.WRITE, body, put.value.slice(s.value_offset, s.length)))
        except KvPoolError as e:
            c.broken = True
            for item in items[len(ids):]:
                fail(item, e)
        return _Sent(endpoint, c, items[:len(ids)], ids, False)

    def collect_writes(sent: _Sent) -> None:
        """Reads the replies of this node's writes in order."""
        c = sent.connection
        if sent.batch:
            collect_batch(sent)
            return
        for item, request_id in zip(sent.items, sent.ids):
            p, grant, _ = item
            if not c.usable:
                fail(item, ConnectionFailed(f"writing key '{puts[p].key}' to node {grant.node_id}: the connection to"
                                            f" {sent.endpoint} failed"))
                continue
            try:
                reply = decode_write_reply(c.receive(Opcode.WRITE, request_id), c.agreed_minor)
                received(item, reply.receipt, reply.committed)
            except KvPoolError as e:
                fail(item, e)

    def collect_batch(sent: _Sent) -> None:
        """The one reply to a WRITE_BATCH, with every receipt."""
        if not sent.items:
            return
        c, items = sent.connection, sent.items
        try:
            results = decode_write_batch_reply(c.receive(Opcode.WRITE_BATCH, sent.ids[0]), c.agreed_minor)
            if len(results) != len(items):
                c.broken = True
                raise ProtocolError(f"{sent.endpoint} answered {len(results)} of {len(items)} writes")
        except KvPoolError as e:
            for item in items:
                fail(item, e)
            return
        for item, r in zip(items, results):
            p, grant, _ = item
            if r.status != ErrorCode.OK:
                fail(item, remote_error(r.status, f"writing key '{puts[p].key}' to node {grant.node_id} at"
                                                  f" {sent.endpoint}: {r.message}"))
            else:
                received(item, r.receipt, r.committed)

    _per_node(storage, by_node, send_writes, collect_writes, timeout, deadline, fail)
    return outcomes


class ReadPlan(NamedTuple):
    """One value to read from ``replica`` into ``dst`` (the first ``result.size`` bytes)."""
    key: str
    result: ReplicaListResult
    replica: ReplicaLocation
    dst: Regions


def read_replicas(storage: StorageConnections, timeout: float, reads: Sequence[ReadPlan],
                  deadline: float | None = None) -> list:
    """One entry per read: None when its bytes arrived and match the CRC32C, else the failure. Each node's exchange
    takes at most ``timeout`` seconds and ends by ``deadline`` (the operation's, monotonic) when given."""
    failures: list = [None] * len(reads)
    by_node: dict = {}
    for i, read in enumerate(reads):
        try:
            for s in read.replica.slices:
                _check_range(s.value_offset, s.length, read.result.size, f"replica of key '{read.key}'")
        except ProtocolError as e:
            failures[i] = e
            continue
        for s in read.replica.slices:
            by_node.setdefault(read.replica.endpoint, []).append((i, s))
        if read.replica.is_disk:
            by_node.setdefault(read.replica.endpoint, []).append((i, None))  # one READ_OBJECT, the whole value

    def fail(item, error: KvPoolError) -> None:
        failures[item[0]] = failures[item[0]] or error

    def send_reads(endpoint: str, items: list) -> _Sent | None:
        """Sends every read of this node: one READ_BATCH, or pipelined READs (and READ_OBJECTs)."""
        try:
            c = _exchange(storage, endpoint, timeout, deadline)
        except KvPoolError as e:
            for item in items:
                fail(item, e)
            return None
        if len(items) > 1 and storage.batches(c) and all(s is not None for _, s in items):
            body = encode_read_batch([(reads[i].key, reads[i].result.generation, s, reads[i].result.expires_at,
                                       reads[i].replica.token) for i, s in items])
            try:
                return _Sent(endpoint, c, items, [c.send(Opcode.READ_BATCH, body)], True)
            except KvPoolError as e:
                for item in items:
                    fail(item, e)
                return _Sent(endpoint, c, [], [], True)
        ids = []
        try:
            for i, s in items:
                read = reads[i]
                if s is None:
                    ids.append(c.send(Opcode.READ_OBJECT, encode_read_object(read.key, read.result.generation,
                                                                             read.result.expires_at,
                                                                             read.replica.token)))
                else:
                    ids.append(c.send(Opcode.READ, encode_read(read.key, read.result.generation, s,
                                                               read.result.expires_at, read.replica.token)))
        except KvPoolError as e:
            c.broken = True
            for item in items[len(ids):]:
                fail(item, e)
        return _Sent(endpoint, c, items[:len(ids)], ids, False)

    def collect_reads(sent: _Sent) -> None:
        """Reads the replies of this node's reads and their payloads in order."""
        if sent.batch:
            collect_batch(sent)
            return
        c = sent.connection
        for (i, s), request_id in zip(sent.items, sent.ids):
            read = reads[i]
            if not c.usable:
                failures[i] = failures[i] or ConnectionFailed(
                    f"reading key '{read.key}' from node {read.replica.node_id}: the connection to {sent.endpoint}"
                    f" failed")
                continue
            try:
                offset, expected = (0, read.result.size) if s is None else (s.value_offset, s.length)
                length = decode_read_reply(c.receive(Opcode.READ if s is not None else Opcode.READ_OBJECT,
                                                     request_id))
                if length != expected:
                    c.broken = True
                    raise ProtocolError(f"node {read.replica.node_id} sent {length} bytes of key '{read.key}',"
                                        f" expected {expected}")
                c.read_payload(read.dst.slice(offset, expected))
            except KvPoolError as e:
                failures[i] = failures[i] or e

    def collect_batch(sent: _Sent) -> None:
        """The one reply to a READ_BATCH; the OK reads' bytes follow it, in order."""
        if not sent.items:
            return
        c, items = sent.connection, sent.items
        try:
            results = decode_read_batch_reply(c.receive(Opcode.READ_BATCH, sent.ids[0]))
            if len(results) != len(items):
                c.broken = True
                raise ProtocolError(f"{sent.endpoint} answered {len(results)} of {len(items)} reads")
        except KvPoolError as e:
            for item in items:
                fail(item, e)
            return
        for (i, s), r in zip(items, results):
            read = reads[i]
            if not c.usable:
                failures[i] = failures[i] or ConnectionFailed(
                    f"reading key '{read.key}' from node {read.replica.node_id}: the connection to {sent.endpoint}"
                    f" failed")
                continue
            if r.status != ErrorCode.OK:
                failures[i] = failures[i] or remote_error(
                    r.status, f"reading key '{read.key}' from node {read.replica.node_id} at {sent.endpoint}:"
                              f" {r.message}")
                continue
            try:
                if r.length != s.length:
                    c.broken = True
                    raise ProtocolError(f"node {read.replica.node_id} sent {r.length} bytes of key '{read.key}',"
                                        f" expected {s.length}")
                c.read_payload(read.dst.slice(s.value_offset, s.length))
            except KvPoolError as e:
                failures[i] = failures[i] or e

    _per_node(storage, by_node, send_reads, collect_reads, timeout, deadline, fail)
    for i, read in enumerate(reads):
        if failures[i] is None:
            failures[i] = _verify(read)
    return failures


def _verify(read: ReadPlan):
    covered = sum(s.length for s in read.replica.slices) if read.replica.slices else read.result.size
    if covered != read.result.size:
        return ProtocolError(f"replica of key '{read.key}' on node {read.replica.node_id} has slices of {covered}"
                             f" bytes for a value of {read.result.size}")
    actual = crc32c_of_regions(read.dst.slice(0, read.result.size))
    if actual != read.result.crc:
        return ChecksumMismatch(f"value of key '{read.key}' read from node {read.replica.node_id} has CRC32C"
                                f" 0x{actual:08x}, expected 0x{read.result.crc:08x}")
    return None
