package io.kvpool.master;

import io.kvpool.common.MetricsRegistry;
import io.kvpool.common.MetricsRegistry.Counter;

/** The master's counters, registered in its Prometheus registry. */
public final class MasterCounters {
  final Counter puts;
  final Counter gets;
  final Counter getHits;
  final Counter getMisses;
  final Counter evictions;
  final Counter objectsLost;
  final Counter repairs;
  final Counter repairFailures;
  final Counter pendingExpired;
  final Counter versionMismatches;

  public MasterCounters(MetricsRegistry r) {
    puts = r.counter("kvpool_puts_total", "Objects made visible by PutEnd");
    gets = r.counter("kvpool_gets_total", "Keys looked up by GetReplicaList");
    getHits = r.counter("kvpool_get_hits_total", "Lookups that found a complete object");
    getMisses = r.counter("kvpool_get_misses_total", "Lookups that found nothing");
    evictions = r.counter("kvpool_evictions_total", "Objects evicted to free space");
    objectsLost = r.counter("kvpool_objects_lost_total", "Objects whose every replica was on dead nodes");
    repairs = r.counter("kvpool_repairs_total", "Replicas re-created by copying from a survivor");
    repairFailures = r.counter("kvpool_repair_failures_total", "Replica copies that failed (retried later)");
    pendingExpired = r.counter("kvpool_pending_expired_total", "Puts revoked because PutEnd never came");
    versionMismatches = r.counter("kvpool_version_mismatch_total", "Connections refused for protocol version skew");
  }

  public Counter versionMismatches() {
    return versionMismatches;
  }

  public long puts() {
    return puts.get();
  }

  public long gets() {
    return gets.get();
  }

  public long getHits() {
    return getHits.get();
  }

  public long getMisses() {
    return getMisses.get();
  }

  public long evictions() {
    return evictions.get();
  }

  public long objectsLost() {
    return objectsLost.get();
  }

  public long repairs() {
    return repairs.get();
  }
}
