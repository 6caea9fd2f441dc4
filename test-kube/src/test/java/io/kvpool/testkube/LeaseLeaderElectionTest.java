package io.kvpool.testkube;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderCallbacks;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderElectionConfigBuilder;
import io.fabric8.kubernetes.client.extended.leaderelection.resourcelock.LeaseLock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Two contenders, each with its own client like two pods, run Fabric8 leader election on one {@code
 * coordination.k8s.io} Lease of the real API server: the guarantee the data plane's leader election
 * relies on.
 */
@ExtendWith(RealKubeApiServer.class)
class LeaseLeaderElectionTest {

  private static final String NAMESPACE = "leader-election";
  private static final String LEASE_NAME = "pool-leader";
  private static final Duration LEASE_DURATION = Duration.ofSeconds(3);
  private static final Duration RENEW_DEADLINE = Duration.ofSeconds(2);
  private static final Duration RETRY_PERIOD = Duration.ofMillis(500);
  // Fabric8 waits retryPeriod * (1 + up to 1.2 jitter) between attempts.
  private static final Duration LONGEST_RETRY_WAIT = RETRY_PERIOD.multipliedBy(22).dividedBy(10);
  // The bound is about correctness (takeover happens once the lease expired), not speed: a generous
  // allowance covers API round trips and scheduling on a loaded 2-core machine.
  private static final Duration SCHEDULING_ALLOWANCE = Duration.ofSeconds(20);
  private static final Duration TAKEOVER_BOUND =
      LEASE_DURATION.plus(LONGEST_RETRY_WAIT).plus(SCHEDULING_ALLOWANCE);

  @BeforeAll
  static void createNamespace(KubernetesClient client) {
    client
        .resource(
            new NamespaceBuilder().withNewMetadata().withName(NAMESPACE).endMetadata().build())
        .serverSideApply();
  }

  @Test
  void exactlyOneLeadsAndTheOtherTakesOverWhenTheLeaderStopsRenewing(KubernetesClient client)
      throws Exception {
    try (Contender first = new Contender("contender-a");
        Contender second = new Contender("contender-b")) {
      first.start();
      second.start();

      Contender leader = awaitSingleLeader(List.of(first, second));
      Contender follower = leader == first ? second : first;
      assertExactlyOneLeaderDuring(List.of(first, second), LEASE_DURATION.plus(RETRY_PERIOD));
      assertThat(leaseHolder(client)).isEqualTo(leader.identity);

      long stoppedAt = System.nanoTime();
      leader.stopRenewing();
      long takeoverAt = follower.awaitLeadership(Duration.ofSeconds(30));
      Duration takeover = Duration.ofNanos(takeoverAt - stoppedAt);
      System.out.printf(
          "leader-election takeoverMillis=%d leaseMillis=%d retryMillis=%d boundMillis=%d%n",
          takeover.toMillis(),
          LEASE_DURATION.toMillis(),
          RETRY_PERIOD.toMillis(),
          TAKEOVER_BOUND.toMillis());

      assertThat(leader.isLeading()).as("stopped leader still believes it leads").isFalse();
      assertThat(leaseHolder(client)).isEqualTo(follower.identity);
      assertThat(takeover)
          .as("takeover after the leader stopped renewing")
          .isLessThanOrEqualTo(TAKEOVER_BOUND);
    }
  }

  private static Contender awaitSingleLeader(List<Contender> contenders)
      throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (System.nanoTime() < deadline) {
      List<Contender> leaders = contenders.stream().filter(Contender::isLeading).toList();
      assertThat(leaders).as("contenders leading at the same time").hasSizeLessThanOrEqualTo(1);
      if (leaders.size() == 1) {
        return leaders.get(0);
      }
      Thread.sleep(50);
    }
    throw new AssertionError("no contender became leader within 30s");
  }

  private static void assertExactlyOneLeaderDuring(List<Contender> contenders, Duration period)
      throws InterruptedException {
    long end = System.nanoTime() + period.toNanos();
    while (System.nanoTime() < end) {
      assertThat(contenders.stream().filter(Contender::isLeading).count())
          .as("contenders leading")
          .isEqualTo(1);
      Thread.sleep(50);
    }
  }

  private static String leaseHolder(KubernetesClient client) {
    Lease lease = client.leases().inNamespace(NAMESPACE).withName(LEASE_NAME).get();
    return lease.getSpec().getHolderIdentity();
  }

  /** One participant in the election with its own client, as a separate pod would have. */
  private static final class Contender implements AutoCloseable {
    private final String identity;
    private final KubernetesClient client = RealKubeApiServer.newClient();
    private final AtomicBoolean leading = new AtomicBoolean();
    private final CompletableFuture<Long> becameLeaderAt = new CompletableFuture<>();
    private CompletableFuture<?> election;

    Contender(String identity) {
      this.identity = identity;
    }

    void start() {
      election =
          client
              .leaderElector()
              .withConfig(
                  new LeaderElectionConfigBuilder()
                      .withName(LEASE_NAME)
                      .withLock(new LeaseLock(NAMESPACE, LEASE_NAME, identity))
                      .withLeaseDuration(LEASE_DURATION)
                      .withRenewDeadline(RENEW_DEADLINE)
                      .withRetryPeriod(RETRY_PERIOD)
                      // Stopping must not hand the lease over: the follower has to wait for it to
                      // expire.
                      .withReleaseOnCancel(false)
                      .withLeaderCallbacks(
                          new LeaderCallbacks(
                              this::startedLeading, () -> leading.set(false), newLeader -> {}))
                      .build())
              .build()
              .start();
    }

    private void startedLeading() {
      leading.set(true);
      becameLeaderAt.complete(System.nanoTime());
    }

    boolean isLeading() {
      return leading.get();
    }

    /**
     * Stops taking part without releasing the lease, like a leader pod that hangs or loses its
     * network.
     */
    void stopRenewing() throws InterruptedException {
      election.cancel(true);
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
      while (leading.get() && System.nanoTime() < deadline) {
        Thread.sleep(10);
      }
    }

    long awaitLeadership(Duration timeout) throws Exception {
      return becameLeaderAt.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    }

    @Override
    public void close() {
      if (election != null) {
        election.cancel(true);
      }
      client.close();
    }
  }
}
