package io.kvpool.protocol;

import java.util.Optional;

/**
 * Storage node -> master, about once a second, on behalf of one registration. From protocol 2.4 it
 * also carries the node's disk tier figures ({@link DiskFigures}), absent for a node without one.
 */
public record Heartbeat(
    String nodeId, byte[] registrationId, long highestViewSeen, Optional<DiskFigures> disk) {
  /** The protocol minor from which HEARTBEAT carries the node's disk tier figures. */
  public static final int DISK_FIGURES_MINOR = 4;

  /** A heartbeat without disk figures (a node without a disk tier). */
  public Heartbeat(String nodeId, byte[] registrationId, long highestViewSeen) {
    this(nodeId, registrationId, highestViewSeen, Optional.empty());
  }

  /** Encodes for a master that agreed on protocol minor {@code minor}. */
  public void encode(BodyWriter w, int minor) {
    w.string(nodeId).bytes(registrationId).i64(highestViewSeen);
    if (minor >= DISK_FIGURES_MINOR) {
      w.bool(disk.isPresent());
      disk.ifPresent(d -> d.encode(w));
    }
  }

  public static Heartbeat decode(BodyReader r, int minor) throws ProtocolException {
    String nodeId = r.string(256, "node id");
    byte[] registrationId = r.bytes(ProtocolLimits.MAX_TOKEN_BYTES, "registration id");
    long view = r.i64();
    Optional<DiskFigures> disk =
        minor >= DISK_FIGURES_MINOR && r.bool()
            ? Optional.of(DiskFigures.decode(r))
            : Optional.empty();
    r.finish();
    return new Heartbeat(nodeId, registrationId, view, disk);
  }
}
