package io.kvpool.operator.transferengine;

import io.kvpool.api.v1alpha1.TransferEngine;
import io.kvpool.api.v1alpha1.TransferEngineStatus;
import io.kvpool.operator.common.Conditions;
import java.time.Clock;
import java.util.List;

/**
 * Status of a TransferEngine; pure. Condition {@code DevicesAvailable}: true when the protocol
 * needs no devices or at least one node advertises the resource; false means storage pods of its
 * pools will stay Pending until a device plugin on some node advertises it. {@code ConfigValid}:
 * the preflight ({@link EnginePreflight}), a reason per rule. {@code TransportAvailable} and {@code
 * dataTransport}: what moves the bytes (TCP in this release, whatever the protocol).
 */
public final class TransferEngineStatusAggregator {
  public static final String DEVICES_AVAILABLE = "DevicesAvailable";
  public static final String READY = "Ready";

  private final Clock clock;

  public TransferEngineStatusAggregator(Clock clock) {
    this.clock = clock;
  }

  public TransferEngineStatus aggregate(
      TransferEngine engine, TransportSettings transport, List<String> pools, int nodesWithDevice) {
    TransferEngineStatus status = observed(engine, pools);
    Conditions conditions = conditionsSince(engine);
    if (transport.devices().isEmpty()) {
      status.setNodesWithDevice(0);
      if (TransportSettings.needsDevices(transport.protocol())) {
        status.setDeviceResourceAdvertised(false);
        String message =
            "protocol " + transport.protocolName() + " needs spec.devices (resourceName and count)";
        conditions.set(DEVICES_AVAILABLE, false, "DevicesNotDeclared", message);
        conditions.set(READY, false, "DevicesNotDeclared", message);
      } else {
        conditions.set(
            DEVICES_AVAILABLE,
            true,
            "NoDevicesRequired",
            "protocol " + transport.protocolName() + " uses no device-plugin resource");
        conditions.set(READY, true, "NoDevicesRequired", usedBy(pools));
      }
    } else {
      String resource = transport.devices().get().resourceName();
      status.setNodesWithDevice(nodesWithDevice);
      status.setDeviceResourceAdvertised(nodesWithDevice > 0);
      if (nodesWithDevice > 0) {
        conditions.set(
            DEVICES_AVAILABLE,
            true,
            "DeviceResourceAdvertised",
            nodesWithDevice + " node(s) advertise " + resource);
        conditions.set(READY, true, "DeviceResourceAdvertised", usedBy(pools));
      } else {
        String message =
            "no node advertises "
                + resource
                + " in status.allocatable; storage pods of "
                + usedBy(pools)
                + " stay Pending until a device plugin does";
        conditions.set(DEVICES_AVAILABLE, false, "DeviceResourceNotAdvertised", message);
        conditions.set(READY, false, "DeviceResourceNotAdvertised", message);
      }
    }
    EnginePreflight.ConditionVerdict valid =
        EnginePreflight.configValid(EnginePreflight.engine(engine.getSpec(), nodesWithDevice > 0));
    conditions.set(EnginePreflight.CONFIG_VALID, valid.status(), valid.reason(), valid.message());
    EnginePreflight.ConditionVerdict moved = EnginePreflight.transport(transport.protocol());
    conditions.set(
        EnginePreflight.TRANSPORT_AVAILABLE, moved.status(), moved.reason(), moved.message());
    status.setDataTransport(EnginePreflight.DATA_TRANSPORT);
    status.setConditions(conditions.build());
    return status;
  }

  /**
   * An engine whose spec cannot be read (stored under an older, looser schema): not ready, saying
   * why.
   */
  public TransferEngineStatus invalid(TransferEngine engine, List<String> pools, String problem) {
    TransferEngineStatus status = observed(engine, pools);
    status.setDeviceResourceAdvertised(false);
    status.setNodesWithDevice(0);
    status.setConditions(
        conditionsSince(engine)
            .set(DEVICES_AVAILABLE, false, "InvalidSpec", problem)
            .set(READY, false, "InvalidSpec", problem)
            .set(EnginePreflight.CONFIG_VALID, false, "InvalidSpec", problem)
            .build());
    return status;
  }

  /** A new status of {@code engine}'s generation, used by {@code pools}. */
  private static TransferEngineStatus observed(TransferEngine engine, List<String> pools) {
    TransferEngineStatus status = new TransferEngineStatus();
    status.setObservedGeneration(generation(engine));
    status.setPools(List.copyOf(pools));
    return status;
  }

  /** Conditions to set now, keeping the transition times of those the engine's status has. */
  private Conditions conditionsSince(TransferEngine engine) {
    TransferEngineStatus previous =
        engine.getStatus() == null ? new TransferEngineStatus() : engine.getStatus();
    return new Conditions(previous.getConditions(), generation(engine), clock.instant());
  }

  private static long generation(TransferEngine engine) {
    return engine.getMetadata().getGeneration() == null ? 0 : engine.getMetadata().getGeneration();
  }

  private static String usedBy(List<String> pools) {
    return pools.isEmpty() ? "no pool" : "pools " + String.join(", ", pools);
  }
}
