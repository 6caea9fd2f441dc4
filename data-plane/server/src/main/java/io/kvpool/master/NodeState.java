package io.kvpool.master;

/** Lifecycle of a storage node as the master sees it. */
public enum NodeState {
  /** Registered, its inventory still arriving: no placements, no reads yet. */
  REGISTERING,
  /** Heartbeating; receives new replicas. */
  ALIVE,
  /** Heartbeating but receives no new replicas; its objects are re-replicated elsewhere. */
  DRAINING,
  /** Silent for longer than the node TTL; its replicas are gone. */
  DEAD;

  /** Whether its replicas can be read and copied from. */
  boolean serves() {
    return this == ALIVE || this == DRAINING;
  }
}
