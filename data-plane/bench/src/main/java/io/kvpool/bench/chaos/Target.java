package io.kvpool.bench.chaos;

/**
 * The process a fault acts on, named by role so that a schedule can be drawn before the run: the
 * leader (whichever master leads when the fault starts), the {@code index}-th standby in master
 * order, or storage node {@code index} (0-based; node ids are {@code node-<index + 1>}). NONE for
 * faults on the pool as a whole.
 */
public record Target(Role role, int index) {

  /** Who a target is. */
  public enum Role {
    LEADER,
    STANDBY,
    NODE,
    NONE
  }

  public static final Target LEADER = new Target(Role.LEADER, 0);
  public static final Target NONE = new Target(Role.NONE, 0);

  public static Target standby(int index) {
    return new Target(Role.STANDBY, index);
  }

  public static Target node(int index) {
    return new Target(Role.NODE, index);
  }

  /** The storage node id of a NODE target, as LocalPool names them. */
  public String nodeId() {
    if (role != Role.NODE) {
      throw new IllegalStateException(this + " is not a storage node");
    }
    return "node-" + (index + 1);
  }

  @Override
  public String toString() {
    return switch (role) {
      case LEADER -> "the leader";
      case STANDBY -> "standby #" + (index + 1);
      case NODE -> nodeId();
      case NONE -> "the pool";
    };
  }
}
