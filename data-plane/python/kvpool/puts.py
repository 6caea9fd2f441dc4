"""The put protocol, once, for one key or many (PROTOCOL.md, "Requests" and "Commits by storage nodes"): rounds of one
PUT_START for every key still open (per 4096 keys), the writes of all of them at once, then one PUT_END for those their
nodes did not commit and one PUT_REVOKE for those no replica reached, until every key is stored, found present, or
failed -- all within the operation's one deadline, master failovers and storage exchanges included. Each key keeps its
own state: the put id a retried PUT_START repeats (so a lost reply gets the same put back), the nodes to avoid after
they failed it, its data failures, its last error.

Before, a batch's failed keys were retried one by one, each with a fresh deadline: against a pool that was down, a
batch of N keys took (N + 1) operation timeouts. Now every key of a call shares the call's deadline."""

from __future__ import annotations

import enum
import random
from typing import Sequence

from .backoff import Backoff
from .codec import MAX_BATCH, MAX_VALUE_BYTES, key_problem
from .errors import (ConnectionFailed, ErrorCode, InvalidKey, KvPoolError, KvPoolTimeout, NoSpace, remote_error,
                     retryable)
from .messages import (BlockMetadata, Opcode, PutEndItem, PutStartItem, decode_put_start_reply, decode_status_list,
                       encode_put_end, encode_put_refs, encode_put_start, encode_put_start_meta)
from .memory import Regions
from .transfers import PutPlan, write_replicas

_MAX_AVOIDED = 16  # the nodes a retried PUT_START asks the master to avoid: the most recent ones


class PutResult(enum.Enum):
    """How a key's put ended."""
    STORED = "stored"
    PRESENT = "present"  # the key already held a value, which is kept
    FAILED = "failed"


def value_problem(key: str, value: Regions, replicas: int) -> Exception | None:
    """None when ``value`` may be put under ``key`` with ``replicas`` copies, else the exception that says why not."""
    if value.size == 0:
        return ValueError(f"value of key '{key}' is empty; values have 1 byte or more")
    if value.size > MAX_VALUE_BYTES:
        return NoSpace(f"value of key '{key}' has {value.size} bytes; the limit is {MAX_VALUE_BYTES} bytes per value")
    if not 1 <= replicas <= 255:
        return ValueError(f"replicas must be within 1..255, got {replicas}")
    return None


class PutEntry:
    """One key's put across the rounds of an operation. ``result`` and ``failure`` say how it ended."""

    __slots__ = ("key", "value", "crc", "metadata", "avoid", "put_id", "started", "data_failures", "failure", "result")

    def __init__(self, key: str, value: Regions, crc: int = 0, metadata: BlockMetadata | None = None):
        self.key = key
        self.metadata = metadata  # what the writer says about the KV blocks the value holds (protocol 2.3)
        self.value = value
        self.crc = crc
        self.avoid: list = []
        self.put_id = random.getrandbits(63)
        self.started = False  # a PUT_START of this operation was granted: a later ALREADY_EXISTS may be this put
        self.data_failures = 0
        self.failure: BaseException | None = None
        self.result: PutResult | None = None

    def avoiding(self, failed_lately: list) -> tuple:
        """The nodes its next PUT_START avoids: those that failed it (the latest ones), then as many of
        ``failed_lately`` (the client's, the latest first) as the request allows. The master places a put on avoided
        nodes only when too few others can serve."""
        own = self.avoid[-_MAX_AVOIDED:]
        return tuple(own + [n for n in failed_lately if n not in own][:_MAX_AVOIDED - len(own)])

    def fail(self, error: BaseException) -> None:
        self.failure = error
        self.result = PutResult.FAILED

    def failed_data(self, error: KvPoolError, retries: int) -> None:
        """Its data path failed: the next round starts a new put (new put id), unless it ran out of attempts."""
        self.failure = error
        self.put_id = random.getrandbits(63)
        self.data_failures += 1
        if not retryable(error) or self.data_failures > retries:
            self.result = PutResult.FAILED


def entries(keys: Sequence[str], values: Sequence[Regions], replicas: int, crc_of, metadata=None) -> list:
    """The entries of a call: an invalid key or value fails its own entry at once (InvalidKey, ValueError, NoSpace),
    nothing is sent for it; the others get their CRC32C. ``metadata``: one BlockMetadata or None per key, or None."""
    out = []
    for i, (key, value) in enumerate(zip(keys, values)):
        problem = key_problem(key)
        entry = PutEntry(key, value, metadata=None if metadata is None else metadata[i])
        if problem is not None:
            entry.fail(InvalidKey(problem))
        else:
            refused = value_problem(key, value, replicas)
            if refused is not None:
                entry.fail(refused)
            else:
                entry.crc = crc_of(value)
        out.append(entry)
    return out


