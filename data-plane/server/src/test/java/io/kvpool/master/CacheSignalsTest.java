package io.kvpool.master;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvpool.admin.MasterStatus;
import io.kvpool.protocol.ErrorCode;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The autoscaling signals from a pool the metadata really evicts from: capacity misses against
 * plain misses.
 */
class CacheSignalsTest {
  private static final long MIB = 1 << 20;

  @Test
  void missesForEvictedKeysAreCapacityMissesAndUnknownKeysAreNot() {
    PoolFixture f = new PoolFixture(0.9, 0.1).node("a", 16 * MIB).node("b", 16 * MIB).settle();
    int stored = 0;
    while (f.evictions() < 20) {
      f.put("k" + stored++, 256 * 1024, 1);
    }
    int gone = 0;
    for (int i = 0; i < stored; i++) {
      ErrorCode found = f.pool.getReplicas(List.of("k" + i)).get(0).status();
      gone += found == ErrorCode.OK ? 0 : 1;
    }
    for (int i = 0; i < 7; i++) {
      assertThat(f.pool.getReplicas(List.of("never-" + i)).get(0).status())
          .isNotEqualTo(ErrorCode.OK);
    }
    MasterStatus.CacheSignals s =
        f.counters.cacheSignals.rates(f.now.get(), CacheTiers.of(f.pool.snapshot()));
    assertThat(gone).as("evicted keys").isEqualTo((int) f.evictions());
    assertThat(s.capacityMisses())
        .as("every evicted key looked up, none of the unknown ones")
        .isEqualTo(gone);
    assertThat(s.capacityMissesPerSecond()).isEqualTo((double) gone / CacheSignals.WINDOW_SECONDS);
    assertThat(s.missesPerSecond()).isEqualTo((double) (gone + 7) / CacheSignals.WINDOW_SECONDS);
    assertThat(s.missRatio()).isEqualTo((double) (gone + 7) / (stored + 7));
    assertThat(s.evictedBytes()).as("256 KiB per evicted object").isEqualTo(gone * 256L * 1024);
    assertThat(s.evictedBytesPerSecond())
        .isEqualTo(gone * 256.0 * 1024 / CacheSignals.WINDOW_SECONDS);
    assertThat(s.tiers())
        .singleElement()
        .satisfies(
            t -> {
              assertThat(t.name()).isEqualTo("memory");
              assertThat(t.capacityBytes()).isEqualTo(32 * MIB);
              assertThat(t.fullness()).isBetween(0.7, 0.9);
            });

    f.advance(Duration.ofSeconds(CacheSignals.WINDOW_SECONDS));
    MasterStatus.CacheSignals later = f.counters.cacheSignals.rates(f.now.get(), List.of());
    assertThat(later.capacityMissesPerSecond()).as("the window moved past them").isZero();
    assertThat(later.evictedBytesPerSecond()).isZero();
    assertThat(later.capacityMisses()).as("the counters stay").isEqualTo(gone);
  }
}
