package io.kvpool.operator.render;

import io.kvpool.api.v1alpha1.KvCachePool;
import io.kvpool.api.v1alpha1.TransferEngine;
import io.kvpool.operator.common.DataPlaneDurations;
import io.kvpool.operator.common.InvalidSpecException;
import io.kvpool.operator.transferengine.EnginePreflight;
import io.kvpool.operator.transferengine.EnginePreflight.Finding;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The preflight findings of a pool: its TransferEngine's own rules (with the engine's last observed
 * device advertisement) and the rules that need the pool (segment alignment, transfer timeout under
 * the read lease). A pool without an engine (plain TCP) has none. Pure.
 */
public final class PoolPreflight {
  private PoolPreflight() {}

  public static List<Finding> findings(KvCachePool pool, Optional<TransferEngine> engine) {
    if (engine.isEmpty() || engine.get().getSpec() == null) {
      return List.of();
    }
    DataPlaneSettings settings;
    try {
      settings = DataPlaneSettings.of(pool);
    } catch (InvalidSpecException e) {
      return List.of(); // the spec validator reports it
    }
    TransferEngine e = engine.get();
    // an engine whose status was not written yet is given the benefit of the doubt until its
    // reconciler counted nodes
    boolean advertised =
        e.getStatus() == null
            || e.getStatus().getDeviceResourceAdvertised() == null
            || e.getStatus().getDeviceResourceAdvertised();
    List<Finding> out = new ArrayList<>(EnginePreflight.engine(e.getSpec(), advertised));
    Duration leaseTtl = DataPlaneDurations.parse(settings.leaseTtl()).orElse(Duration.ofSeconds(5));
    out.addAll(
        EnginePreflight.forPool(
            e.getSpec(), settings.memoryPerNodeBytes() / settings.segments(), leaseTtl));
    return out;
  }

  /** The blocking findings, as spec problems naming the engine. */
  public static List<String> problems(List<Finding> findings, Optional<TransferEngine> engine) {
    String name =
        engine.map(e -> "TransferEngine " + e.getMetadata().getName()).orElse("TransferEngine");
    return findings.stream()
        .filter(Finding::blocking)
        .map(f -> name + " fails preflight rule " + f.reason() + ": " + f.message())
        .toList();
  }
}
