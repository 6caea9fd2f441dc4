package io.kvpool.bench.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.Pod;
import io.kvpool.admin.MasterStatus;
import io.kvpool.bench.LeaderFailover;
import io.kvpool.bench.StoredObjects;
import io.kvpool.cli.AdminApi;
import io.kvpool.cli.LocalPool;
import io.kvpool.cli.LocalPoolConfig;
import io.kvpool.client.KvPoolClient;
import io.kvpool.it.Eventually;
import io.kvpool.it.LocalPoolExtension;
import io.kvpool.it.ReplicaCounts;
import io.kvpool.it.TestHosts;
import io.kvpool.it.Values;
import io.kvpool.testkube.RealKubeApiServer;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Master high availability with real processes: three masters elect a leader on a Lease of a real
 * kube-apiserver and label their pod objects, three storage nodes bind the wildcard and advertise a
 * routable address. kill -9 of the leader (also together with a storage node), step-down: a new
 * leader serves (time printed, not asserted), every committed object reads back byte-exact with two
 * replicas, puts racing the failover are never half-applied, and exactly one pod carries the leader
 * label whenever it is checked.
 */
@ExtendWith(RealKubeApiServer.class)
class MasterFailoverIT {
  private static final String NAMESPACE = "failover";
  private static final String LEASE = "failover-leader";
  private static final Duration LEASE_DURATION = Duration.ofSeconds(4);
  // generous: a loaded 2-core machine can miss heartbeats and slow repairs (deadlines, never timing
  // assertions)
  private static final Duration WAIT = Duration.ofMinutes(5);
  private static final int OBJECTS = 10_000;

  @RegisterExtension
  final LocalPoolExtension pool =
      new LocalPoolExtension(
          b ->
              b.masters(
                      3,
                      new LocalPoolConfig.Election(
                          ElectionKubeconfig.prepare(NAMESPACE, "ha-master", LEASE),
                          NAMESPACE,
                          LEASE,
                          LEASE_DURATION.toSeconds() + "s",
                          "ha-master"))
                  .hosts("0.0.0.0", TestHosts.routableIpv4())
                  .storageNodes(3)
                  .memoryPerNode("128MiB")
                  .nodeTtl("3s")
                  .leaseTtl("2s")
                  .heartbeat("300ms"));

  /** The pods carrying kvpool.io/role=leader now: exactly one is allowed. */
  private static List<String> labelledLeaders() {
    List<String> out = new ArrayList<>();
    for (Pod p : RealKubeApiServer.client().pods().inNamespace(NAMESPACE).list().getItems()) {
      if ("leader".equals(p.getMetadata().getLabels().get("kvpool.io/role"))) {
        out.add(p.getMetadata().getName());
      }
    }
    return out;
  }

  private LocalPool.MasterProcess leader() {
    return pool.pool().awaitServingLeader(WAIT);
  }

  private static StoredObjects fill(KvPoolClient client) {
    return StoredObjects.fill(client, "ha/", OBJECTS, 2048, 2, 42);
  }

  /**
   * Waits until the leader serves with {@code nodes} storage nodes ALIVE and nothing
   * under-replicated: a node that missed heartbeats on a loaded machine is declared dead and comes
   * back, and objects whose one replica it holds are unavailable (not lost) meanwhile.
   */
  private void awaitSettled(int nodes) {
    Eventually.await(
        WAIT,
        nodes + " storage nodes alive and nothing under-replicated",
        () -> {
          try {
            MasterStatus s = new AdminApi(leader().adminAddress()).masterStatus();
            return "SERVING".equals(s.state())
                && s.aliveNodes() == nodes
                && s.counters().underReplicated() == 0;
          } catch (AdminApi.AdminApiException e) {
            return false;
          }
        },
        () -> "settling");
  }

