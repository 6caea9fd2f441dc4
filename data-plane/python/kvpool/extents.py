"""Small puts through extents (protocol 2.4, PROTOCOL.md "Extents"): the master grants the client an extent ahead of
its puts -- a range of one storage node's segment and a run of generations -- and the client gives each small put the
next generation and the next 64-byte-aligned part of it, then writes the value there with one EXTENT_WRITE, whose node
commits it at the master before replying. A put costs one exchange, with its storage node only.

What an extent cannot take is left to the PUT_START path (:class:`kvpool.puts.PutOperation`): no extent granted (a
master of protocol 2.3 answers UNKNOWN_OPCODE, one at its limits LIMIT_EXCEEDED or NO_SPACE; puts then take PUT_START
for a second before asking again), a refused write (the extent is dropped: GRANT_REJECTED, OUT_OF_BOUNDS, ...; or
PUT_IN_PROGRESS, which PUT_START waits out), and a write whose answer is unknown (NODE_UNAVAILABLE, a failed
connection) and whose put the master does not confirm with PUT_END. ALREADY_EXISTS ends the put as PUT_START's does:
the key is present and keeps its value.

Threads share one client: the current extent is carved under a lock (each value its own generation and range), one
thread at a time asks for the next extent, and an extent given up is given back (EXTENT_RETURN) once no write into it
is in flight any more, so that no write of another thread is refused for it. :meth:`ExtentPuts.close` gives back
what is left."""

from __future__ import annotations

import threading
import time
from typing import NamedTuple

from .backoff import Backoff
from .errors import ConnectionFailed, ErrorCode, KvPoolError, KvPoolTimeout, RemoteError
from .messages import (ExtentGrant, Opcode, PutEndItem, decode_empty, decode_status_list, encode_extent_grant,
                       encode_extent_return, encode_extent_write, encode_put_end)
from .puts import PutEntry, PutResult
from .transfers import _exchange

MAX_VALUE_BYTES = 256 << 10  # the largest value put through an extent
EXTENT_BYTES = 4 << 20  # the extent length asked for (as the Java client's)
ALIGNMENT = 64  # each value starts at a multiple of this in its extent
EXPIRY_MARGIN = 2.0  # seconds: an extent is not written in its last moments (a write admitted then may be cut)
REFUSED_PAUSE = 1.0  # seconds: after no extent was granted, puts take PUT_START this long before asking again
_MAX_TTL_MILLIS = 600_000  # a grant's lifetime beyond this is not believed (see usable_until)
_MAX_AVOIDED = 16  # the nodes an EXTENT_GRANT may name to avoid


class ExtentStats(NamedTuple):
    """What one client's extents did: puts stored through an extent (by their node's answer, or a PUT_END that
    confirmed an unknown one), puts an extent write found present (the stored value is kept), puts that could have
    gone through an extent but went through PUT_START (no extent granted, or the write refused or unconfirmed), and
    extents the master granted and this client gave back."""
    puts: int
    present: int
    fallbacks: int
    granted: int
    returned: int


class _Held:
    """An extent this client holds, the node it is on, how much of it is used and how many writes into it are in
    flight. Guarded by the lock of its :class:`ExtentPuts`."""

    __slots__ = ("node_id", "endpoint", "extent", "usable_until", "cursor", "used_generations", "in_flight", "retired",
                 "given_back")

    def __init__(self, grant: ExtentGrant, usable_until: float):
        self.node_id = grant.node_id
        self.endpoint = grant.endpoint
        self.extent = grant.extent
        self.usable_until = usable_until  # monotonic
        self.cursor = 0  # the next value's offset in the extent, a multiple of ALIGNMENT
        self.used_generations = 0
        self.in_flight = 0
        self.retired = False  # no further value goes into it
        self.given_back = False  # EXTENT_RETURN sent (or being sent)

    def fits(self, need: int, now: float) -> bool:
        return (not self.retired and self.used_generations < self.extent.generations
                and self.cursor + need <= self.extent.length and now < self.usable_until)


def usable_until(grant: ExtentGrant, asked_at: float) -> float:
    """The monotonic time after which no value goes into the granted extent: its expiry less EXPIRY_MARGIN. The
    expiry is master time, which this machine's clock need not agree with, so the extent's lifetime is taken from the
    master's own numbers: its first generation was issued as ``max(previous + 1, now_ms << 20)`` at the grant
    (PROTOCOL.md, "Objects, generations"), so ``expires_at - (first_generation >> 20)`` is at most the lifetime left
    when the grant was made, counted here from before it was asked for (``asked_at``). A lifetime that does not look
    like one (a master issuing generations otherwise) falls back to this machine's clock."""
    e = grant.extent
    ttl_ms = e.expires_at - (e.first_generation >> 20)
    if not 0 < ttl_ms <= _MAX_TTL_MILLIS:
        ttl_ms = e.expires_at - time.time() * 1000
    return asked_at + ttl_ms / 1000 - EXPIRY_MARGIN


