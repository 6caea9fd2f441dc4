package io.kvpool.client;

import io.kvpool.protocol.BodyWriter;
import io.kvpool.protocol.ErrorCode;
import io.kvpool.protocol.Extent;
import io.kvpool.protocol.ExtentGrantReply;
import io.kvpool.protocol.ExtentGrantRequest;
import io.kvpool.protocol.ExtentReturn;
import io.kvpool.protocol.ExtentWriteRequest;
import io.kvpool.protocol.Opcode;
import io.kvpool.protocol.PutEndItem;
import io.kvpool.protocol.PutEndRequest;
import io.kvpool.protocol.RemoteErrorException;
import io.kvpool.protocol.RpcConnection;
import io.kvpool.protocol.StatusList;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Small puts through extents (protocol 2.4, PROTOCOL.md "Extents"): the client holds an extent the
 * master granted ahead (a range of one storage node and a run of generations), gives each put the
 * next generation and the next free, aligned part of it, and writes the value there with one
 * EXTENT_WRITE, whose node commits it at the master before replying. Whatever an extent cannot take
 * (no extent granted, one used up, expired, refused, or a node whose answer is unknown and whose
 * put the master does not know) is left to the PUT_START path: {@link #put} returns false.
 */
final class ExtentPuts implements AutoCloseable {
  /** The largest value put through an extent. */
  static final int MAX_VALUE_BYTES = 256 << 10;

  /** The extent length asked for. */
  static final int EXTENT_BYTES = 4 << 20;

  /** An extent is not written in its last moments: a value admitted then may be cut at expiry. */
  private static final long EXPIRY_MARGIN_MILLIS = 2_000;

  /** After the master refused an extent, puts take PUT_START for this long before asking again. */
  private static final long REFUSED_PAUSE_NANOS = 1_000_000_000L;

  private static final int ALIGNMENT = 64;

  /** The most nodes an EXTENT_GRANT names to avoid (PROTOCOL.md): the latest ones. */
  private static final int MAX_AVOIDED = 16;

  /** An extent held, how much of it is used, and its writes in flight. Guarded by the monitor. */
  private static final class Held {
    final String nodeId;
    final String endpoint;
    final Extent extent;
    int cursor;
    int nextGeneration;
    int inFlight;

    /** No further value goes into it. */
    boolean retired;

    /** EXTENT_RETURN sent or being sent. */
    boolean givenBack;

    Held(ExtentGrantReply grant) {
      this.nodeId = grant.nodeId();
      this.endpoint = grant.endpoint();
      this.extent = grant.extent();
    }

    boolean fits(int size, long nowMillis) {
      return !retired
          && nextGeneration < extent.generations()
          && (long) cursor + size <= extent.length()
          && nowMillis < extent.expiresAtMillis() - EXPIRY_MARGIN_MILLIS;
    }
  }

  /** One value's place: its extent, offset in it and generation. */
  private record Place(Held held, int at, long generation) {}

  private final MasterChannel master;
  private final StorageConnections storage;
  private Held current;

  /** Extents granted and not given back. */
  private final List<Long> granted = new ArrayList<>();

  private long pausedUntilNanos;

  /**
   * Nodes a write failed at (unreachable, or its answer lost): the next grant avoids them when
   * others can serve. Cleared by a grant.
   */
  private final List<String> avoid = new ArrayList<>();

  ExtentPuts(MasterChannel master, StorageConnections storage) {
    this.master = master;
    this.storage = storage;
  }

  /**
   * Puts {@code value} through an extent: true when it is stored (or its key already was), false
   * when the caller must put it through PUT_START.
   */
  boolean put(String key, ByteBuffer value, int checksum, Backoff deadline) {
    Place p = place(value.remaining(), deadline);
    if (p == null) {
      return false;
    }
    try {
      return write(p, key, value, checksum, deadline);
    } finally {
      giveBack(writeEnded(p.held()), deadline);
    }
  }

  private boolean write(Place p, String key, ByteBuffer value, int checksum, Backoff deadline) {
    BodyWriter body = new BodyWriter(96 + key.length());
    new ExtentWriteRequest(
            p.held().extent, key, p.generation(), p.at(), value.remaining(), checksum)
        .encode(body);
    RpcConnection c = null;
    long started = System.nanoTime();
    try {
      c = storage.borrow(p.held().endpoint);
      try (RpcConnection.Deadline d =
          c.deadline(deadline.within(java.time.Duration.ofSeconds(10)))) {
        c.call(Opcode.EXTENT_WRITE, body, value.duplicate()).reader().finish();
      }
      storage.exchanged(Opcode.EXTENT_WRITE, started);
      storage.release(p.held().endpoint, c);
      storage.failed().answered(p.held().nodeId);
      return true;
    } catch (RemoteErrorException e) {
      storage.release(p.held().endpoint, c);
      return switch (e.code()) {
        case ALREADY_EXISTS -> true; // the stored value is kept, as with PUT_START
        case NODE_UNAVAILABLE -> {
          retire(p.held(), true);
          yield storedByMaster(key, p.generation(), deadline);
        }
        default -> {
          if (e.code() != ErrorCode.PUT_IN_PROGRESS) {
            retire(p.held(), false);
          }
          yield false;
        }
      };
    } catch (IOException | KvPoolException e) {
      if (c != null) {
        c.close();
      }
      if (e instanceof IOException || e instanceof ConnectionFailedException) {
        storage.failed().failed(p.held().nodeId);
      }
      retire(p.held(), true);
      return storedByMaster(key, p.generation(), deadline);
    }
  }

  /**
   * The next place for a value of {@code size} bytes, counted as a write in flight in its extent:
   * in the current extent, or a new one asked for now; null when the master grants none. An extent
   * used up is given back once no write into it is in flight, so that no other thread's write into
   * it is refused for it.
   */
  private Place place(int size, Backoff deadline) {
    long now = System.currentTimeMillis();
    int need = (Math.max(size, 1) + ALIGNMENT - 1) / ALIGNMENT * ALIGNMENT;
    Held spent = null;
    Held unfit = null;
    Place p = null;
    synchronized (this) {
      if (current != null && !current.fits(need, now)) {
        spent = retireLocked(current);
      }
      if (current == null && System.nanoTime() - pausedUntilNanos >= 0) {
        current = grant(deadline);
        if (current != null && !current.fits(need, now)) {
          unfit = retireLocked(current); // cannot take even this value: not asked for again at once
        }
        if (current == null) {
          pausedUntilNanos = System.nanoTime() + REFUSED_PAUSE_NANOS;
        }
      }
      if (current != null) {
        p =
            new Place(
                current, current.cursor, current.extent.firstGeneration() + current.nextGeneration);
        current.cursor += need;
        current.nextGeneration++;
        current.inFlight++;
      }
    }
    giveBack(spent, deadline);
    giveBack(unfit, deadline);
    return p;
  }

  private Held grant(Backoff deadline) {
    BodyWriter w = new BodyWriter(16);
    new ExtentGrantRequest(EXTENT_BYTES, avoiding()).encode(w);
    try {
      ExtentGrantReply reply =
          master.call(Opcode.EXTENT_GRANT, w, ExtentGrantReply::decode, deadline);
      if (reply.status() != ErrorCode.OK) {
        return null;
      }
      avoid.clear();
      granted.add(reply.extent().firstGeneration());
      if (granted.size() > 64) {
        granted.remove(0);
      }
      return new Held(reply);
    } catch (KvPoolException e) {
      // a master of protocol 2.3 (UNKNOWN_OPCODE), or none reachable: PUT_START decides
      return null;
    }
  }

  /**
   * The nodes a grant avoids: those a write of this client's extents failed at since the last
   * grant, then those any operation of the client found failed lately ({@link FailedNodes}).
   */
  private List<String> avoiding() {
    Set<String> all = new LinkedHashSet<>(avoid);
    for (String node : storage.failed().recent()) {
      if (all.size() < MAX_AVOIDED) {
        all.add(node);
      }
    }
    return List.copyOf(all);
  }

  /**
   * No further value goes into {@code h}: a write into it was refused or its answer lost; when
   * {@code failedAtNode} (the node unreachable or its answer lost), the next grants avoid its node.
   */
  private synchronized void retire(Held h, boolean failedAtNode) {
    h.retired = true;
    if (current == h) {
      current = null;
    }
    if (failedAtNode && !avoid.contains(h.nodeId)) {
      avoid.add(h.nodeId);
      if (avoid.size() > MAX_AVOIDED) {
        avoid.remove(0);
      }
    }
  }

  /** Retires {@code h}; it, to be given back now, when no write into it is in flight. */
  private Held retireLocked(Held h) {
    retire(h, false);
    return idleSpent(h);
  }

  private synchronized Held writeEnded(Held h) {
    h.inFlight--;
    return idleSpent(h);
  }

  /**
   * {@code h} when it is retired, idle and not given back yet (marked given back: the caller does).
   */
  private Held idleSpent(Held h) {
    if (h.retired && h.inFlight == 0 && !h.givenBack) {
      h.givenBack = true;
      granted.remove(Long.valueOf(h.extent.firstGeneration()));
      return h;
    }
    return null;
  }

  /**
   * Whether the master stores the put of generation {@code generation} after a node's answer was
   * lost: PUT_END without receipts says OK only for a put it completed.
   */
  private boolean storedByMaster(String key, long generation, Backoff deadline) {
    BodyWriter w = new BodyWriter(64 + key.length());
    new PutEndRequest(List.of(new PutEndItem(key, generation, List.of()))).encode(w);
    try {
      List<ErrorCode> s =
          master.call(Opcode.PUT_END, w, r -> StatusList.decode(r).statuses(), deadline);
      return s.size() == 1 && s.get(0) == ErrorCode.OK;
    } catch (KvPoolException e) {
      return false;
    }
  }

  /** Gives the extent back (best effort; none when null): no write into it counts from now. */
  private void giveBack(Held h, Backoff deadline) {
    if (h != null) {
      returnQuietly(List.of(h.extent.firstGeneration()), deadline);
    }
  }

  private void returnQuietly(List<Long> extents, Backoff deadline) {
    BodyWriter w = new BodyWriter(16 + 8 * extents.size());
    new ExtentReturn(extents).encode(w);
    try {
      master.call(Opcode.EXTENT_RETURN, w, r -> StatusList.decode(r).statuses(), deadline);
    } catch (KvPoolException e) {
      // they expire on their own
    }
  }

  /** Gives the extents back (best effort): no write into them counts from now. */
  @Override
  public synchronized void close() {
    if (!granted.isEmpty()) {
      returnQuietly(List.copyOf(granted), Backoff.until(java.time.Duration.ofSeconds(2)));
    }
    granted.clear();
    current = null;
  }
}
