package io.kvpool.bench.compare;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A peer that loses values is run again once and then left out of the figures, while a target that
 * is not a peer stops the suite. The loss is real: a memcached with room for 32 MiB of items is
 * given 128 values of 1 MiB, so it evicts most of them before the get phase reads them back.
 */
class TargetRunsTest {
  private static final Workload ONE_MIB = Workload.single(1 << 20, 1);
  private static final Phase PHASE = new Phase(128L << 20, 30.0, 0.2);

  @TempDir static Path logs;
  private static Path memcached;

  @BeforeAll
  static void findMemcached() {
    memcached = CompareSuite.which("memcached");
    assertThat(memcached).as("memcached on PATH (scripts/test-all.sh installs it)").isNotNull();
  }

  @Test
  void aPeerThatLosesValuesIsRunAgainOnceThenLeftOut() throws Exception {
    ByteArrayOutputStream printed = new ByteArrayOutputStream();
    TargetRuns runs = new TargetRuns(PHASE, new PrintStream(printed, true, StandardCharsets.UTF_8));
    try (PeerServer small = PeerServer.memcached(memcached, logs.resolve("small.log"), 32);
        StoreTarget peer = target("memcached", Target.Family.PEER, small)) {
      assertThat(runs.run(peer, ONE_MIB, 1)).isEmpty();
    }
    assertThat(runs.peerFailures()).hasSize(2);
    assertThat(runs.peerFailures().get(0))
        .startsWith("memcached in 1MiB x 1, round 1: ")
        .endsWith("(run again)");
    assertThat(runs.peerFailures().get(1)).contains("memcached lost key").endsWith("left out)");
    assertThat(printed.toString(StandardCharsets.UTF_8))
        .contains("running it again")
        .contains("left out");
  }

  @Test
  void aPeerThatKeepsItsValuesIsMeasuredOnce() throws Exception {
    TargetRuns runs =
        new TargetRuns(
            new Phase(16L << 20, 30.0, 0.2), new PrintStream(new ByteArrayOutputStream()));
    try (PeerServer roomy = PeerServer.memcached(memcached, logs.resolve("roomy.log"), 256);
        StoreTarget peer = target("memcached", Target.Family.PEER, roomy)) {
      List<Measurement> measured = runs.run(peer, ONE_MIB, 1);
      assertThat(measured).extracting(Measurement::op).containsExactly("put", "get");
      assertThat(measured).allSatisfy(m -> assertThat(m.ops()).isPositive());
    }
    assertThat(runs.peerFailures()).isEmpty();
  }

  @Test
  void aTargetThatIsNotAPeerStopsTheSuiteAtItsFirstFailure() throws Exception {
    TargetRuns runs = new TargetRuns(PHASE, new PrintStream(new ByteArrayOutputStream()));
    try (PeerServer small = PeerServer.memcached(memcached, logs.resolve("limit.log"), 32);
        StoreTarget notAPeer = target("memcached-as-kvpool", Target.Family.KVPOOL, small)) {
      assertThatThrownBy(() -> runs.run(notAPeer, ONE_MIB, 1))
          .hasMessageContaining("memcached lost key");
    }
    assertThat(runs.peerFailures()).isEmpty();
  }

  private static StoreTarget target(String name, Target.Family family, PeerServer server)
      throws Exception {
    return new StoreTarget(
        name,
        family,
        "memcached for the test",
        new MemcachedStore(server.address()),
        Map.of("memcached", List.of(server.handle())),
        true);
  }
}
