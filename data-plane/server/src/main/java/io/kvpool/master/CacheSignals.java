package io.kvpool.master;

import io.kvpool.admin.MasterStatus;
import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.util.List;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * What tells "the pool is too small" from "the keys were never there": bytes evicted, lookups,
 * misses, and <em>capacity misses</em> — misses for a key the pool evicted recently ({@link
 * RecentlyEvictedKeys}, a fixed 256 KiB) — each as a Prometheus counter and as a rate over the last
 * {@link #WINDOW_SECONDS} seconds, and the fullness of each tier. The metadata calls {@link
 * #evicted} and {@link #lookedUp} under its lock; /status and /metrics read {@link #rates} from
 * other threads, hence the monitor (uncontended on the put/get path but for a scrape).
 */
public final class CacheSignals {
  public static final int WINDOW_SECONDS = 60;

  private final RecentlyEvictedKeys evictedKeys;
  private final RateWindow evictedBytes = new RateWindow(WINDOW_SECONDS);
  private final RateWindow lookups = new RateWindow(WINDOW_SECONDS);
  private final RateWindow misses = new RateWindow(WINDOW_SECONDS);
  private final RateWindow capacityMisses = new RateWindow(WINDOW_SECONDS);
  private final Counter evictedBytesTotal;
  private final Counter capacityMissesTotal;

  CacheSignals(PrometheusRegistry registry) {
    this(registry, new RecentlyEvictedKeys());
  }

  CacheSignals(PrometheusRegistry registry, RecentlyEvictedKeys evictedKeys) {
    this.evictedKeys = evictedKeys;
    this.evictedBytesTotal =
        Counter.builder()
            .name("kvpool_evicted_bytes_total")
            .help("Bytes of replicas freed by eviction")
            .register(registry);
    this.capacityMissesTotal =
        Counter.builder()
            .name("kvpool_capacity_misses_total")
            .help(
                "Lookups that found nothing for a key the pool evicted recently (the pool was too small for it)")
            .register(registry);
  }

  /** An object evicted: {@code bytes} of replicas freed. */
  synchronized void evicted(String key, long bytes, long nowMillis) {
    evictedKeys.add(key);
    evictedBytes.add(nowMillis, bytes);
    evictedBytesTotal.inc(bytes);
  }

  /** One lookup; a miss is a capacity miss when its key was evicted recently. */
  synchronized void lookedUp(String key, boolean hit, long nowMillis) {
    lookups.add(nowMillis, 1);
    if (hit) {
      return;
    }
    misses.add(nowMillis, 1);
    if (evictedKeys.mightContain(key)) {
      capacityMisses.add(nowMillis, 1);
      capacityMissesTotal.inc();
    }
  }

  /** The rates of the last window and the tiers' fullness, as /status reports them. */
  synchronized MasterStatus.CacheSignals rates(long nowMillis, List<MasterStatus.Tier> tiers) {
    long looked = lookups.sum(nowMillis);
    long missed = misses.sum(nowMillis);
    return new MasterStatus.CacheSignals(
        WINDOW_SECONDS,
        tiers,
        evictedBytes.perSecond(nowMillis),
        lookups.perSecond(nowMillis),
        misses.perSecond(nowMillis),
        capacityMisses.perSecond(nowMillis),
        looked == 0 ? 0.0 : (double) missed / looked,
        (long) evictedBytesTotal.get(),
        (long) capacityMissesTotal.get());
  }

  /**
   * Gauges of the window's rates and of each tier ({@code tier} label: {@code memory} today), for
   * scalers that read a ready number (an HPA through an external-metrics adapter) rather than
   * compute {@code rate()} of the counters.
   */
  void registerGauges(
      PrometheusRegistry registry, LongSupplier clock, Supplier<List<MasterStatus.Tier>> tiers) {
    gauge(
        registry,
        "kvpool_evicted_bytes_per_second",
        "Bytes evicted per second over the last 60 s",
        clock,
        s -> s.evictedBytesPerSecond());
    gauge(
        registry,
        "kvpool_capacity_misses_per_second",
        "Capacity misses per second over the last 60 s",
        clock,
        s -> s.capacityMissesPerSecond());
    gauge(
        registry,
        "kvpool_get_miss_ratio",
        "Share of lookups that missed over the last 60 s",
        clock,
        s -> s.missRatio());
    GaugeWithCallback.builder()
        .name("kvpool_tier_capacity_bytes")
        .help("Capacity of live storage nodes per tier")
        .labelNames("tier")
        .callback(cb -> tiers.get().forEach(t -> cb.call(t.capacityBytes(), t.name())))
        .register(registry);
    GaugeWithCallback.builder()
        .name("kvpool_tier_used_bytes")
        .help("Bytes allocated to replicas per tier")
        .labelNames("tier")
        .callback(cb -> tiers.get().forEach(t -> cb.call(t.usedBytes(), t.name())))
        .register(registry);
    GaugeWithCallback.builder()
        .name("kvpool_tier_objects")
        .help(
            "Objects per tier: memory, those with a replica in memory; disk, those held only by disk"
                + " tiers")
        .labelNames("tier")
        .callback(cb -> tiers.get().forEach(t -> cb.call(t.objects(), t.name())))
        .register(registry);
    GaugeWithCallback.builder()
        .name("kvpool_tier_fullness_ratio")
        .help("Used over capacity per tier (0 when empty)")
        .labelNames("tier")
        .callback(cb -> tiers.get().forEach(t -> cb.call(t.fullness(), t.name())))
        .register(registry);
  }

  private void gauge(
      PrometheusRegistry registry,
      String name,
      String help,
      LongSupplier clock,
      java.util.function.ToDoubleFunction<MasterStatus.CacheSignals> figure) {
    GaugeWithCallback.builder()
        .name(name)
        .help(help)
        .callback(cb -> cb.call(figure.applyAsDouble(rates(clock.getAsLong(), List.of()))))
        .register(registry);
  }
}
