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
   * Hook for storage tiers: the object's readable replicas moved from one medium to another (memory
   * to disk and back). Nothing calls it until the master knows replica tiers; a publisher then
   * announces the object on the new medium and removes it from the old one.
   */
  default void tierChanged(ResidentObject o, String fromMedium, String toMedium) {}
}
