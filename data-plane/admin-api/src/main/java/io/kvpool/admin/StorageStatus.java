package io.kvpool.admin;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import java.util.List;

/**
 * A storage node's {@code GET /status} document, version {@link AdminJson#API_VERSION}.
 *
 * @param masterView the view of the master the node follows (0 before its first registration)
 * @param transport how the node moves bytes and which devices it opened (from the pool's
 *     TransferEngine)
 * @param warmStart what the node took over from the memory files of its previous process; null from
 *     releases before warm restarts
 * @param disk the node's disk tier; null when it has none
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record StorageStatus(
    String apiVersion,
    String poolId,
    String nodeId,
    String endpoint,
    boolean registered,
    long masterView,
    String releaseVersion,
    String protocolVersion,
    long capacityBytes,
    long objects,
    long tombstones,
    Transport transport,
    WarmStart warmStart,
    Disk disk) {
  /** Without a disk tier. */
  public StorageStatus(
      String apiVersion,
      String poolId,
      String nodeId,
      String endpoint,
      boolean registered,
      long masterView,
      String releaseVersion,
      String protocolVersion,
      long capacityBytes,
      long objects,
      long tombstones,
      Transport transport,
      WarmStart warmStart) {
    this(
        apiVersion,
        poolId,
        nodeId,
        endpoint,
        registered,
        masterView,
        releaseVersion,
        protocolVersion,
        capacityBytes,
        objects,
        tombstones,
        transport,
        warmStart,
        null);
  }

  /**
   * The node's disk tier (absent without one).
   *
   * @param capBytes what its files may occupy on disk
   * @param usedBytes the length of its files now (records, headers and garbage not reclaimed yet)
   * @param healthy false while it cannot write (I/O error, full, folder gone): {@code message} says
   *     why; the node keeps serving from memory
   * @param droppedAtStart records the last start dropped (failed checksums, beyond a lowered cap)
   */
  @JsonIgnoreProperties(ignoreUnknown = true)
  public record Disk(
      String dir,
      long capBytes,
      long usedBytes,
      int files,
      int records,
      boolean healthy,
      String message,
      long spills,
      long spillFailures,
      long reads,
      long misses,
      long reclaimedRecords,
      long reclaimedFiles,
      long droppedAtStart) {}

  /**
   * @param protocol {@code tcp}, {@code rdma} or {@code ascend}
   * @param backend the device backend opened: {@code host} or {@code ascend}
   * @param ready whether the backend opened; {@code message} says why not
   */
  @JsonIgnoreProperties(ignoreUnknown = true)
  public record Transport(
      String protocol, String backend, List<String> devices, boolean ready, String message) {
    public Transport {
      devices = devices == null ? List.of() : List.copyOf(devices);
    }
  }

  /**
   * How the node started.
   *
   * @param memoryFiles whether its segments are node-local memory files that outlive the process
   * @param taken whether it adopted replicas a previous process left in them (a warm restart)
   * @param objects replicas adopted, after their CRC32C matched
   * @param bytes bytes of the adopted replicas (values that did not have to be copied)
   * @param refused replicas listed by the previous process whose bytes did not verify
   * @param message what happened, or why the node started empty
   */
  @JsonIgnoreProperties(ignoreUnknown = true)
  public record WarmStart(
      boolean memoryFiles, boolean taken, long objects, long bytes, long refused, String message) {
    /** A node whose memory is anonymous: nothing survives it. */
    public static WarmStart anonymous() {
      return new WarmStart(
          false, false, 0, 0, 0, "anonymous memory: no warm restart (set KVPOOL_MEMORY_DIR)");
    }
  }
}
