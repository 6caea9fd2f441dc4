package io.kvpool.master;

import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.model.registry.PrometheusRegistry;

/** The master's event counters, registered in its Prometheus registry. */
public final class MasterCounters {
  final Counter puts;
  final Counter gets;
  final Counter getHits;
  final Counter getMisses;
  final Counter evictions;

  /** Evicted replicas moved to their nodes' disk tiers instead of deleted (protocol 2.3). */
  final Counter spills;

  final Counter objectsLost;
  final Counter objectsRecovered;
  final Counter repairs;
  final Counter repairFailures;
  final Counter repairedBytes;
  final Counter pendingExpired;
  final Counter nodeCommits;
  final Counter extents;
  final Counter commitWaits;
  final Counter tombstonesDropped;
  final Counter releasePushes;

  /** Objects REMOVE_MATCHING removed or had to keep (leased, copying, unfinished). */
  final Counter removedByPattern;

  /** Evictions, lookups and capacity misses over a window (the autoscaling signals). */
  final CacheSignals cacheSignals;

  public MasterCounters(PrometheusRegistry r) {
    puts = counter(r, "kvpool_puts_total", "Objects made visible by PutEnd");
    gets = counter(r, "kvpool_gets_total", "Keys looked up by GetReplicaList");
    getHits = counter(r, "kvpool_get_hits_total", "Lookups that found a complete object");
    getMisses = counter(r, "kvpool_get_misses_total", "Lookups that found nothing");
    evictions = counter(r, "kvpool_evictions_total", "Objects evicted to free space");
    spills =
        counter(
            r,
            "kvpool_spills_total",
            "Evicted objects whose replicas moved to their nodes' disk tiers");
    objectsLost =
        counter(r, "kvpool_objects_lost_total", "Objects whose every replica was on dead nodes");
    objectsRecovered =
        counter(
            r,
            "kvpool_objects_recovered_total",
            "Objects adopted from storage-node inventories the master did not know (lease recovery)");
    repairs = counter(r, "kvpool_repairs_total", "Replicas re-created by copying from a survivor");
    repairFailures =
        counter(r, "kvpool_repair_failures_total", "Replica copies that failed (retried later)");
    repairedBytes =
        counter(
            r,
            "kvpool_repaired_bytes_total",
            "Bytes of values copied between storage nodes to re-create replicas (repairs and drains)");
    pendingExpired =
        counter(r, "kvpool_pending_expired_total", "Puts revoked because PutEnd never came");
    removedByPattern =
        Counter.builder()
            .name("kvpool_removed_by_pattern_total")
            .help(
                "Objects matched by REMOVE_MATCHING: removed, or kept because they were leased,"
                    + " being copied or unfinished")
            .labelNames("outcome")
            .register(r);
    nodeCommits =
        Counter.builder()
            .name("kvpool_node_commits_total")
            .help(
                "Replica receipts storage nodes committed themselves (COMMIT, protocol 2.2): applied; freed_quarantine"
                    + " when the put had been deleted while pending and the receipt freed its range at once; or ignored"
                    + " because the put was no longer pending there, the registration was not the node's current one, or the"
                    + " receipt did not verify")
            .labelNames("outcome")
            .register(r);
    extents =
        Counter.builder()
            .name("kvpool_extents_total")
            .help(
                "Extents (protocol 2.4): granted to clients, or grants refused (grant_refused_no_space: no node"
                    + " has a free block of the extent's size, as in a pool full to its watermark, or extents"
                    + " would hold more than a quarter of the capacity; grant_refused_limit: a bad length or"
                    + " the client holds 8); values their nodes committed into them (put) or refused (refused:"
                    + " key rules, a returned, expired or unknown extent, a bad range)")
            .labelNames("event")
            .register(r);
    commitWaits =
        counter(
            r,
            "kvpool_commit_waits_total",
            "Lookups that waited for a pending put's storage nodes to commit it (protocol 2.2 puts)");
    tombstonesDropped =
        counter(
            r,
            "kvpool_tombstones_dropped_total",
            "Tombstones forgotten before their time because the tombstone table was full");
    releasePushes =
        Counter.builder()
            .name("kvpool_release_pushes_total")
            .help(
                "REMOVE releases sent to a storage node before the REMOVE was answered (RELEASE):"
                    + " delivered, failed, timed_out or skipped (its last push failed or timed out less than 1 s ago,"
                    + " or 64 REMOVEs already wait for it);"
                    + " the node then takes them with its next heartbeat")
            .labelNames("outcome")
            .register(r);
    cacheSignals = new CacheSignals(r);
  }

  private static Counter counter(PrometheusRegistry r, String name, String help) {
    return Counter.builder().name(name).help(help).register(r);
  }

  static long value(Counter c) {
    return (long) c.get();
  }

  public long repairs() {
    return value(repairs);
  }

  public long repairedBytes() {
    return value(repairedBytes);
  }

  public long evictions() {
    return value(evictions);
  }

  public long objectsLost() {
    return value(objectsLost);
  }

  public long puts() {
    return value(puts);
  }
}
