package io.kvpool.operator.render;

import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeBuilder;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.api.model.VolumeMountBuilder;
import io.kvpool.api.v1alpha1.DriverMount;
import io.kvpool.operator.transferengine.TransportSettings;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * What a TransferEngine adds to a storage pod: the transport environment and, for devices, the
 * driver host-path volumes and their mounts. (Device resources are in {@link StorageResources}.)
 */
public final class TransportAttachments {
  private TransportAttachments() {}

  /**
   * The transport settings the storage node reads (data-plane/README.md). The device plugin itself
   * sets the visibility variable (e.g. ASCEND_VISIBLE_DEVICES) to the devices it allocated; the pod
   * only learns its name, because setting it here would override the plugin's allocation.
   */
  public static List<EnvVar> env(TransportSettings transport) {
    List<EnvVar> env = new ArrayList<>();
    env.add(new EnvVar("KVPOOL_TRANSPORT_PROTOCOL", transport.protocolName(), null));
    transport
        .devices()
        .ifPresent(
            devices -> {
              env.add(new EnvVar("KVPOOL_DEVICE_COUNT", Integer.toString(devices.count()), null));
              env.add(new EnvVar("KVPOOL_VISIBLE_DEVICES_ENV", devices.visibleDevicesEnv(), null));
            });
    return env;
  }

  public static List<Volume> driverVolumes(TransportSettings transport) {
    return driverPaths(transport)
        .map(
            mount ->
                new VolumeBuilder()
                    .withName(mount.getName())
                    .withNewHostPath()
                    .withPath(mount.getHostPath())
                    .endHostPath()
                    .build())
        .toList();
  }

  /** Driver paths are always read-only (the CRD refuses readOnly: false). */
  public static List<VolumeMount> driverMounts(TransportSettings transport) {
    return driverPaths(transport)
        .map(
            mount ->
                new VolumeMountBuilder()
                    .withName(mount.getName())
                    .withMountPath(mount.getMountPath())
                    .withReadOnly(true)
                    .build())
        .toList();
  }

  private static Stream<DriverMount> driverPaths(TransportSettings transport) {
    return transport.devices().stream().flatMap(devices -> devices.driverMounts().stream());
  }
}
