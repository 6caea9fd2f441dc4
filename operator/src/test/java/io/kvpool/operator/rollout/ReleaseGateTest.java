package io.kvpool.operator.rollout;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvpool.admin.AdminJson;
import io.kvpool.admin.ImageVersion;
import io.kvpool.api.v1alpha1.RolloutPhase;
import io.kvpool.api.v1alpha1.UpgradeStatus;
import io.kvpool.operator.rollout.ReleaseGate.Release;
import io.kvpool.operator.rollout.ReleaseGate.Verdict;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * What the StatefulSets render while a release change is checked, allowed, refused or rolled back.
 */
class ReleaseGateTest {
  private static final Release V100 = new Release("1.0.0", "kvpool/data-plane:1.0.0");
  private static final Release V110 = new Release("1.1.0", "kvpool/data-plane:1.1.0");
  private static final Release V200 = new Release("2.0.0", "kvpool/data-plane:2.0.0");

  private static ImageCheck.Result declares(String release, String protocol, int format) {
    return new ImageCheck.Result(
        ImageCheck.Result.State.DECLARED,
        new ImageVersion(AdminJson.API_VERSION, release, protocol, format),
        "declares " + release);
  }

  private static ReleaseGate.Inputs inputs(Release target, Map<String, ImageCheck.Result> checks) {
    return new ReleaseGate.Inputs(
        target, false, Optional.of(V100), Set.of("1.0.0"), Set.of("2.0"), checks, null);
  }

  @Test
  void aNewPoolRendersItsVersion() {
    var d =
        ReleaseGate.decide(
            new ReleaseGate.Inputs(
                V110, false, Optional.empty(), Set.of(), Set.of(), Map.of(), null));
    assertThat(d.render()).isEqualTo(V110);
    assertThat(d.verdict()).isEqualTo(Verdict.CURRENT);
  }

  @Test
  void withoutAReleaseChangeTheTargetIsRendered() {
    var d = ReleaseGate.decide(inputs(V100, Map.of()));
    assertThat(d.render()).isEqualTo(V100);
    assertThat(d.verdict()).isEqualTo(Verdict.CURRENT);
    assertThat(d.checkImage()).isEmpty();
  }

  @Test
  void aMajorChangeIsBlockedBeforeAnyImageIsCheckedAndTheRunningReleaseStaysRendered() {
    var d = ReleaseGate.decide(inputs(V200, Map.of()));
    assertThat(d.verdict()).isEqualTo(Verdict.BLOCKED);
    assertThat(d.reason()).isEqualTo("VersionPolicy");
    assertThat(d.render()).isEqualTo(V100);
    assertThat(d.message())
        .contains("changes the major version")
        .endsWith("the pool keeps running 1.0.0");
    assertThat(d.checkImage()).isEmpty();
  }

  @Test
  void anAllowedChangeWaitsForTheImageCheckThenProceeds() {
    var checking = ReleaseGate.decide(inputs(V110, Map.of()));
    assertThat(checking.verdict()).isEqualTo(Verdict.CHECKING);
    assertThat(checking.render()).isEqualTo(V100);
    assertThat(checking.checkImage()).contains(V110.image());
    var proceed =
        ReleaseGate.decide(inputs(V110, Map.of(V110.image(), declares("1.1.0", "2.0", 1))));
    assertThat(proceed.verdict()).isEqualTo(Verdict.PROCEED);
    assertThat(proceed.render()).isEqualTo(V110);
    assertThat(proceed.targetFormat()).contains(1);
  }

  @Test
  void anImageOfAnotherReleaseOrProtocolIsBlocked() {
    var mismatch =
        ReleaseGate.decide(inputs(V110, Map.of(V110.image(), declares("1.2.0", "2.0", 1))));
    assertThat(mismatch.reason()).isEqualTo("ImageReleaseMismatch");
    assertThat(mismatch.render()).isEqualTo(V100);
    var protocol =
        ReleaseGate.decide(inputs(V110, Map.of(V110.image(), declares("1.1.0", "3.0", 1))));
    assertThat(protocol.reason()).isEqualTo("ProtocolIncompatible");
    assertThat(protocol.message())
        .contains("protocol version mismatch")
        .contains("3.0")
        .contains("2.0");
    var failed =
        ReleaseGate.decide(
            inputs(
                V110,
                Map.of(
                    V110.image(),
                    new ImageCheck.Result(
                        ImageCheck.Result.State.FAILED,
                        null,
                        "image cannot run: ImagePullBackOff"))));
    assertThat(failed.reason()).isEqualTo("ImageCheckFailed");
    assertThat(failed.render()).isEqualTo(V100);
  }

