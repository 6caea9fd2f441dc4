package io.kvpool.operator.rollout;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Optional;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The release changes a pool takes one pod at a time, over from/to pairs of every kind. */
class VersionPolicyTest {

  @ParameterizedTest(name = "{0} -> {1} (allowDowngrade={2}): {3}")
  @CsvSource({
    // same release, patches, one minor step
    "1.0.0, 1.0.0, false, allowed",
    "1.0.0, 1.0.1, false, allowed",
    "1.0.0, 1.0.17, false, allowed",
    "1.0.9, 1.1.0, false, allowed",
    "1.0.0, 1.1.0, false, allowed",
    "1.1.3, 1.2.0, false, allowed",
    "0.9.0, 0.10.0, false, allowed",
    "1.1.0-rc.1, 1.1.0, false, allowed",
    "1.0.0, 1.1.0-rc.2, false, allowed",
    "1.1.0-rc.1, 1.1.0-rc.2, false, allowed",
    // minors skipped
    "1.0.0, 1.2.0, false, skips minor versions",
    "1.0.5, 1.3.0, false, skips minor versions",
    "0.1.0, 0.3.0, false, skips minor versions",
    // majors
    "1.0.0, 2.0.0, false, changes the major version",
    "1.9.9, 2.0.0, false, changes the major version",
    "2.0.0, 1.9.0, true, changes the major version",
    "0.9.0, 1.0.0, false, changes the major version",
    // downgrades
    "1.1.0, 1.0.0, false, is a downgrade",
    "1.0.1, 1.0.0, false, is a downgrade",
    "1.1.0, 1.1.0-rc.1, false, is a downgrade",
    "1.1.0, 1.0.0, true, allowed",
    "1.0.3, 1.0.1, true, allowed",
    "1.2.0, 1.0.0, true, skips minor versions",
    // not comparable
    "1.0, 1.1.0, false, must be semantic versions",
    "1.0.0, latest, false, must be semantic versions",
  })
  void decidesEveryPair(String from, String to, boolean allowDowngrade, String expected) {
    Optional<String> refusal = VersionPolicy.refusal(from, to, allowDowngrade);
    if (expected.equals("allowed")) {
      assertThat(refusal).isEmpty();
    } else {
      assertThat(refusal).get().asString().contains(expected).contains(from).contains(to);
    }
  }

  @ParameterizedTest(name = "protocol {0} -> {1}: {2}")
  @CsvSource({
    "2.0, 2.0, compatible",
    "2.0, 2.1, compatible",
    "2.1, 2.0, compatible",
    "2.0, 2.2, protocol version mismatch",
    "2.3, 2.1, protocol version mismatch",
    "2.0, 3.0, protocol version mismatch",
    "1.9, 2.0, protocol version mismatch",
    "2.0, two, cannot read the protocols",
  })
  void protocolsFollowTheHandshakeRule(String fromProtocol, String toProtocol, String expected) {
    Optional<String> refusal =
        VersionPolicy.protocolRefusal("1.0.0", fromProtocol, "1.1.0", toProtocol);
    if (expected.equals("compatible")) {
      assertThat(refusal).isEmpty();
    } else {
      assertThat(refusal).get().asString().contains(expected).contains("1.0.0").contains("1.1.0");
    }
  }

  @ParameterizedTest(name = "{0} < {1}")
  @CsvSource({
    "1.0.0-alpha, 1.0.0-alpha.1",
    "1.0.0-alpha.1, 1.0.0-alpha.beta",
    "1.0.0-beta.2, 1.0.0-beta.11",
    "1.0.0-rc.1, 1.0.0",
    "1.0.0, 1.0.1",
    "1.9.0, 1.10.0"
  })
  void releasesAreOrderedAsSemverOrdersThem(String lower, String higher) {
    var a = VersionPolicy.Release.parse(lower).orElseThrow();
    var b = VersionPolicy.Release.parse(higher).orElseThrow();
    assertThat(a.compareTo(b)).isNegative();
    assertThat(b.compareTo(a)).isPositive();
  }
}
