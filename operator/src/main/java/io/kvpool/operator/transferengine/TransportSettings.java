package io.kvpool.operator.transferengine;

import io.fabric8.kubernetes.api.model.Quantity;
import io.kvpool.api.v1alpha1.BufferPoolSpec;
import io.kvpool.api.v1alpha1.DeviceSpec;
import io.kvpool.api.v1alpha1.DriverMount;
import io.kvpool.api.v1alpha1.TransferEngine;
import io.kvpool.api.v1alpha1.TransferEngineSpec;
import io.kvpool.api.v1alpha1.TransferProtocol;
import io.kvpool.operator.common.ByteQuantity;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * How bytes move for one pool: what a {@link TransferEngine} becomes in the pool's ConfigMaps and
 * storage pods. A pool without a transferEngineRef gets {@link #PLAIN_TCP}.
 */
public record TransportSettings(
    String engineName,
    TransferProtocol protocol,
    int port,
    boolean hostNetwork,
    long bufferPoolBytes,
    int buffers,
    Optional<Devices> devices) {

  public static final TransportSettings PLAIN_TCP =
      new TransportSettings(
          "",
          TransferProtocol.valueOf(TransferEngineSpec.DEFAULT_PROTOCOL.toUpperCase(Locale.ROOT)),
          TransferEngineSpec.DEFAULT_PORT,
          false,
          ByteQuantity.bytes("spec.bufferPool.size", new Quantity(BufferPoolSpec.DEFAULT_SIZE)),
          BufferPoolSpec.DEFAULT_BUFFERS,
          Optional.empty());

  /**
   * Devices the storage pods request from a device plugin, with the host driver paths they need.
   */
  public record Devices(
      String resourceName, int count, List<DriverMount> driverMounts, String visibleDevicesEnv) {}

  /**
   * The settings of {@code engine}.
   *
   * @throws io.kvpool.operator.common.InvalidSpecException when its buffer pool size is not a byte
   *     count
   */
  public static TransportSettings of(TransferEngine engine) {
    TransferEngineSpec spec =
        engine.getSpec() == null ? new TransferEngineSpec() : engine.getSpec();
    BufferPoolSpec buffers =
        spec.getBufferPool() == null ? new BufferPoolSpec() : spec.getBufferPool();
    TransferProtocol protocol =
        spec.getProtocol() == null ? PLAIN_TCP.protocol : spec.getProtocol();
    return new TransportSettings(
        engine.getMetadata().getName(),
        protocol,
        spec.getPort() == null ? PLAIN_TCP.port : spec.getPort(),
        Boolean.TRUE.equals(spec.getHostNetwork()),
        buffers.getSize() == null
            ? PLAIN_TCP.bufferPoolBytes
            : ByteQuantity.bytes(
                "TransferEngine " + engine.getMetadata().getName() + " spec.bufferPool.size",
                buffers.getSize()),
        buffers.getBuffers() == null ? PLAIN_TCP.buffers : buffers.getBuffers(),
        devicesOf(protocol, spec.getDevices()));
  }

  /** Whether the protocol moves bytes through devices that a device plugin must hand out. */
  public static boolean needsDevices(TransferProtocol protocol) {
    return protocol == TransferProtocol.ASCEND;
  }

  public String protocolName() {
    return protocol.name().toLowerCase(Locale.ROOT);
  }

  private static Optional<Devices> devicesOf(TransferProtocol protocol, DeviceSpec devices) {
    if (devices == null
        || devices.getResourceName() == null
        || devices.getResourceName().isBlank()) {
      return Optional.empty();
    }
    List<DriverMount> mounts =
        devices.getDriverMounts() == null || devices.getDriverMounts().isEmpty()
            ? (protocol == TransferProtocol.ASCEND
                ? DriverMount.ascendDefaults()
                : List.<DriverMount>of())
            : List.copyOf(devices.getDriverMounts());
    String env =
        devices.getVisibleDevicesEnv() == null || devices.getVisibleDevicesEnv().isBlank()
            ? DeviceSpec.DEFAULT_VISIBLE_DEVICES_ENV
            : devices.getVisibleDevicesEnv();
    return Optional.of(
        new Devices(
            devices.getResourceName(),
            devices.getCount() == null ? 1 : devices.getCount(),
            mounts,
            env));
  }
}
