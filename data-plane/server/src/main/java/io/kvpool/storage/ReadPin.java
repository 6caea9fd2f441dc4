package io.kvpool.storage;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One READ or READ_BATCH reply that sends replicas' bytes straight from segment memory. While it is
 * pinned ({@link ObjectInventory#pin}) no WRITE lands in the ranges it reads: a WRITE over them
 * waits until the reply {@link ObjectInventory#unpin unpinned}. When an object it reads goes (a
 * release, or a WRITE dropping it) the pin is revoked, which stops the reply at once: its
 * connection is cut, so its blocked send fails and no further byte of it goes out, however slowly
 * its reader reads. A reply's bytes are therefore always its object's bytes.
 */
final class ReadPin {
  private final Runnable stop;
  private final AtomicBoolean revoked = new AtomicBoolean();

  /** The slices this reply reads, guarded by the inventory's lock. */
  final List<ObjectInventory.PinnedSlice> slices = new ArrayList<>(1);

  /**
   * {@code stop} ends the reply's connection without blocking (it runs under the inventory's lock).
   */
  ReadPin(Runnable stop) {
    this.stop = stop;
  }

  /** Stops the reply, once: its object went while it was being sent. */
  void revoke() {
    if (revoked.compareAndSet(false, true)) {
      stop.run();
    }
  }

  boolean revoked() {
    return revoked.get();
  }
}
