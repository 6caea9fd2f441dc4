package io.kvpool.operator.autoscale;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.kvpool.admin.AdminJson;
import io.kvpool.admin.MasterStatus;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/** What the autoscaler reads from the leader's /status: the memory tier, whatever else there is. */
class SignalSampleTest {
  private static final Instant AT = Instant.parse("2026-11-26T12:00:00Z");

  private static MasterStatus leader(long capacity, long used, List<MasterStatus.Tier> tiers) {
    return new MasterStatus(
        AdminJson.API_VERSION,
        "p",
        "LEADER",
        "SERVING",
        1,
        null,
        "0.3.0",
        "2.4",
        new MasterStatus.Recovery(false, 0, List.of()),
        List.of(),
        capacity,
        used,
        0,
        null,
        new MasterStatus.CacheSignals(60, tiers, 1000, 0, 0, 2.5, 0, 0, 0),
        null);
  }

  @Test
  void fullnessAndBytesAreTheMemoryTiersWhenADiskTierIsThere() {
    MasterStatus status =
        leader(
            4L << 30,
            3L << 30,
            List.of(
                new MasterStatus.Tier("memory", 4L << 30, 3L << 30, 0),
                new MasterStatus.Tier("disk", 60L << 30, 29L << 30, 0)));

    SignalSample s = SignalSample.of(status, AT).orElseThrow();

    assertThat(s.fullness()).isCloseTo(0.75, within(1e-9));
    assertThat(s.capacityBytes()).isEqualTo(4L << 30);
    assertThat(s.usedBytes()).isEqualTo(3L << 30);
    assertThat(s.otherTiers())
        .as("the disk, for the nodes the data needs")
        .containsExactly(new MasterStatus.Tier("disk", 60L << 30, 29L << 30, 0));
    assertThat(s.capacityMissesPerSecond()).isEqualTo(2.5);
    assertThat(s.evictedBytesPerSecond()).isEqualTo(1000);
  }

  @Test
  void aLeaderThatNamesNoMemoryTierIsReadFromItsTotals() {
    SignalSample s = SignalSample.of(leader(4L << 30, 1L << 30, List.of()), AT).orElseThrow();

    assertThat(s.fullness()).isCloseTo(0.25, within(1e-9));
    assertThat(s.capacityBytes()).isEqualTo(4L << 30);
  }
}
