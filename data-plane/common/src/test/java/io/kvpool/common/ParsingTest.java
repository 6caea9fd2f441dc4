package io.kvpool.common;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class ParsingTest {
  @Test
  void sizesAcceptBinaryUnits() {
    assertThat(Sizes.parse("123")).isEqualTo(123);
    assertThat(Sizes.parse("64KiB")).isEqualTo(64 << 10);
    assertThat(Sizes.parse("1MiB")).isEqualTo(1 << 20);
    assertThat(Sizes.parse("4GiB")).isEqualTo(4L << 30);
    assertThat(Sizes.parse("256mb")).isEqualTo(256L << 20);
    assertThatThrownBy(() -> Sizes.parse("12 parsecs")).hasMessageContaining("64KiB");
    assertThatThrownBy(() -> Sizes.parse("99999999999TiB")).hasMessageContaining("too large");
  }

  @Test
  void durationsAcceptMsSecondsMinutes() {
    assertThat(Durations.parse("500ms")).isEqualTo(Duration.ofMillis(500));
    assertThat(Durations.parse("5s")).isEqualTo(Duration.ofSeconds(5));
    assertThat(Durations.parse("2m")).isEqualTo(Duration.ofMinutes(2));
    assertThatThrownBy(() -> Durations.parse("5")).hasMessageContaining("500ms");
  }

  @Test
  void hostPortRoundTrips() {
    assertThat(HostPort.parse("127.0.0.1:7000")).isEqualTo(new HostPort("127.0.0.1", 7000));
    assertThatThrownBy(() -> HostPort.parse("localhost")).hasMessageContaining("HOST:PORT");
  }

  @Test
  void versionRuleNeedsSameMajorAndMinorsAtMostOneApart() {
    VersionInfo v10 = new VersionInfo("0.1.0", 1, 0);
    assertThat(v10.incompatibilityWith(new VersionInfo("0.2.0", 1, 1))).isNull();
    assertThat(v10.incompatibilityWith(new VersionInfo("0.3.0", 1, 2)))
        .contains("1.0")
        .contains("1.2");
    assertThat(v10.incompatibilityWith(new VersionInfo("1.0.0", 2, 0)))
        .contains("0.1.0")
        .contains("1.0")
        .contains("1.0.0")
        .contains("2.0");
    assertThat(new VersionInfo("0.1.0-rc.1", 1, 0).release()).isEqualTo("0.1.0-rc.1");
    assertThatThrownBy(() -> new VersionInfo("1.0", 1, 0)).hasMessageContaining("semver");
  }
}
