package io.kvpool.bench.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvpool.admin.MasterStatus;
import io.kvpool.admin.ObjectScan;
import java.util.List;
import org.junit.jupiter.api.Test;

class ResourceAndBudgetTest {

  @Test
  void growthCountsOnlyPastTenPercentAndTheFloor() {
    long mib = 1024;
    assertThat(ResourceTracker.grew(300 * mib, 329 * mib, 16 * mib)).as("+9.7 %").isFalse();
    assertThat(ResourceTracker.grew(300 * mib, 331 * mib, 16 * mib))
        .as("+10.3 %, +31 MiB")
        .isTrue();
    assertThat(ResourceTracker.grew(50 * mib, 65 * mib, 16 * mib))
        .as("+30 % but under the floor")
        .isFalse();
    assertThat(ResourceTracker.grew(100, 200, 16)).as("descriptors 100 -> 200").isTrue();
    assertThat(ResourceTracker.grew(60, 75, 16)).as("descriptors +15").isFalse();
    assertThat(ResourceTracker.grew(300, 200, 16)).as("shrinking").isFalse();
  }

  @Test
  void aMasterThatBecomesTheLeaderIsComparedWithItselfAsLeader() {
    long s = 1_000_000_000L;
    ResourceTracker tracker = new ResourceTracker(java.time.Duration.ofSeconds(30));
    tracker.record("master-1", 7, "standby", true, sample(600 << 10, 112), 10 * s);
    tracker.record("master-1", 7, null, true, sample(600 << 10, 112), 50 * s);
    // elected: a leader holds every node's links, so its descriptors and RSS step up
    tracker.record("master-1", 7, "leader", true, sample(660 << 10, 132), 60 * s);
    tracker.record("master-1", 7, "leader", true, sample(662 << 10, 133), 80 * s);
    assertThat(tracker.judge(20 * s, 85 * s))
        .as("the leader stretch has no baseline yet; the standby stretch is judged on its RSS")
        .extracting(j -> j.track().role() + " " + j.ended() + " " + j.judged() + " " + j.flagged())
        .containsExactly("leader false false false", "standby true true false");
    tracker.record("master-1", 7, "leader", true, sample(664 << 10, 134), 95 * s);
    tracker.record("master-1", 7, "leader", true, sample(670 << 10, 135), 130 * s);
    ResourceTracker.Judgement j = tracker.judge(20 * s, 130 * s).get(0);
    assertThat(j.ended()).isFalse();
    assertThat(j.judged()).isTrue();
    assertThat(j.flagged()).as("664 -> 670 MiB, 134 -> 135 fds as leader").isFalse();
    assertThat(j.track().role()).isEqualTo("leader");
    assertThat(tracker.roleChanges("master-1")).isEqualTo(1);
    assertThat(tracker.restarts("master-1")).isZero();

    // the same growth measured from the standby baseline would have been flagged
    ResourceTracker roleBlind = new ResourceTracker(java.time.Duration.ofSeconds(30));
    roleBlind.record("master-1", 7, null, true, sample(600 << 10, 112), 10 * s);
    roleBlind.record("master-1", 7, null, true, sample(670 << 10, 135), 130 * s);
    assertThat(roleBlind.judge(20 * s, 130 * s).get(0).flagged()).isTrue();
  }

  @Test
  void growthInOneRoleIsStillFlagged() {
    long s = 1_000_000_000L;
    ResourceTracker tracker = new ResourceTracker(java.time.Duration.ofSeconds(30));
    tracker.record("master-2", 9, "leader", true, sample(600 << 10, 120), 10 * s);
    tracker.record("master-2", 9, null, true, sample(610 << 10, 125), 20 * s);
    tracker.record("master-2", 9, "leader", true, sample(700 << 10, 160), 100 * s);
    ResourceTracker.Judgement j = tracker.judge(20 * s, 100 * s).get(0);
    assertThat(j.judged()).isTrue();
    assertThat(j.flagged()).isTrue();
    assertThat(tracker.roleChanges("master-2")).isZero();
  }