class PutOperation:
    def __init__(self, config, master, storage, commits, entries: list, replicas: int,
                 deadline: Backoff | None = None):
        self.config = config
        self.master = master
        self.storage = storage
        self.commits = commits
        self.entries = entries
        self.replicas = replicas
        self.deadline = deadline or Backoff.until(config.operation_timeout)

    def run(self) -> list:
        """Runs rounds until every entry has its result; returns the entries."""
        while True:
            open_entries = [e for e in self.entries if e.result is None]
            if not open_entries:
                return self.entries
            for i in range(0, len(open_entries), MAX_BATCH):
                chunk = open_entries[i:i + MAX_BATCH]
                try:
                    self._round(chunk)
                except KvPoolError as error:
                    # a master exchange failed for the whole round: retried within the deadline when it may pass
                    for e in chunk:
                        if e.result is None:
                            e.failure = error
                            if not retryable(error):
                                e.result = PutResult.FAILED
            if any(e.result is None for e in self.entries) and not self.deadline.pause():
                for e in self.entries:
                    if e.result is None:
                        e.fail(self._timed_out(e))

    def _timed_out(self, e: PutEntry) -> KvPoolError:
        """What a key that ran out of time failed with: its last failure, which says why it could not complete."""
        if isinstance(e.failure, KvPoolError):
            return e.failure
        return ConnectionFailed(f"put of key '{e.key}' did not complete within the operation timeout of"
                                f" {self.config.operation_timeout:g} s")

    def _round(self, open_entries: list) -> None:
        failed_lately = self.storage.failed.recent()
        items = [PutStartItem(e.key, e.value.size, e.crc, self.replicas, e.put_id, e.avoiding(failed_lately))
                 for e in open_entries]
        if any(e.metadata is not None for e in open_entries):
            body = encode_put_start_meta(items, [e.metadata for e in open_entries])
            started = self._expect(self.master.call(Opcode.PUT_START_META, body, decode_put_start_reply,
                                                    self.deadline), len(items), "PUT_START_META")
        else:
            started = self._expect(self.master.call(Opcode.PUT_START, encode_put_start(items),
                                                    decode_put_start_reply, self.deadline), len(items), "PUT_START")
        writing, plans = [], []
        for e, r in zip(open_entries, started):
            if r.status == ErrorCode.OK:
                e.started = True
                writing.append(e)
                plans.append(PutPlan(e.key, r.generation, r.expires_at, self.replicas, e.value, e.crc, r.replicas,
                                     e.metadata))
            elif r.status == ErrorCode.ALREADY_EXISTS:
                e.result = PutResult.STORED if e.started else PutResult.PRESENT
            else:
                e.failure = remote_error(r.status, f"put of key '{e.key}' refused by the master: {r.message}")
                if not r.status.retryable:
                    e.result = PutResult.FAILED
        if not plans:
            return
        outcomes = write_replicas(self.storage, self.config.timeout, plans, self.deadline.deadline)
        ending, ends, revoke = [], [], []
        by_nodes = 0
        unreachable = set()
        for e, plan, outcome in zip(writing, plans, outcomes):
            for node, error in outcome.failures.items():
                if isinstance(error, (ConnectionFailed, KvPoolTimeout)):
                    unreachable.add(node)
                    if node not in e.avoid:
                        e.avoid.append(node)  # the master may not know yet: place the next attempt elsewhere
            for node in outcome.receipts:
                self.storage.failed.answered(node)
            if outcome.committed_by_nodes(plan):
                e.result = PutResult.STORED
                by_nodes += 1
            elif outcome.receipts:
                ending.append(e)
                ends.append(PutEndItem(e.key, plan.generation, list(outcome.receipts.items())))
            else:
                revoke.append((e.key, plan.generation))
                e.failed_data(next(iter(outcome.failures.values()), None) or ConnectionFailed(
                    f"put of key '{e.key}': no storage node returned a receipt"), self.config.retries)
        for node in unreachable:  # once per node: its writes shared one exchange
            self.storage.failed.failed(node)
        self.commits.by_nodes(by_nodes)
        if revoke:
            self._revoke_quietly(revoke)
        if ends:
            for e, status in zip(ending, self._end_puts(ends)):
                if status == ErrorCode.OK:
                    e.result = PutResult.STORED
                    self.commits.by_put_end(1)
                else:
                    # lost (a new leader never heard of it, or it expired): the next round starts it again, and finds
                    # the value stored (ALREADY_EXISTS) if a node's inventory brought it back meanwhile
                    e.failed_data(ConnectionFailed(
                        f"put of key '{e.key}' was dropped by the master before it completed ({status.name}): a"
                        " storage node holding it failed or the put outlived its grant", status), self.config.retries)

    def _end_puts(self, items: list) -> list:
        """PUT_END, asking again for the entries a recovering new leader cannot answer yet (RECOVERING: the nodes
        holding the replicas have not re-registered) until the deadline; the other statuses are final."""
        out = self._put_end(items)
        pending = [i for i, s in enumerate(out) if s == ErrorCode.RECOVERING]
        while pending and self.deadline.pause():
            for i, s in zip(pending, self._put_end([items[i] for i in pending])):
                out[i] = s
            pending = [i for i in pending if out[i] == ErrorCode.RECOVERING]
        return out

    def _put_end(self, items: list) -> list:
        return self._expect(self.master.call(Opcode.PUT_END, encode_put_end(items), decode_status_list,
                                             self.deadline), len(items), "PUT_END")

    def _revoke_quietly(self, refs: list) -> None:
        try:
            self.master.call(Opcode.PUT_REVOKE, encode_put_refs(refs), decode_status_list, self.deadline)
        except KvPoolError:
            pass  # the master revokes abandoned puts itself when their grants expire

    @staticmethod
    def _expect(results: list, expected: int, what: str) -> list:
        if len(results) != expected:
            raise KvPoolError(f"master answered {what} with {len(results)} results for {expected} keys")
        return results
