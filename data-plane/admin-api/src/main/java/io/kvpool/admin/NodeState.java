package io.kvpool.admin;

/**
 * The state of a storage node as a master reports it in {@link MasterStatus.NodeStatus#state()},
 * for readers that decide on it. The document keeps the state a string, so that a reader older than
 * a state a newer master adds still reads the rest of the document: it reads that state as {@link
 * #UNKNOWN}, never as one of its own.
 */
public enum NodeState {
  /** Registered, its inventory still arriving: no placements, no reads yet. */
  REGISTERING,
  /** Heartbeating; receives new replicas. */
  ALIVE,
  /** Heartbeating but receives no new replicas; its objects are re-replicated elsewhere. */
  DRAINING,
  /** Silent for longer than the node TTL; its replicas are gone. */
  DEAD,
  /** A state this reader does not know (written by a newer master), or none. */
  UNKNOWN;

  /**
   * The state named {@code text} exactly as the master writes it ({@code ALIVE}), else {@link
   * #UNKNOWN}.
   */
  public static NodeState of(String text) {
    if (text == null) {
      return UNKNOWN;
    }
    try {
      return valueOf(text);
    } catch (IllegalArgumentException e) {
      return UNKNOWN;
    }
  }
}
