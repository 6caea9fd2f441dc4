package io.kvpool.operator.rollout;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvpool.api.v1alpha1.RolloutPhase;
import io.kvpool.api.v1alpha1.UpgradeFailurePolicy;
import io.kvpool.api.v1alpha1.UpgradeStatus;
import io.kvpool.operator.common.PoolEvent;
import io.kvpool.operator.common.PoolEventReason;
import io.kvpool.operator.rollout.ReleaseGate.Release;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** status.upgrade and its Events across a refused or checked change that is taken back. */
class RolloutStatusTest {
  private static final Release V100 = new Release("1.0.0", "kvpool/data-plane:1.0.0");
  private static final Release V110 = new Release("1.1.0", "kvpool/data-plane:1.1.0");
  private static final Release V200 = new Release("2.0.0", "kvpool/data-plane:2.0.0");

  private final RolloutModel model = new RolloutModel();

  /** One reconciliation of a pool whose pods all run 1.0.0, with spec.version at {@code target}. */
  private RolloutStatus.Update round(UpgradeStatus previous, Release target) {
    ReleaseGate.Decision gate =
        ReleaseGate.decide(
            new ReleaseGate.Inputs(
                target,
                false,
                Optional.of(V100),
                Set.of("1.0.0"),
                Set.of("2.0"),
                Map.of(),
                previous));
    return RolloutStatus.next(
        previous,
        new RolloutStatus.Round(
            target,
            gate,
            model.plan(),
            model.observe(),
            Set.of("1.0.0"),
            null,
            null,
            null,
            UpgradeFailurePolicy.Pause,
            model.now));
  }

  @Test
  void aPoolThatNeverRolledOutHasNoUpgradeStatus() {
    assertThat(round(null, V100).status()).isNull();
  }

  @Test
  void aRefusedChangeIsBlockedAndTakingItBackSaysWithdrawnOnce() {
    RolloutStatus.Update blocked = round(null, V200);
    assertThat(blocked.status().getPhase()).isEqualTo(RolloutPhase.Blocked);
    assertThat(blocked.status().getFrom()).isEqualTo("1.0.0");
    assertThat(blocked.status().getTo()).isEqualTo("2.0.0");
    assertThat(blocked.status().getMessage()).contains("changes the major version");

    RolloutStatus.Update back = round(blocked.status(), V100);
    assertThat(back.status().getPhase()).isEqualTo(RolloutPhase.Withdrawn);
    assertThat(back.status().getMessage())
        .isEqualTo(
            "spec.version is 1.0.0 again: the change to 2.0.0 was withdrawn before any pod was replaced");
    assertThat(back.status().getCompletedAt()).isNotNull();
    assertThat(back.events())
        .extracting(PoolEvent::reason)
        .containsExactly(PoolEventReason.RolloutWithdrawn);

    RolloutStatus.Update after = round(back.status(), V100);
    assertThat(after.status()).as("unchanged once withdrawn").isSameAs(back.status());
    assertThat(after.events()).isEmpty();
  }

  @Test
  void aChangeTakenBackWhileItsImageIsCheckedIsWithdrawnToo() {
    RolloutStatus.Update checking = round(null, V110);
    assertThat(checking.status().getPhase()).isEqualTo(RolloutPhase.Checking);
    assertThat(checking.status().getTo()).isEqualTo("1.1.0");

    RolloutStatus.Update back = round(checking.status(), V100);
    assertThat(back.status().getPhase()).isEqualTo(RolloutPhase.Withdrawn);
    assertThat(back.events())
        .extracting(PoolEvent::reason)
        .containsExactly(PoolEventReason.RolloutWithdrawn);
  }

  @Test
  void aNewChangeAfterAWithdrawnOneStartsAFreshRollout() {
    UpgradeStatus withdrawn = round(round(null, V200).status(), V100).status();
    RolloutStatus.Update next = round(withdrawn, V110);
    assertThat(next.status().getPhase()).isEqualTo(RolloutPhase.Checking);
    assertThat(next.status().getTo()).isEqualTo("1.1.0");
    assertThat(next.status().getMessage()).isNull();
  }
}
