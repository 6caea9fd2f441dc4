package io.kvpool.bench.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.kvpool.admin.MasterStatus;
import io.kvpool.bench.StoredObjects;
import io.kvpool.cli.AdminApi;
import io.kvpool.cli.LocalPool;
import io.kvpool.cli.LocalPoolConfig;
import io.kvpool.client.KvPoolClient;
import io.kvpool.it.Eventually;
import io.kvpool.it.LocalPoolExtension;
import io.kvpool.it.TestHosts;
import io.kvpool.testkube.RealKubeApiServer;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Storage nodes late for a new leader, with real processes: three masters on a Lease of a real
 * kube-apiserver, three storage nodes. Two nodes are suspended (SIGSTOP: a node stuck on a deleted
 * pod's address, say) and the leader is killed -9; the new leader hears from one node only.
 * Registrations then go quiet for longer than the quiet period, which used to end recovery and
 * answer NOT_FOUND for every object on the two late nodes only. The leader recorded its nodes on
 * the Lease, so the new one keeps recovering until they are back, and every object reads back.
 */
@ExtendWith(RealKubeApiServer.class)
class LateStorageNodesIT {
  private static final String NAMESPACE = "late-nodes";
  private static final String LEASE = "late-nodes-leader";
  private static final Duration WAIT = Duration.ofMinutes(5);

  /** The recovery quiet period the masters run with (the default). */
  private static final Duration QUIET = Duration.ofSeconds(3);

  @RegisterExtension
  final LocalPoolExtension pool =
      new LocalPoolExtension(
          b ->
              b.masters(
                      3,
                      new LocalPoolConfig.Election(
                          ElectionKubeconfig.prepare(NAMESPACE, "late-master", LEASE),
                          NAMESPACE,
                          LEASE,
                          "4s",
                          "late-master"))
                  .hosts("0.0.0.0", TestHosts.routableIpv4())
                  // a long node TTL: recovery's last resort (one node TTL) stays far away while the
                  // two nodes are held back
                  .storageNodes(3)
                  .memoryPerNode("64MiB")
                  .nodeTtl("60s")
                  .leaseTtl("2s")
                  .heartbeat("300ms"));

  @Test
  void aNewLeaderWaitsForTheNodesThePreviousOneRecordedInsteadOfAnsweringNotFound()
      throws Exception {
    KvPoolClient client = pool.newClient("it-late-nodes");
    StoredObjects objects = StoredObjects.fill(client, "late/", 600, 2048, 2, 7);
    LocalPool.MasterProcess old = pool.pool().awaitServingLeader(WAIT);
    Eventually.await(
        WAIT,
        "the leader to record its three storage nodes on the Lease",
        () ->
            recorded().contains("node-1")
                && recorded().contains("node-2")
                && recorded().contains("node-3"),
        LateStorageNodesIT::recorded);

    pool.pool().storageNode("node-2").process().suspend();
    pool.pool().storageNode("node-3").process().suspend();
    try {
      old.process().kill();
      AtomicReference<LocalPool.MasterProcess> next = new AtomicReference<>();
      Eventually.await(
          WAIT,
          "a new leader with node-1 registered",
          () -> {
            for (LocalPool.MasterProcess m : pool.pool().masters()) {
              if (m.index() != old.index() && m.process().isAlive()) {
                MasterStatus s = status(m);
                if (s != null && s.leading() && s.aliveNodes() == 1) {
                  next.set(m);
                  return true;
                }
              }
            }
            return false;
          },
          () -> "no such leader yet");
      // not synchronisation: the time in which registrations going quiet used to end recovery
      Thread.sleep(QUIET.multipliedBy(2).toMillis());
      MasterStatus waiting = status(next.get());
      assertThat(waiting.state())
          .as("node-2 and node-3 were recorded: the new leader still waits for them (%s)", waiting)
          .isEqualTo("RECOVERING");
      assertThat(waiting.recovery().awaitedNodes())
          .as("named in the status")
          .containsExactly("node-2", "node-3");
    } finally {
      pool.pool().storageNode("node-2").process().resume();
      pool.pool().storageNode("node-3").process().resume();
    }
    LocalPool.MasterProcess serving = pool.pool().awaitServingLeader(WAIT);
    assertThat(status(serving).aliveNodes())
        .as("recovery ended with every recorded node back")
        .isEqualTo(3);
    StoredObjects.ReadBack read =
        objects.readAll(pool.newClient("it-late-nodes-reader"), System.nanoTime(), Duration.ZERO);
    assertThat(read.unreadable()).as("objects reported missing").isEmpty();
    assertThat(read.corrupt()).isEmpty();
    assertThat(read.verified()).isEqualTo(objects.size());
  }

  /** The storage nodes recorded on the Lease (its annotation as it stands; empty when none). */
  private static String recorded() {
    Lease lease = RealKubeApiServer.client().leases().inNamespace(NAMESPACE).withName(LEASE).get();
    Map<String, String> annotations = lease == null ? null : lease.getMetadata().getAnnotations();
    return annotations == null ? "" : annotations.getOrDefault("kvpool.io/storage-nodes", "");
  }

  private static MasterStatus status(LocalPool.MasterProcess m) {
    try {
      return new AdminApi(m.adminAddress()).masterStatus();
    } catch (AdminApi.AdminApiException e) {
      return null; // starting, or killed a moment ago
    }
  }
}