  @Test
  void aStretchThatEndedIsJudgedOnItsMemory() {
    long s = 1_000_000_000L;
    ResourceTracker tracker = new ResourceTracker(java.time.Duration.ofSeconds(10));
    tracker.record("master-0", 3, "leader", true, sample(600 << 10, 120), 10 * s);
    tracker.record("master-0", 3, "leader", true, sample(700 << 10, 120), 50 * s);
    tracker.record("master-0", 4, "standby", true, sample(500 << 10, 100), 60 * s); // restarted
    tracker.record("master-0", 4, "standby", false, sample(500 << 10, 100), 100 * s);
    List<ResourceTracker.Judgement> judged = tracker.judge(20 * s, 100 * s);
    assertThat(judged).hasSize(2);
    assertThat(judged.get(1).ended()).isTrue();
    assertThat(judged.get(1).track().pid()).isEqualTo(3);
    assertThat(judged.get(1).flagged()).as("600 -> 700 MiB as leader before the restart").isTrue();
    assertThat(tracker.restarts("master-0")).isEqualTo(1);

    ResourceTracker shortStretch = new ResourceTracker(java.time.Duration.ofSeconds(10));
    shortStretch.record("master-0", 3, "leader", true, sample(600 << 10, 120), 10 * s);
    shortStretch.record("master-0", 3, "leader", true, sample(700 << 10, 120), 20 * s);
    shortStretch.record("master-0", 3, "standby", true, sample(700 << 10, 120), 25 * s);
    assertThat(shortStretch.judge(20 * s, 25 * s))
        .as("a 10 s stretch is too short to judge")
        .hasSize(1);
  }

  private static ProcessResources sample(long privateKiB, int fds) {
    return new ProcessResources(privateKiB, privateKiB, 0, 0, fds);
  }

  @Test
  void procStatusFieldsAreReadInKiB() {
    List<String> status =
        List.of(
            "Name:\tjava",
            "VmRSS:\t  123456 kB",
            "RssAnon:\t   100000 kB",
            "RssFile:\t 20000 kB",
            "RssShmem:\t  3456 kB");
    assertThat(ProcessResources.field(status, "VmRSS:")).isEqualTo(123456);
    assertThat(ProcessResources.field(status, "RssShmem:")).isEqualTo(3456);
    assertThat(ProcessResources.field(status, "VmSwap:")).isZero();
    assertThat(new ProcessResources(123456, 100000, 20000, 3456, 10).privateKiB())
        .isEqualTo(120000);
    assertThat(ProcessResources.read(ProcessHandle.current().pid()))
        .hasValueSatisfying(
            r -> {
              assertThat(r.rssKiB()).isPositive();
              assertThat(r.fds()).isPositive();
            });
  }

  @Test
  void theBudgetGaugeIsReadFromAPrometheusPage() {
    String page =
        String.join(
            "\n",
            "# HELP kvpool_body_budget_available_bytes Room left",
            "# TYPE kvpool_body_budget_available_bytes gauge",
            "kvpool_body_budget_available_bytes 2.68435456E8",
            "kvpool_body_budget_available_bytes_other 5",
            "");
    assertThat(BudgetTracker.available(page)).hasValue(268435456L);
    assertThat(
            BudgetTracker.available(
                "kvpool_body_budget_available_bytes{kind=\"control\"} 100\n"
                    + "kvpool_body_budget_available_bytes{kind=\"client\"} 50 1700000000000\n"))
        .hasValue(150);
    assertThat(BudgetTracker.available("other_metric 1\n")).isEmpty();
  }

  @Test
  void aBudgetBelowItsWholeIsMissingUntilItComesBack() {
    BudgetTracker t = new BudgetTracker();
    t.record("node-1", 10, "kvpool_body_budget_available_bytes 1000\n");
    t.record("node-1", 10, "kvpool_body_budget_available_bytes 400\n");
    assertThat(t.readings().get("node-1").missing()).isEqualTo(600);
    t.record("node-1", 10, "kvpool_body_budget_available_bytes 1000\n");
    assertThat(t.readings().get("node-1").missing()).isZero();
    t.record("node-1", 11, "kvpool_body_budget_available_bytes 900\n");
    assertThat(t.readings().get("node-1").whole())
        .as("a new process starts its own record")
        .isEqualTo(900);
    assertThat(t.record("node-2", 12, "nothing\n")).isFalse();
    assertThat(t.unavailable()).isTrue();
  }

  @Test
  void gaugesAreComparedWithTheScanFieldByField() {
    MasterStatus.Counters counters = new MasterStatus.Counters(0, 0, 0, 0, 0, 0, 0, 0, 2, 0, 5, 0);
    MasterStatus status =
        new MasterStatus(
            "v1", "p", "LEADER", "SERVING", 1, null, "", "", null, List.of(), 0, 0, 100, counters,
            null, null);
    assertThat(GaugeCheck.compare(new ObjectScan("v1", 1, "SERVING", 100, 2, 98, 5, 196), status))
        .isEmpty();
    assertThat(GaugeCheck.compare(new ObjectScan("v1", 1, "SERVING", 99, 2, 97, 0, 194), status))
        .containsExactly(
            "objects: scan 99, gauge objectCount 100",
            "under-replicated: scan 0, gauge underReplicated 5");
  }
}
