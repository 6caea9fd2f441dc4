package io.kvpool.master;

/**
 * What one eviction round looked at and what it did: logged when a put is refused for want of room,
 * so the log says why nothing could be freed (everything sampled in memory leased, pinned, pending
 * or being copied; nothing left in memory at all).
 *
 * @param looked objects looked at: those of each sample in order of last access, up to the victim
 *     (an object sampled twice counts twice)
 * @param inMemory of those, with a replica in memory (what eviction can take room from)
 * @param leased in memory and under a read lease
 * @param pinned in memory and pinned
 * @param pending in memory and still being put
 * @param copying in memory and the source or target of a copy
 * @param spilled unleased objects moved to disk
 * @param leasedSpilled leased objects moved to disk (only when making room for a put)
 * @param deleted objects deleted (no disk tier to move them to)
 * @param freedBytes memory freed
 * @param gaveUp whether the round stopped because samples in a row found nothing to take
 */
record EvictionRound(
    int looked,
    int inMemory,
    int leased,
    int pinned,
    int pending,
    int copying,
    int spilled,
    int leasedSpilled,
    int deleted,
    long freedBytes,
    boolean gaveUp) {

  @Override
  public String toString() {
    return "looked="
        + looked
        + " in_memory="
        + inMemory
        + " leased="
        + leased
        + " pinned="
        + pinned
        + " pending="
        + pending
        + " copying="
        + copying
        + " spilled="
        + spilled
        + " leased_spilled="
        + leasedSpilled
        + " deleted="
        + deleted
        + " freed_bytes="
        + freedBytes
        + " gave_up="
        + gaveUp;
  }

  /** The counts of a round under way. */
  static final class Tally {
    int looked;
    int inMemory;
    int leased;
    int pinned;
    int pending;
    int copying;
    int spilled;
    int leasedSpilled;
    int deleted;
    long freedBytes;

    /** Counts a sampled object; true when it has a replica in memory. */
    boolean looked(StoredObject o, long nowMillis) {
      looked++;
      if (!TierMoves.inMemory(o)) {
        return false;
      }
      inMemory++;
      if (o.pending() != null) {
        pending++;
      } else if (o.pinned) {
        pinned++;
      } else if (o.repairInFlight) {
        copying++;
      } else if (o.leased(nowMillis)) {
        leased++;
      }
      return true;
    }

    EvictionRound round(boolean gaveUp) {
      return new EvictionRound(
          looked,
          inMemory,
          leased,
          pinned,
          pending,
          copying,
          spilled,
          leasedSpilled,
          deleted,
          freedBytes,
          gaveUp);
    }
  }
}
