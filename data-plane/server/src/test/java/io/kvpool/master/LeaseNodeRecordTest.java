package io.kvpool.master;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.kvpool.testkube.RealKubeApiServer;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The record of storage nodes on the leader Lease, through a real kube-apiserver: two masters'
 * leaderships, each with its own client like two pods; the leader records the nodes it serves while
 * renewing, and the master that takes the Lease over starts leading with that record.
 */
@ExtendWith(RealKubeApiServer.class)
class LeaseNodeRecordTest {
  private static final String NAMESPACE = "lease-node-record";
  private static final Duration WAIT = Duration.ofSeconds(60);

  @BeforeAll
  static void createNamespace(KubernetesClient client) {
    client
        .resource(
            new NamespaceBuilder().withNewMetadata().withName(NAMESPACE).endMetadata().build())
        .serverSideApply();
  }

  @Test
  void theNextLeaderStartsWithTheNodesThePreviousLeaderServed(KubernetesClient client)
      throws Exception {
    String lease = "record";
    Candidate first = new Candidate("first", Set.of("storage-0", "storage-1", "storage-2"));
    Candidate second = new Candidate("second", Set.of("storage-9"));
    try (LeaseLeadership a = first.leadership(lease);
        LeaseLeadership b = second.leadership(lease)) {
      a.start(first);
      assertThat(first.started.get(WAIT.toSeconds(), TimeUnit.SECONDS))
          .as("the pool's first leader: no record")
          .isEmpty();
      b.start(second);
      String recorded = awaitRecord(client, lease, PoolLeaseLock.encode(first.served));
      assertThat(PoolLeaseLock.decode(recorded))
          .containsExactlyInAnyOrder("storage-0", "storage-1", "storage-2");

      a.stepDown();
      assertThat(second.started.get(WAIT.toSeconds(), TimeUnit.SECONDS))
          .containsExactlyInAnyOrder("storage-0", "storage-1", "storage-2");
      awaitRecord(client, lease, PoolLeaseLock.encode(second.served));
    }
  }

  @Test
  void anUnreadableRecordIsNoRecord() {
    assertThat(PoolLeaseLock.decode("storage-0,storage-1")).isEmpty();
    assertThat(PoolLeaseLock.decode("{\"a\":1}")).isEmpty();
    assertThat(PoolLeaseLock.decode(null)).isEmpty();
    assertThat(PoolLeaseLock.decode(PoolLeaseLock.encode(Set.of("b", "a"))))
        .containsExactlyInAnyOrder("a", "b");
  }

  /** Waits until the Lease's record reads {@code expected}; returns it. */
  private static String awaitRecord(KubernetesClient client, String lease, String expected)
      throws InterruptedException {
    long deadline = System.nanoTime() + WAIT.toNanos();
    String seen = null;
    while (System.nanoTime() < deadline) {
      Lease l = client.leases().inNamespace(NAMESPACE).withName(lease).get();
      Map<String, String> annotations = l == null ? null : l.getMetadata().getAnnotations();
      seen = annotations == null ? null : annotations.get(PoolLeaseLock.STORAGE_NODES);
      if (expected.equals(seen)) {
        return seen;
      }
      Thread.sleep(100);
    }
    throw new AssertionError("the Lease never recorded " + expected + "; last seen: " + seen);
  }

  /**
   * A master's side of leadership: what it was told when it started leading, and the nodes it
   * serves then.
   */
  private static final class Candidate implements Leadership.Listener {
    final String name;
    final Set<String> served;
    final CompletableFuture<Set<String>> started = new CompletableFuture<>();
    private volatile boolean leading;

    Candidate(String name, Set<String> served) {
      this.name = name;
      this.served = served;
    }

    LeaseLeadership leadership(String lease) {
      // a long lease: a master that stepped down campaigns again only after it, long after the
      // other took over
      LeaseElection election =
          new LeaseElection(
              NAMESPACE,
              lease,
              "",
              List.of(),
              Duration.ofSeconds(20),
              Duration.ofSeconds(15),
              Duration.ofMillis(200));
      return new LeaseLeadership(
          election,
          new LeaderIdentity(name, name + ":1", name + ":2"),
          RealKubeApiServer.newClient());
    }

    @Override
    public void startedLeading(Set<String> previousNodes) {
      leading = true;
      started.complete(previousNodes);
    }

    @Override
    public Set<String> servedNodes() {
      return leading ? served : null;
    }

    @Override
    public void stoppedLeading() {
      leading = false;
    }

    @Override
    public void newLeader(String leaderIdentity) {
      // which master leads is what the elector's own tests check
    }
  }
}
