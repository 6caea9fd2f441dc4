package io.kvpool.operator.transferengine;

import io.kvpool.api.v1alpha1.BufferPoolSpec;
import io.kvpool.api.v1alpha1.DriverMount;
import io.kvpool.api.v1alpha1.TransferEngineSpec;
import io.kvpool.api.v1alpha1.TransferProtocol;
import io.kvpool.operator.common.ByteQuantity;
import io.kvpool.operator.common.DataPlaneDurations;
import io.kvpool.operator.common.InvalidSpecException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The preflight of a TransferEngine: rules found only in vendor documentation, checked before any
 * pod is created, so that a bad engine is reported in condition {@code ConfigValid} (a reason per
 * rule) rather than crash-looped. Pure. A blocking finding keeps the pools using the engine from
 * being created or changed (their spec is invalid until it is fixed); a finding that is not
 * blocking (a device resource no node advertises yet) is reported and pods are created, to stay
 * Pending until a device plugin advertises it. Rules and their sources: operator/README.md.
 */
public final class EnginePreflight {
  public static final String CONFIG_VALID = "ConfigValid";
  public static final String TRANSPORT_AVAILABLE = "TransportAvailable";

  /**
   * What carries the values between clients and storage nodes for every protocol of this release.
   */
  public static final String DATA_TRANSPORT = "tcp";

  /** Ascend host memory is registered with the device in 2 MiB huge-page granules. */
  static final long ASCEND_ALIGNMENT = 2L << 20;

  /**
   * Driver paths an Ascend storage node cannot start without: the runtime libraries and the NPU
   * network config.
   */
  static final List<String> ASCEND_REQUIRED_MOUNTS =
      List.of("/usr/local/Ascend/driver", "/etc/hccn.conf");

  private EnginePreflight() {}

  /**
   * One broken rule: its reason (the condition's), what is wrong and what to do, and whether it
   * blocks pods.
   */
  public record Finding(String reason, String message, boolean blocking) {}

  /**
   * Rules of the engine alone.
   *
   * @param deviceAdvertised whether some node advertises the engine's device resource (ignored
   *     without devices)
   */
  public static List<Finding> engine(TransferEngineSpec spec, boolean deviceAdvertised) {
    List<Finding> out = new ArrayList<>();
    TransferProtocol protocol =
        spec.getProtocol() == null ? TransferProtocol.TCP : spec.getProtocol();
    if (spec.getDevices() != null
        && spec.getDevices().getResourceName() != null
        && !deviceAdvertised) {
      out.add(
          new Finding(
              "DeviceResourceNotAdvertised",
              "no node advertises "
                  + spec.getDevices().getResourceName()
                  + " in status.allocatable: storage pods stay Pending until a device plugin does (check the plugin's"
                  + " DaemonSet on the NPU nodes)",
              false));
    }
    if (protocol == TransferProtocol.ASCEND
        && spec.getDevices() != null
        && spec.getDevices().getDriverMounts() != null
        && !spec.getDevices().getDriverMounts().isEmpty()) {
      List<String> mounted =
          spec.getDevices().getDriverMounts().stream().map(DriverMount::getMountPath).toList();
      List<String> missing =
          ASCEND_REQUIRED_MOUNTS.stream().filter(p -> !mounted.contains(p)).toList();
      if (!missing.isEmpty()) {
        out.add(
            new Finding(
                "DriverMountMissing",
                "spec.devices.driverMounts lacks "
                    + String.join(", ", missing)
                    + ": an Ascend storage node loads the runtime from /usr/local/Ascend/driver and the NPU network settings"
                    + " from /etc/hccn.conf; add them (or leave driverMounts empty for the defaults)",
                true));
      }
    }
    if (protocol == TransferProtocol.ASCEND) {
      bufferMisalignment(spec.getBufferPool()).ifPresent(out::add);
    }
    Optional<Duration> retry = DataPlaneDurations.parse(spec.getRdmaRetryTimeout());
    Optional<Duration> transfer = DataPlaneDurations.parse(spec.getTransferTimeout());
    if (retry.isPresent() && transfer.isPresent() && retry.get().compareTo(transfer.get()) >= 0) {
      out.add(
          new Finding(
              "TimeoutsMisordered",
              "spec.rdmaRetryTimeout "
                  + spec.getRdmaRetryTimeout()
                  + " must be shorter than spec.transferTimeout "
                  + spec.getTransferTimeout()
                  + ": the NIC would still retry"
                  + " a transfer the engine already gave up",
              true));
    }
    return out;
  }

