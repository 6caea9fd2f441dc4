package io.kvpool.master;

import io.kvpool.common.MetricsRegistry;
import io.kvpool.common.VersionInfo;
import io.kvpool.protocol.ErrorCode;
import io.kvpool.protocol.PutStartItem;
import io.kvpool.protocol.PutStartResult;
import io.kvpool.protocol.RegisterNode;
import io.kvpool.protocol.SegmentInfo;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;

/** A PoolMetadata with a hand-driven clock and registered nodes, for unit tests of master policies. */
final class PoolFixture {
  final AtomicLong now = new AtomicLong(1_000_000);
  final MasterCounters counters = new MasterCounters(new MetricsRegistry());
  final PoolMetadata pool;

  PoolFixture(double highWatermark, double evictRatio) {
    MasterConfig config = new MasterConfig("p", Duration.ofSeconds(10), Duration.ofSeconds(5), Duration.ofSeconds(30),
        highWatermark, evictRatio);
    pool = new PoolMetadata(config, now::get, new ReplicaPlacement(new Random(7)), counters);
  }

  PoolFixture node(String id, long bytes) {
    pool.register(new RegisterNode(id, "127.0.0.1:1", List.of(new SegmentInfo(0, bytes)), List.of()),
        VersionInfo.CURRENT);
    return this;
  }

  PutStartResult start(String key, int size, int replicas) {
    return pool.putStart(List.of(new PutStartItem(key, size, 0, replicas))).get(0);
  }

  void put(String key, int size, int replicas) {
    PutStartResult r = start(key, size, replicas);
    if (r.status() != ErrorCode.OK) {
      throw new AssertionError("put " + key + ": " + r.status() + " " + r.message());
    }
    pool.putEnd(List.of(key));
  }

  boolean exists(String key) {
    return pool.exists(List.of(key)).get(0) == ErrorCode.OK;
  }

  void advance(Duration d) {
    now.addAndGet(d.toMillis());
  }
}