  private void assertEverythingReadable(KvPoolClient client, StoredObjects objects) {
    Map<String, Integer> counts =
        ReplicaCounts.query(pool.pool().leaderAddress(), "", objects.keys());
    assertThat(counts.values().stream().filter(c -> c == 2).count())
        .as("objects with 2 replicas")
        .isEqualTo(objects.size());
    StoredObjects.ReadBack read = objects.readAll(client, System.nanoTime(), Duration.ZERO);
    assertThat(read.unreadable()).as("objects not readable").isEmpty();
    assertThat(read.corrupt()).as("objects read back with other bytes").isEmpty();
    assertThat(read.verified()).isEqualTo(objects.size());
  }

  /** Puts one small value after another until stopped; what each attempt returned. */
  private static final class Writer implements Runnable {
    final KvPoolClient client;
    final Map<String, Long> attempted = new ConcurrentHashMap<>();
    final Map<String, Boolean> succeeded = new ConcurrentHashMap<>();
    final AtomicBoolean stop = new AtomicBoolean();
    final Thread thread = new Thread(this, "failover-writer");

    Writer(KvPoolClient client) {
      this.client = client;
    }

    @Override
    public void run() {
      SplittableRandom random = new SplittableRandom(7);
      for (int i = 0; !stop.get(); i++) {
        ByteBuffer v = Values.random(4096, random);
        String key = "race/" + i;
        attempted.put(key, Values.crc(v));
        try {
          client.put(key, v, 2);
          succeeded.put(key, true);
        } catch (RuntimeException e) {
          succeeded.put(key, false);
        }
      }
    }

    void check(KvPoolClient reader) {
      attempted.forEach(
          (key, crc) -> {
            if (succeeded.getOrDefault(key, false)) {
              assertThat(Values.crc(reader.get(key))).as("acknowledged put " + key).isEqualTo(crc);
            } else if (reader.exists(key)) {
              assertThat(Values.crc(reader.get(key)))
                  .as("a failed put is absent or whole: " + key)
                  .isEqualTo(crc);
            }
          });
    }
  }

  /**
   * Kills the leader (and optionally a storage node), measures kill → first put and kill → every
   * object read back, and restarts the killed master as a standby.
   */
  private LeaderFailover.Outcome killLeader(
      KvPoolClient client, StoredObjects objects, boolean alsoANode) {
    LocalPool.MasterProcess old = leader();
    Eventually.await(
        WAIT,
        "the serving leader's pod, and only it, labelled (the label follows the leadership)",
        () -> labelledLeaders().equals(List.of("ha-master-" + old.index())),
        () -> labelledLeaders().toString());
    LeaderFailover.Outcome outcome =
        LeaderFailover.killLeader(
            pool.pool(),
            client,
            pool.newClient("it-failover-reader"),
            objects,
            1,
            WAIT,
            () -> {
              if (alsoANode) {
                pool.pool().storageNode("node-3").process().kill();
              }
            });
    assertThat(outcome.newLeader()).isNotEqualTo(old.index());
    Eventually.await(
        WAIT,
        "the new leader's pod, and only it, labelled",
        () -> labelledLeaders().equals(List.of("ha-master-" + outcome.newLeader())),
        () -> labelledLeaders().toString());
    System.out.printf(
        "failover%s: leader kill -9 -> first put %d ms, every object read back %d ms (lease %d ms)%n",
        alsoANode ? " with a storage node" : "",
        outcome.toFirstPut().toMillis(),
        outcome.readBack().elapsed().toMillis(),
        LEASE_DURATION.toMillis());
    assertThat(outcome.readBack().complete())
        .as("every object read back intact: %s", outcome.readBack())
        .isTrue();
    // times printed, not asserted: tests never fail on timing (./kvpool bench failover measures
    // them)
    pool.pool().restartMaster(old.index()); // back as a standby
    return outcome;
  }

