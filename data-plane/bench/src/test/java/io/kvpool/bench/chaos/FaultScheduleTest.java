package io.kvpool.bench.chaos;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class FaultScheduleTest {
  private static final FaultSchedule.Shape SHAPE =
      new FaultSchedule.Shape(
          4,
          3,
          Duration.ofSeconds(10),
          Duration.ofSeconds(8),
          Duration.ofSeconds(2),
          Duration.ofSeconds(8));
  private static final Set<FaultKind> ALL = EnumSet.allOf(FaultKind.class);

  @Test
  void theSameSeedGivesTheSameStepsAndAnotherSeedOthers() {
    List<Fault> a = FaultSchedule.preview(42, SHAPE, ALL, 100);
    assertThat(FaultSchedule.preview(42, SHAPE, ALL, 100)).isEqualTo(a);
    assertThat(FaultSchedule.preview(43, SHAPE, ALL, 100)).isNotEqualTo(a);
    assertThat(a).extracting(Fault::step).startsWith(1, 2, 3).endsWith(100);
  }

  @Test
  void everyRoundHasEveryEnabledKindOnce() {
    List<Fault> steps = FaultSchedule.preview(7, SHAPE, ALL, ALL.size() * 5);
    for (int round = 0; round < 5; round++) {
      Set<FaultKind> kinds =
          steps.subList(round * ALL.size(), (round + 1) * ALL.size()).stream()
              .map(Fault::kind)
              .collect(Collectors.toSet());
      assertThat(kinds).as("round %d", round).isEqualTo(ALL);
    }
    // shuffled, not in declaration order every time
    assertThat(steps.subList(0, ALL.size())).extracting(Fault::kind).isNotEqualTo(List.copyOf(ALL));
  }

  @Test
  void targetsDurationsAndPausesStayWithinThePoolsShape() {
    for (Fault f : FaultSchedule.preview(99, SHAPE, ALL, 2000)) {
      assertThat(f.pauseBefore()).isBetween(Duration.ofSeconds(2), Duration.ofSeconds(8));
      switch (f.kind()) {
        case KILL_NODE, RESTART_NODE, STOP_NODE, DRAIN_NODE ->
            assertThat(f.target().role()).isEqualTo(Target.Role.NODE);
        case KILL_LEADER, STOP_LEADER, STEP_DOWN -> assertThat(f.target()).isEqualTo(Target.LEADER);
        case KILL_STANDBY, STOP_STANDBY ->
            assertThat(f.target().role()).isEqualTo(Target.Role.STANDBY);
        case EVICTION_BURST -> assertThat(f.target()).isEqualTo(Target.NONE);
        case CUT_CONNECTIONS, EXHAUST_BUDGET ->
            assertThat(f.target().role()).isNotEqualTo(Target.Role.NONE);
      }
      if (f.target().role() == Target.Role.NODE) {
        assertThat(f.target().index()).isBetween(0, 3);
      }
      if (f.target().role() == Target.Role.STANDBY) {
        assertThat(f.target().index()).isBetween(0, 1);
      }
      switch (f.kind()) {
        case STOP_NODE ->
            assertThat(f.hold()).isBetween(Duration.ofSeconds(1), Duration.ofSeconds(15));
        case STOP_LEADER ->
            assertThat(f.hold()).isBetween(Duration.ofSeconds(1), Duration.ofSeconds(12));
        case EXHAUST_BUDGET ->
            assertThat(f.hold()).isBetween(Duration.ofSeconds(2), Duration.ofSeconds(8));
        default -> {}
      }
    }
  }

  @Test
  void someStopsOutlastTheNodeTtlAndTheElectionLeaseAndSomeDoNot() {
    List<Fault> steps =
        FaultSchedule.preview(
            5, SHAPE, EnumSet.of(FaultKind.STOP_NODE, FaultKind.STOP_LEADER), 200);
    assertThat(steps)
        .anyMatch(f -> f.kind() == FaultKind.STOP_NODE && f.hold().compareTo(SHAPE.nodeTtl()) > 0)
        .anyMatch(f -> f.kind() == FaultKind.STOP_NODE && f.hold().compareTo(SHAPE.nodeTtl()) < 0)
        .anyMatch(
            f -> f.kind() == FaultKind.STOP_LEADER && f.hold().compareTo(SHAPE.electionLease()) > 0)
        .anyMatch(
            f ->
                f.kind() == FaultKind.STOP_LEADER && f.hold().compareTo(SHAPE.electionLease()) < 0);
  }

  @Test
  void aSoleMasterGetsNoStandbyFaults() {
    FaultSchedule.Shape sole =
        new FaultSchedule.Shape(
            4, 1, Duration.ofSeconds(10), Duration.ofSeconds(8), Duration.ZERO, Duration.ZERO);
    assertThat(FaultSchedule.preview(1, sole, ALL, 100))
        .extracting(Fault::kind)
        .doesNotContain(FaultKind.KILL_STANDBY, FaultKind.STOP_STANDBY, FaultKind.STEP_DOWN);
    assertThatThrownBy(() -> new FaultSchedule(1, sole, EnumSet.of(FaultKind.STOP_STANDBY)))
        .hasMessageContaining("need standby masters");
  }

  @Test
  void kindsAreNamedAsOnTheCommandLine() {
    assertThat(FaultKind.parse("Kill-Node")).isEqualTo(FaultKind.KILL_NODE);
    assertThat(FaultKind.parse("eviction-burst")).isEqualTo(FaultKind.EVICTION_BURST);
    assertThatThrownBy(() -> FaultKind.parse("kill-everything"))
        .hasMessageContaining("known: kill-node");
    Fault f =
        new Fault(
            4, FaultKind.STOP_NODE, Target.node(1), Duration.ofMillis(7300), Duration.ZERO, 0);
    assertThat(f.describe()).isEqualTo("step 4: stop-node node-2 for 7.3 s");
  }
}