  /**
   * Rules of the engine with a pool using it.
   *
   * @param segmentBytes the pool's segment size (memoryPerNode / segments)
   * @param leaseTtl the pool's read lease
   */
  public static List<Finding> forPool(
      TransferEngineSpec spec, long segmentBytes, Duration leaseTtl) {
    List<Finding> out = new ArrayList<>();
    if (spec.getProtocol() == TransferProtocol.ASCEND && segmentBytes % ASCEND_ALIGNMENT != 0) {
      out.add(
          new Finding(
              "SegmentMisaligned",
              "segments of "
                  + segmentBytes
                  + " bytes (spec.storage.memoryPerNode /"
                  + " spec.storage.segments) are not a multiple of 2Mi: Ascend registers host memory in 2 MiB pages; choose"
                  + " memoryPerNode and segments so that each segment is",
              true));
    }
    Optional<Duration> transfer = DataPlaneDurations.parse(spec.getTransferTimeout());
    if (transfer.isPresent() && transfer.get().compareTo(leaseTtl) >= 0) {
      out.add(
          new Finding(
              "TimeoutsMisordered",
              "the engine's transferTimeout "
                  + spec.getTransferTimeout()
                  + " must be shorter than the pool's spec.leaseTtl "
                  + DataPlaneDurations.format(leaseTtl)
                  + ": a read"
                  + " lease that ends before its transfer lets the master evict the bytes being read",
              true));
    }
    return out;
  }

  private static Optional<Finding> bufferMisalignment(BufferPoolSpec pool) {
    if (pool == null || pool.getSize() == null) {
      return Optional.empty();
    }
    int buffers = pool.getBuffers() == null ? BufferPoolSpec.DEFAULT_BUFFERS : pool.getBuffers();
    long size;
    try {
      size = ByteQuantity.bytes("spec.bufferPool.size", pool.getSize());
    } catch (InvalidSpecException e) {
      return Optional.empty(); // the schema refuses an unreadable quantity
    }
    if (size % buffers == 0 && (size / buffers) % ASCEND_ALIGNMENT == 0) {
      return Optional.empty();
    }
    return Optional.of(
        new Finding(
            "BufferMisaligned",
            "spec.bufferPool.size "
                + pool.getSize()
                + " split into "
                + buffers
                + " buffers does not give whole 2Mi buffers: Ascend registers host memory in 2 MiB pages",
            true));
  }

  /** A condition's status, reason and message. */
  public record ConditionVerdict(boolean status, String reason, String message) {}

  /**
   * Condition {@code TransportAvailable}: whether the protocol asked for is what moves the bytes.
   * In this release every protocol moves values over TCP sockets ({@link #DATA_TRANSPORT}).
   */
  public static ConditionVerdict transport(TransferProtocol protocol) {
    return switch (protocol == null ? TransferProtocol.TCP : protocol) {
      case TCP -> new ConditionVerdict(true, "Tcp", "values move over TCP sockets, as asked");
      case RDMA ->
          new ConditionVerdict(
              false,
              "RdmaNotImplemented",
              "protocol rdma was asked for, but values still"
                  + " move over TCP sockets: this release has no RDMA transport (rdma changes nothing on the wire)");
      case ASCEND ->
          new ConditionVerdict(
              false,
              "AscendTransportNotImplemented",
              "protocol ascend opens device"
                  + " memory on the storage nodes, but values between clients and nodes still move over TCP sockets: this"
                  + " release has no device-to-device transport");
    };
  }

  /** Condition ConfigValid's status, reason and message from the findings. */
  public static ConditionVerdict configValid(List<Finding> findings) {
    if (findings.isEmpty()) {
      return new ConditionVerdict(true, "AllRulesPass", "every preflight rule passes");
    }
    return new ConditionVerdict(
        false,
        findings.get(0).reason(),
        String.join("; ", findings.stream().map(f -> f.reason() + ": " + f.message()).toList()));
  }
}
