package io.kvpool.master;

/**
 * Told when an object becomes readable or stops being readable (the residency a router needs: KV
 * events). Called by {@link ObjectTable} under the metadata lock, on the put path: an
 * implementation must only hand the change on (a bounded, non-blocking queue) and never block or
 * throw.
 */
public interface ResidencyListener {
  ResidencyListener NONE =
      new ResidencyListener() {
        @Override
        public void stored(ResidentObject o) {}

        @Override
        public void removed(ResidentObject o) {}

        @Override
        public void tierChanged(ResidentObject o) {}
      };

  /**
   * The object became readable: a put's first COMMIT or its PUT_END, or adopted from an inventory
   * by recovery.
   */
  void stored(ResidentObject o);

  /**
   * The object stopped being readable: removed, evicted, revoked, superseded, or lost with its last
   * replica.
   */
  void removed(ResidentObject o);

  /**
   * The object's medium changed (memory to disk or back; {@code o.onDisk()} is the new one): its
   * last memory replica moved to disk or was lost while a disk replica remains, or a memory replica
   * came back (a repair copy, a node's registration). A publisher announces it on the new medium
   * and removes it from the old one.
   */
  void tierChanged(ResidentObject o);
}