  @Test
  void killingTheLeaderLosesNoCommittedObjectAndHalfAppliesNoPut() throws Exception {
    KvPoolClient client = pool.newClient("it-failover");
    StoredObjects objects = fill(client);
    JsonNode status = new AdminApi(leader().adminAddress()).status();
    assertThat(status.path("leader").path("pod").asText()).startsWith("ha-master-");
    for (JsonNode n : status.path("nodes")) {
      assertThat(n.path("endpoint").asText())
          .as("advertised, never the wildcard")
          .startsWith(TestHosts.routableIpv4() + ":");
    }

    Writer writer = new Writer(pool.newClient("it-failover-writer"));
    writer.thread.start();
    try {
      killLeader(client, objects, false);
    } finally {
      writer.stop.set(true);
      writer.thread.join(60_000);
    }
    awaitSettled(3);
    assertEverythingReadable(client, objects);
    writer.check(client);
    assertThat(writer.succeeded.values()).as("puts during and after the failover").contains(true);
  }

  @Test
  void leaseRecoveryWithAStorageNodeKilledKeepsEveryObjectWithASurvivingReplica() {
    KvPoolClient client = pool.newClient("it-failover-node");
    StoredObjects objects = fill(client);
    killLeader(client, objects, true);
    awaitSettled(2);
    assertEverythingReadable(client, objects);
  }

  @Test
  void aLeaderStoppedWithSigtermReleasesItsLease() throws Exception {
    KvPoolClient client = pool.newClient("it-sigterm");
    client.put("before-sigterm", Values.random(1024, new SplittableRandom(3)), 2);
    LocalPool.MasterProcess old = leader();
    String holder = leaseHolder();
    assertThat(holder)
        .as("the leader's identity names its pod")
        .startsWith("ha-master-" + old.index() + "|");
    long t0 = System.nanoTime();
    old.process().stop(); // SIGTERM, as the kubelet sends when the leader's pod is deleted
    assertThat(leaseHolder())
        .as("released on the way out, so a standby need not wait for the Lease to expire")
        .isNotEqualTo(holder);
    client.put("after-sigterm", Values.random(1024, new SplittableRandom(4)), 2);
    System.out.printf(
        "SIGTERM of the leader -> first put on the new leader %d ms%n",
        (System.nanoTime() - t0) / 1_000_000);
    assertThat(client.get("before-sigterm"))
        .isEqualTo(Values.random(1024, new SplittableRandom(3)));
    pool.pool().restartMaster(old.index()); // back as a standby
  }

  /** Who holds the election Lease now (empty when released). */
  private static String leaseHolder() {
    var lease = RealKubeApiServer.client().leases().inNamespace(NAMESPACE).withName(LEASE).get();
    String holder =
        lease == null || lease.getSpec() == null ? null : lease.getSpec().getHolderIdentity();
    return holder == null ? "" : holder;
  }

  @Test
  void stepDownHandsOverWithinASecond() throws Exception {
    KvPoolClient client = pool.newClient("it-step-down");
    client.put("before-step-down", Values.random(1024, new SplittableRandom(1)), 2);
    LocalPool.MasterProcess old = leader();
    long t0 = System.nanoTime();
    HttpResponse<String> r =
        HttpClient.newHttpClient()
            .send(
                HttpRequest.newBuilder(URI.create("http://" + old.adminAddress() + "/step-down"))
                    .POST(HttpRequest.BodyPublishers.noBody())
                    .build(),
                HttpResponse.BodyHandlers.ofString());
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    client.put("after-step-down", Values.random(1024, new SplittableRandom(2)), 2);
    long firstPut = (System.nanoTime() - t0) / 1_000_000;
    System.out.printf("step-down -> first put on the new leader %d ms%n", firstPut);
    assertThat(leader().index()).isNotEqualTo(old.index());
    assertThat(client.get("before-step-down"))
        .isEqualTo(Values.random(1024, new SplittableRandom(1)));
    Eventually.await(
        WAIT,
        "one labelled leader",
        () -> labelledLeaders().size() == 1,
        () -> labelledLeaders().toString());
  }
}
