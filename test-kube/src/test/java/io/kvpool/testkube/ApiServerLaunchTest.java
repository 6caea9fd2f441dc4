package io.kvpool.testkube;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.client.KubernetesClient;
import java.nio.file.Files;
import java.time.Duration;
import java.time.LocalTime;
import java.time.ZoneOffset;
import java.util.List;
import java.util.SimpleTimeZone;
import java.util.TimeZone;
import org.junit.jupiter.api.Test;

/**
 * {@link ApiServerLaunch} with real binaries: an attempt whose kube-apiserver cannot listen (as
 * when another program took its port) is given up as soon as the server exits, its output is kept,
 * and the next attempt starts a server that serves; when every attempt fails, the error carries
 * each attempt's output.
 */
class ApiServerLaunchTest {
  /**
   * An address of TEST-NET-1 (RFC 5737), never this machine's: kube-apiserver cannot listen on it
   * and exits.
   */
  private static final List<String> CANNOT_LISTEN = List.of("--bind-address", "192.0.2.1");

  private static KubeBinaries binaries() {
    KubeBinaries binaries = KubeBinaries.pinned(RepositoryRoot.find());
    binaries.requireUsable();
    return binaries;
  }

  @Test
  void anAttemptWhoseServerExitsIsRetriedWithNewPortsAndItsOutputKept() {
    ApiServerLaunch.Launched launched =
        ApiServerLaunch.start(binaries(), 2, attempt -> attempt == 1 ? CANNOT_LISTEN : List.of());
    try (KubernetesClient client =
        RunningApiServer.newClient(launched.server().getKubeConfigYaml())) {
      assertThat(launched.failures()).hasSize(1);
      ApiServerLaunch.FailedAttempt failed = launched.failures().get(0);
      assertThat(failed.attempt()).isEqualTo(1);
      assertThat(failed.reason()).as("why attempt 1 failed").contains("ended during the start");
      assertThat(failed.output())
          .as("kube-apiserver's own output of attempt 1")
          .contains("----- kube-apiserver output")
          .contains("failed to listen on 192.0.2.1");
      assertThat(client.namespaces().withName("default").get())
          .as("the default namespace of attempt 2's server")
          .isNotNull();
    } finally {
      launched.server().stop();
      ApiServerLaunch.deleteTree(launched.workDir());
    }
    assertThat(Files.exists(launched.workDir())).isFalse();
  }

  /**
   * A start two minutes and 55 seconds before midnight, local time: kube-api-test's readiness
   * waits, timed with {@link LocalTime}, would wrap their deadlines past midnight and fail at their
   * first unready poll (as every start of a CI run did at 23:57 UTC). The JVM's zone is shifted so
   * that it is that time now.
   */
  @Test
  void aStartJustBeforeMidnightServes() {
    TimeZone zone = TimeZone.getDefault();
    LocalTime target = LocalTime.of(23, 57, 5);
    try {
      TimeZone.setDefault(zoneWhereItIsNow(target));
      assertThat(LocalTime.now()).isBetween(target, target.plusSeconds(5));
      ApiServerLaunch.Launched launched =
          ApiServerLaunch.start(binaries(), 1, attempt -> List.of());
      try (KubernetesClient client =
          RunningApiServer.newClient(launched.server().getKubeConfigYaml())) {
        assertThat(client.namespaces().withName("default").get()).isNotNull();
      } finally {
        launched.server().stop();
        ApiServerLaunch.deleteTree(launched.workDir());
      }
    } finally {
      TimeZone.setDefault(zone);
    }
  }

  /** A zone whose clock shows {@code time} now, to the second. */
  private static TimeZone zoneWhereItIsNow(LocalTime time) {
    int day = (int) Duration.ofDays(1).toSeconds();
    int offset =
        Math.floorMod(time.toSecondOfDay() - LocalTime.now(ZoneOffset.UTC).toSecondOfDay(), day);
    ZoneOffset zone = ZoneOffset.ofTotalSeconds(offset > day / 2 ? offset - day : offset);
    // TimeZone.getTimeZone(ZoneId) falls back to GMT for offsets with seconds; this zone's id is
    // the offset's own, which ZoneId.systemDefault() reads back
    return new SimpleTimeZone(zone.getTotalSeconds() * 1000, zone.getId());
  }

  @Test
  void whenEveryAttemptFailsTheErrorCarriesEachAttemptsOutput() {
    assertThatThrownBy(() -> ApiServerLaunch.start(binaries(), 2, attempt -> CANNOT_LISTEN))
        .isInstanceOf(KubeTestSetupException.class)
        .hasMessageContaining("did not start in 2 attempts")
        .hasMessageContaining("--- attempt 1: ")
        .hasMessageContaining("--- attempt 2: ")
        .hasMessageContaining("ended during the start")
        .hasMessageContaining("failed to listen on 192.0.2.1");
  }
}