class ExtentPuts:
    """One client's extents. :meth:`put` tries a put through one; the caller puts what it leaves open through
    PUT_START."""

    def __init__(self, config, master, storage, commits):
        self.config = config
        self.master = master
        self.storage = storage
        self.commits = commits
        self._lock = threading.Lock()  # the current extent, every _Held, the counters
        self._granting = threading.Lock()  # one EXTENT_GRANT at a time
        self._current: _Held | None = None
        self._held: dict = {}  # first generation -> _Held granted and not given back
        self._paused_until = 0.0
        self._avoid: list = []  # nodes that failed a write (unreachable, an unknown answer): the next grant avoids them
        self._closed = False
        self._puts = self._present = self._fallbacks = self._granted = self._returned = 0

    @staticmethod
    def takes(entry: PutEntry, replicas: int) -> bool:
        """Whether a put may go through an extent: a valid entry of one replica, no block metadata, at most
        MAX_VALUE_BYTES."""
        return (entry.result is None and replicas == 1 and entry.metadata is None
                and 0 < entry.value.size <= MAX_VALUE_BYTES)

    def stats(self) -> ExtentStats:
        with self._lock:
            return ExtentStats(self._puts, self._present, self._fallbacks, self._granted, self._returned)

    # ---- a put ----

    def put(self, entry: PutEntry, deadline: Backoff) -> None:
        """Puts ``entry`` through an extent: sets its result (STORED, or PRESENT when its key held a value), or leaves
        it open for the PUT_START path."""
        place = self._place(entry.value.size, deadline)
        if place is None:
            self._count_fallback()
            return
        held, at, generation = place
        try:
            self._write(held, at, generation, entry, deadline)
        finally:
            self._write_ended(held, deadline)
        with self._lock:
            if entry.result == PutResult.STORED:
                self._puts += 1
            elif entry.result == PutResult.PRESENT:
                self._present += 1
            else:
                self._fallbacks += 1

    def _write(self, held: _Held, at: int, generation: int, entry: PutEntry, deadline: Backoff) -> None:
        """One EXTENT_WRITE of the whole value, its payload sent from the caller's regions."""
        body = encode_extent_write(held.extent, entry.key, generation, at, entry.value.size, entry.crc)
        sent = False
        try:
            c = _exchange(self.storage, held.endpoint, self.config.timeout, deadline.deadline)
            try:
                request = c.send(Opcode.EXTENT_WRITE, body, entry.value.views)
                sent = True
                decode_empty(c.receive(Opcode.EXTENT_WRITE, request))
            finally:
                self.storage.release(held.endpoint, c)  # a broken connection is closed, a usable one kept
        except RemoteError as e:
            if e.code == ErrorCode.ALREADY_EXISTS:
                entry.result = PutResult.PRESENT  # the stored value is kept, as with PUT_START
            elif e.code == ErrorCode.PUT_IN_PROGRESS:
                pass  # another put of the key is pending: PUT_START waits it out; the extent is fine
            else:
                self._retire(held, avoid=e.code == ErrorCode.NODE_UNAVAILABLE)
                if e.code == ErrorCode.NODE_UNAVAILABLE:
                    self._confirm(entry, generation, deadline)  # the node kept the value; the master's word decides
            return
        except KvPoolError as e:
            if isinstance(e, (ConnectionFailed, KvPoolTimeout)):
                self.storage.failed.failed(held.node_id)
            self._retire(held, avoid=True)
            if sent:
                self._confirm(entry, generation, deadline)  # the value may have landed and been committed
            return
        self.storage.failed.answered(held.node_id)
        entry.result = PutResult.STORED
        self.commits.by_nodes(1)

    def _confirm(self, entry: PutEntry, generation: int, deadline: Backoff) -> None:
        """The node's answer is unknown: PUT_END without receipts is OK only for a put the master completed (a new
        leader adopted it from the node's inventory, or the old one applied it). Anything else leaves the put to
        PUT_START, whose new generation wins over this one if a leader adopts it later."""
        try:
            statuses = self.master.call(Opcode.PUT_END, encode_put_end([PutEndItem(entry.key, generation, [])]),
                                        decode_status_list, deadline)
        except KvPoolError:
            statuses = []
        if statuses == [ErrorCode.OK]:
            entry.result = PutResult.STORED
            self.commits.by_put_end(1)
        else:
            entry.started = True  # a later ALREADY_EXISTS may be this very value, adopted from the node

    # ---- carving ----

    def _place(self, size: int, deadline: Backoff):
        """(extent, at, generation) for a value of ``size`` bytes, counted as in flight in that extent: in the
        current extent, or in a new one asked for now; None when there is none."""
        need = (max(size, 1) + ALIGNMENT - 1) // ALIGNMENT * ALIGNMENT
        place, spent = self._carve(need)
        self._give_back(spent, deadline)
        if place is not None:
            return place
        # the current extent cannot take it: one thread asks the master for the next one, the others wait for it
        if not self._granting.acquire(timeout=max(0.0, deadline.left())):
            return None
        try:
            place, spent = self._carve(need)  # another thread may have been granted one meanwhile
            self._give_back(spent, deadline)
            if place is not None:
                return place
            with self._lock:
                if self._closed or time.monotonic() < self._paused_until:
                    return None
                # the nodes this client's extent writes failed at since the last grant, then those any operation of
                # the client found failed lately
                avoid = list(self._avoid)
                avoid += [n for n in self.storage.failed.recent() if n not in avoid][:_MAX_AVOIDED - len(avoid)]
            granted = self._grant(avoid, deadline)
            orphan = None
            with self._lock:
                if granted is None:
                    self._paused_until = time.monotonic() + REFUSED_PAUSE
                    return None
                if self._closed:
                    orphan, granted.given_back = granted, True
                else:
                    self._current = granted
                    self._held[granted.extent.first_generation] = granted
                    self._granted += 1
                    self._avoid.clear()
            if orphan is not None:  # granted while the client closed
                self._give_back(orphan, deadline)
                return None
            place, spent = self._carve(need)
            self._give_back(spent, deadline)
            if place is None:  # an extent that cannot take even this value: not asked for again at once
                with self._lock:
                    self._paused_until = time.monotonic() + REFUSED_PAUSE
            return place
        finally:
            self._granting.release()

    def _carve(self, need: int):
        """The next place in the current extent, or None; and the extent to give back now (the current one, used up
        or expiring, when no write into it is in flight), or None."""
        with self._lock:
            h = self._current
            if h is None:
                return None, None
            if h.fits(need, time.monotonic()):
                place = (h, h.cursor, h.extent.first_generation + h.used_generations)
                h.cursor += need
                h.used_generations += 1
                h.in_flight += 1
                return place, None
            return None, self._retire_locked(h)

    def _retire(self, held: _Held, avoid: bool = False) -> None:
        """No further value goes into ``held`` (a write into it was refused or its answer lost; ``avoid``: its node
        failed, so the next extent is asked for elsewhere). Given back when its last write in flight ends."""
        with self._lock:
            held.retired = True
            if self._current is held:
                self._current = None
            if avoid and held.node_id not in self._avoid:
                self._avoid.append(held.node_id)
                del self._avoid[:-_MAX_AVOIDED]

    def _retire_locked(self, held: _Held) -> _Held | None:
        held.retired = True
        if self._current is held:
            self._current = None
        return self._idle_spent(held)

    def _idle_spent(self, held: _Held) -> _Held | None:
        """``held`` when it is retired, no write into it is in flight and it was not given back yet (it is then marked
        given back: the caller sends the EXTENT_RETURN)."""
        if held.retired and held.in_flight == 0 and not held.given_back:
            held.given_back = True
            self._held.pop(held.extent.first_generation, None)
            return held
        return None

    def _write_ended(self, held: _Held, deadline: Backoff) -> None:
        with self._lock:
            held.in_flight -= 1
            spent = self._idle_spent(held)
        self._give_back(spent, deadline)

    def _count_fallback(self) -> None:
        with self._lock:
            self._fallbacks += 1

    # ---- the master ----

    def _grant(self, avoid: list, deadline: Backoff) -> _Held | None:
        """A new extent, on none of the nodes ``avoid`` names when others can serve; None when the master grants none
        (or cannot be asked within one exchange timeout: the PUT_START path then has the rest of the deadline)."""
        asked_at = time.monotonic()
        try:
            grant = self.master.call(Opcode.EXTENT_GRANT, encode_extent_grant(EXTENT_BYTES, avoid), ExtentGrant.decode,
                                     min(deadline.deadline, asked_at + self.config.timeout))
        except KvPoolError:
            return None  # UNKNOWN_OPCODE from a master of protocol 2.3, or none reachable
        if grant.status != ErrorCode.OK:
            return None  # LIMIT_EXCEEDED (this client id holds 8 extents), NO_SPACE
        return _Held(grant, usable_until(grant, asked_at))

    def _give_back(self, held: _Held | None, deadline: Backoff) -> None:
        if held is not None:
            self._return([held.extent.first_generation], min(deadline.deadline, time.monotonic() + self.config.timeout))

    def _return(self, extents: list, deadline) -> None:
        """EXTENT_RETURN, best effort: an extent not given back counts against this client id's limit until it is
        over (15 s after its grant), and takes no write after its expiry either way."""
        try:
            statuses = self.master.call(Opcode.EXTENT_RETURN, encode_extent_return(extents), decode_status_list,
                                        deadline)
        except KvPoolError:
            return
        with self._lock:
            self._returned += sum(1 for s in statuses if s == ErrorCode.OK)

    def close(self) -> None:
        """Gives back every extent still held (best effort, within one exchange timeout); no extent is asked for
        afterwards."""
        with self._lock:
            self._closed = True
            self._current = None
            held = list(self._held.values())
            self._held.clear()
            for h in held:
                h.retired = True
                h.given_back = True
        if held:
            self._return([h.extent.first_generation for h in held], time.monotonic() + self.config.timeout)
