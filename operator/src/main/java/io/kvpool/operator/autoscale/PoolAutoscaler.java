package io.kvpool.operator.autoscale;

import io.kvpool.admin.MasterStatus;
import io.kvpool.api.v1alpha1.AutoscalingStatus;
import io.kvpool.api.v1alpha1.EvictionSpec;
import io.kvpool.api.v1alpha1.KvCachePool;
import io.kvpool.api.v1alpha1.KvCachePoolSpec;
import io.kvpool.api.v1alpha1.StorageSpec;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.IntPredicate;

/**
 * One autoscaling round of a pool: record the leader's reading, decide ({@link Autoscaler}), write
 * the new replica count, and say what status.autoscaling becomes. The readings are kept per pool in
 * this object (the operator's memory); a pool whose autoscaling is off has none kept and no
 * status.autoscaling.
 */
public final class PoolAutoscaler {
  private final Map<String, SignalHistory> histories = new ConcurrentHashMap<>();

  /**
   * @param leader the leader's /status read in this reconciliation
   * @param rolloutActive a rollout runs
   * @param scalingDown that rollout drains surplus storage nodes
   * @param writeReplicas sets spec.storage.replicas (a patch of the pool); false when the pool
   *     changed meanwhile
   * @return empty when autoscaling is off
   */
  public Optional<AutoscalingOutcome> reconcile(
      KvCachePool pool,
      Optional<MasterStatus> leader,
      boolean rolloutActive,
      boolean scalingDown,
      Instant now,
      IntPredicate writeReplicas) {
    String key = pool.getMetadata().getNamespace() + "/" + pool.getMetadata().getName();
    KvCachePoolSpec spec = pool.getSpec();
    StorageSpec storage = spec == null ? null : spec.getStorage();
    Optional<AutoscalingPolicy> policy =
        AutoscalingPolicy.of(storage == null ? null : storage.getAutoscaling());
    if (policy.isEmpty()) {
      histories.remove(key);
      return Optional.empty();
    }
    SignalHistory history = histories.computeIfAbsent(key, k -> new SignalHistory());
    leader
        .flatMap(s -> SignalSample.of(s, now))
        .ifPresent(
            s ->
                history.record(
                    s,
                    policy.get().scaleUpWindow().compareTo(policy.get().scaleDownWindow()) > 0
                        ? policy.get().scaleUpWindow()
                        : policy.get().scaleDownWindow()));
    AutoscalingStatus previous =
        pool.getStatus() == null ? null : pool.getStatus().getAutoscaling();
    EvictionSpec eviction = spec.getEviction();
    double highWatermark =
        eviction == null || eviction.getHighWatermark() == null
            ? EvictionSpec.DEFAULT_HIGH_WATERMARK
            : eviction.getHighWatermark();
    int replicas =
        storage.getReplicas() == null ? StorageSpec.DEFAULT_REPLICAS : storage.getReplicas();
    int objectReplicas =
        spec.getObjectReplicas() == null
            ? KvCachePoolSpec.DEFAULT_OBJECT_REPLICAS
            : spec.getObjectReplicas();
    ScalingVerdict verdict =
        Autoscaler.decide(
            new AutoscalingInputs(
                policy.get(),
                replicas,
                previous == null ? null : previous.getDesiredReplicas(),
                previous == null || previous.getExternalChangeSeen() == null
                    ? null
                    : Instant.parse(previous.getExternalChangeSeen()),
                history.samples(),
                rolloutActive,
                scalingDown,
                objectReplicas,
                highWatermark,
                now));
    if (verdict.scales() && !writeReplicas.test(verdict.to())) {
      // someone else changed the pool since it was read: nothing written, the next round decides on
      // what is there
      verdict =
          ScalingVerdict.hold(
              "PoolChanged",
              replicas,
              "the pool changed while "
                  + verdict.action()
                  + " to "
                  + verdict.to()
                  + " was being written; deciding again",
              verdict.latest());
    }
    return Optional.of(AutoscalingRecord.next(previous, verdict, now));
  }
}
