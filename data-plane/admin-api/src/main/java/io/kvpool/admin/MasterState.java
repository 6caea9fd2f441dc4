package io.kvpool.admin;

/**
 * A master's state as {@link MasterStatus#state()} names it (the handshake's server state); a state
 * a newer master adds reads as {@link #UNKNOWN}.
 */
public enum MasterState {
  /** The leader, with its object index whole. */
  SERVING,
  /** A new leader rebuilding its index from the storage nodes' inventories (lease recovery). */
  RECOVERING,
  /** Not the leader. */
  STANDBY,
  UNKNOWN;

  public static MasterState of(String text) {
    for (MasterState s : values()) {
      if (s.name().equals(text)) {
        return s;
      }
    }
    return UNKNOWN;
  }
}
