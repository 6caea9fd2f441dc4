package io.kvpool.admin;

/**
 * A master's role as {@link MasterStatus#role()} names it; a role a newer master adds reads as
 * {@link #UNKNOWN}.
 */
public enum MasterRole {
  /** Holds the pool's Lease and serves (or, while recovering, rebuilds) the object index. */
  LEADER,
  /** Follows the leader; answers requests with NOT_LEADER. */
  STANDBY,
  UNKNOWN;

  public static MasterRole of(String text) {
    for (MasterRole r : values()) {
      if (r.name().equals(text)) {
        return r;
      }
    }
    return UNKNOWN;
  }
}