  @Test
  void everyReleaseAPodRunsMustAllowTheTarget() {
    // mid-rollout 1.0.0 -> 1.1.0 the user asks for 1.2.0: 1.0.0 pods cannot skip to it; the 1.1.0
    // rollout goes on
    var d =
        ReleaseGate.decide(
            new ReleaseGate.Inputs(
                new Release("1.2.0", "kvpool/data-plane:1.2.0"),
                false,
                Optional.of(V110),
                Set.of("1.0.0", "1.1.0"),
                Set.of("2.0"),
                Map.of(),
                null));
    assertThat(d.verdict()).isEqualTo(Verdict.BLOCKED);
    assertThat(d.render()).isEqualTo(V110);
    assertThat(d.message()).contains("1.0.0 -> 1.2.0 skips minor versions");
  }

  @Test
  void aRolloutAlreadyRenderedGoesOnWithoutANewCheck() {
    var d =
        ReleaseGate.decide(
            new ReleaseGate.Inputs(
                V110,
                false,
                Optional.of(V110),
                Set.of("1.0.0", "1.1.0"),
                Set.of(),
                Map.of(),
                null));
    assertThat(d.verdict()).isEqualTo(Verdict.PROCEED);
    assertThat(d.render()).isEqualTo(V110);
  }

  @Test
  void aTimedOutRolloutWithRollbackRendersWhereItStartedUntilTheSpecChanges() {
    UpgradeStatus prev = new UpgradeStatus();
    prev.setFrom("1.0.0");
    prev.setFromImage(V100.image());
    prev.setTo("1.1.0");
    prev.setToImage(V110.image());
    prev.setPhase(RolloutPhase.RollingBack);
    var back =
        ReleaseGate.decide(
            new ReleaseGate.Inputs(
                V110,
                false,
                Optional.of(V110),
                Set.of("1.0.0", "1.1.0"),
                Set.of("2.0"),
                Map.of(),
                prev));
    assertThat(back.verdict()).isEqualTo(Verdict.ROLLING_BACK);
    assertThat(back.render()).isEqualTo(V100);
    prev.setPhase(RolloutPhase.RolledBack);
    var done =
        ReleaseGate.decide(
            new ReleaseGate.Inputs(
                V110, false, Optional.of(V100), Set.of("1.0.0"), Set.of("2.0"), Map.of(), prev));
    assertThat(done.verdict()).isEqualTo(Verdict.BLOCKED);
    assertThat(done.reason()).isEqualTo("RolledBack");
    assertThat(done.render()).isEqualTo(V100);
    var retried =
        ReleaseGate.decide(
            new ReleaseGate.Inputs(
                new Release("1.1.1", "kvpool/data-plane:1.1.1"),
                false,
                Optional.of(V100),
                Set.of("1.0.0"),
                Set.of("2.0"),
                Map.of(),
                prev));
    assertThat(retried.verdict()).isEqualTo(Verdict.CHECKING);
  }

  @Test
  void aDowngradeFollowsAllowDowngrade() {
    var refused =
        ReleaseGate.decide(
            new ReleaseGate.Inputs(
                V100, false, Optional.of(V110), Set.of("1.1.0"), Set.of("2.0"), Map.of(), null));
    assertThat(refused.reason()).isEqualTo("VersionPolicy");
    assertThat(refused.message()).contains("downgrade");
    var allowed =
        ReleaseGate.decide(
            new ReleaseGate.Inputs(
                V100,
                true,
                Optional.of(V110),
                Set.of("1.1.0"),
                Set.of("2.0"),
                Map.of(V100.image(), declares("1.0.0", "2.0", 1)),
                null));
    assertThat(allowed.verdict()).isEqualTo(Verdict.PROCEED);
    assertThat(allowed.render()).isEqualTo(V100);
  }
}
