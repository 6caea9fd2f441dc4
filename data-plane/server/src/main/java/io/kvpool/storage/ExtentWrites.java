package io.kvpool.storage;

import io.kvpool.protocol.ErrorCode;
import io.kvpool.protocol.Extent;
import io.kvpool.protocol.ExtentWriteRequest;
import io.kvpool.rpc.Session;
import io.kvpool.security.NodeKey;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * This node's side of the extents clients write into (protocol 2.4, PROTOCOL.md "Extents"). Each
 * 64-byte unit of an extent and each of its generations is written at most once, so no write lands
 * on a value put before it; a write lands only while its extent is unexpired and the registration
 * that admitted it is current: when the extent expires, or when the node starts to register again
 * ({@link #fence}), writes still receiving their payload are cut (their connections end), so no
 * byte lands after the master may reuse the space. A value becomes part of the node's inventory
 * only through {@link #complete}, under the same lock, so a registration's inventory holds exactly
 * the extent values completed before its fence.
 */
final class ExtentWrites implements AutoCloseable {
  /** Extents tracked at once; a request for more is refused (the client puts through PUT_START). */
  static final int MAX_EXTENTS = 4096;

  /**
   * How long a registration waits for commits in flight to be answered before it takes its
   * inventory.
   */
  private static final long FENCE_WAIT_MILLIS = 5_000;

  private static final long SWEEP_MILLIS = 250;

  private static final int UNIT = 64;

  private static final class Open {
    final long expiresAtMillis;
    final BitSet units;
    final BitSet generations = new BitSet();
    final Set<Session> receiving = new HashSet<>();

    Open(Extent e) {
      this.expiresAtMillis = e.expiresAtMillis();
      this.units = new BitSet(e.length() / UNIT);
    }
  }

  /** Why a write is refused: its error code and message. */
  record Refusal(ErrorCode code, String message) {}

  private final String nodeId;
  private final LongSupplier masterNow;
  private final Map<Long, Open> open = new HashMap<>();
  private final Thread sweeper;
  private boolean fenced;
  private int committing;
  private long cut;

  /**
   * Fences that stopped waiting with commits still unanswered: the inventory taken after such a
   * fence may hold those values, so a later answer to them no longer decides whether they stay.
   */
  private long fencesGivenUp;

  /** Test seam: runs when a writer has its commit's answer, before it settles the value. */
  volatile Runnable beforeSettle = () -> {};

  /** A value completed into the inventory whose commit at the master is awaited. */
  record Committing(long fencesGivenUp) {}

  ExtentWrites(String nodeId, LongSupplier masterNow) {
    this.nodeId = nodeId;
    this.masterNow = masterNow;
    this.sweeper = new Thread(this::sweepLoop, "storage-extent-sweep");
    sweeper.setDaemon(true);
  }

  void start() {
    sweeper.start();
  }

  /**
   * Admits a write into its extent under the current registration (read here, under the lock that
   * {@link #fence} takes, and stored in {@code admittedUnder[0]}): its units and generation are
   * taken and the session counts as receiving into it. Null when admitted.
   */
  synchronized Refusal admit(
      ExtentWriteRequest w,
      Supplier<MasterLink.Registration> current,
      MasterLink.Registration[] admittedUnder,
      Session session) {
    Extent e = w.extent();
    MasterLink.Registration registration = fenced ? null : current.get();
    NodeKey key = registration == null ? null : registration.key();
    admittedUnder[0] = registration;
    if (key == null) {
      return new Refusal(
          ErrorCode.GRANT_REJECTED, "node " + nodeId + " is registering with a master");
    }
    if (e.expiresAtMillis() < masterNow.getAsLong()) {
      return new Refusal(ErrorCode.GRANT_REJECTED, "extent " + e.firstGeneration() + " expired");
    }
    if (!NodeKey.matches(
        key.extentToken(
            e.firstGeneration(),
            e.generations(),
            e.segmentId(),
            e.offset(),
            e.length(),
            e.expiresAtMillis()),
        e.token())) {
      return new Refusal(
          ErrorCode.GRANT_REJECTED,
          "extent token does not match (not granted by the master this node follows)");
    }
    long end = (long) w.at() + w.valueSize();
    if (w.at() < 0 || w.at() % UNIT != 0 || w.valueSize() < 0 || end > e.length()) {
      return new Refusal(
          ErrorCode.OUT_OF_BOUNDS,
          "value of "
              + w.valueSize()
              + " bytes at "
              + w.at()
              + " does not fit extent "
              + e.firstGeneration()
              + " of "
              + e.length()
              + " bytes at a multiple of "
              + UNIT);
    }
    if (!e.owns(w.generation())) {
      return new Refusal(
          ErrorCode.OUT_OF_BOUNDS,
          "generation " + w.generation() + " is not one of extent " + e.firstGeneration());
    }
    Open o = open.get(e.firstGeneration());
    if (o == null) {
      if (open.size() >= MAX_EXTENTS) {
        return new Refusal(
            ErrorCode.NODE_UNAVAILABLE,
            "node " + nodeId + " tracks " + MAX_EXTENTS + " extents; put through PUT_START");
      }
      o = new Open(e);
      open.put(e.firstGeneration(), o);
    }
    int generation = (int) (w.generation() - e.firstGeneration());
    int from = w.at() / UNIT;
    int to = (int) ((end + UNIT - 1) / UNIT);
    if (to == from) {
      to++; // an empty value still takes a unit, as in the master's allocator
    }
    if (o.generations.get(generation)
        || o.units.nextSetBit(from) >= 0 && o.units.nextSetBit(from) < to) {
      return new Refusal(
          ErrorCode.OUT_OF_BOUNDS,
          "extent "
              + e.firstGeneration()
              + " already took generation "
              + w.generation()
              + " or a part of ["
              + w.at()
              + ", "
              + end
              + ")");
    }
    o.generations.set(generation);
    o.units.set(from, to);
    o.receiving.add(session);
    return null;
  }

  /** A write that will not complete (refused after admission, or its payload failed). */
  synchronized void abandon(long extent, Session session) {
    Open o = open.get(extent);
    if (o != null) {
      o.receiving.remove(session);
    }
  }

  /**
   * Completes a write whose payload landed and verified: {@code markComplete} puts the value into
   * the inventory, unless the extent expired or a registration began since the write was admitted
   * (null: discard it). A completed value counts as committing until {@link #settle}.
   */
  synchronized Committing complete(long extent, Session session, BooleanSupplier markComplete) {
    Open o = open.get(extent);
    if (o == null || !o.receiving.remove(session) || fenced) {
      return null;
    }
    if (!markComplete.getAsBoolean()) {
      return null;
    }
    committing++;
    return new Committing(fencesGivenUp);
  }

  /**
   * Settles a completed value by its commit's answer: {@code refused} (the master did not take it)
   * runs {@code discard}, under the lock that {@link #fence} takes, so that no inventory holds a
   * value the master refused. False when the answer no longer decides: a fence stopped waiting for
   * it, so the inventory of the registration that followed may hold the value; then the value stays
   * (as when the answer is lost) and the writer is told the answer is unknown.
   */
  boolean settle(Committing c, boolean refused, Runnable discard) {
    beforeSettle.run();
    synchronized (this) {
      committing--;
      if (committing == 0) {
        notifyAll();
      }
      if (c.fencesGivenUp() != fencesGivenUp) {
        return false;
      }
      if (refused) {
        discard.run();
      }
      return true;
    }
  }

  /**
   * A registration begins: no extent write lands from now until {@link #reopen} (those receiving
   * are cut), and commits in flight are waited for (a bounded time) so that the inventory taken
   * next shows what the master decided about them. Those still unanswered when the wait ends stay
   * in that inventory whatever their answer ({@link #settle}).
   */
  synchronized void fence() {
    fenced = true;
    for (Open o : open.values()) {
      o.receiving.forEach(Session::cut);
      cut += o.receiving.size();
    }
    open.clear();
    long deadline = System.currentTimeMillis() + FENCE_WAIT_MILLIS;
    long left;
    try {
      while (committing > 0 && (left = deadline - System.currentTimeMillis()) > 0) {
        wait(left);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      if (committing > 0) {
        fencesGivenUp++;
      }
    }
  }

  /** The new registration's key is in place: its extents may be written. */
  synchronized void reopen() {
    fenced = false;
  }

  /** Cuts writes into expired extents and forgets those extents (their tokens no longer admit). */
  synchronized int sweep(long masterNowMillis) {
    List<Session> cut = new ArrayList<>();
    for (Iterator<Open> it = open.values().iterator(); it.hasNext(); ) {
      Open o = it.next();
      if (o.expiresAtMillis < masterNowMillis) {
        cut.addAll(o.receiving);
        it.remove();
      }
    }
    cut.forEach(Session::cut);
    this.cut += cut.size();
    return cut.size();
  }

  /** Writes cut so far because their extent expired or the node registered again. */
  synchronized long cutCount() {
    return cut;
  }

  synchronized int size() {
    return open.size();
  }

  private void sweepLoop() {
    while (!Thread.currentThread().isInterrupted()) {
      try {
        Thread.sleep(SWEEP_MILLIS);
      } catch (InterruptedException e) {
        return;
      }
      sweep(masterNow.getAsLong());
    }
  }

  @Override
  public void close() {
    sweeper.interrupt();
  }
}
