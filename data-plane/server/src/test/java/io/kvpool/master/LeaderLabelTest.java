package io.kvpool.master;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.kvpool.testkube.MasterPods;
import io.kvpool.testkube.RealKubeApiServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The leader label through a real kube-apiserver: the pool's master Service selects the pod
 * labelled {@code kvpool.io/role=leader}, so the label must end up on the leader's pod and only
 * there, even after a deposed leader's late patches (in flight when it lost the Lease) undo it.
 */
@ExtendWith(RealKubeApiServer.class)
class LeaderLabelTest {
  private static final String NAMESPACE = "leader-label";
  private static final List<String> PODS = List.of("label-master-0", "label-master-1");
  private static final Duration WAIT = Duration.ofSeconds(90);

  @BeforeAll
  static void createPods(KubernetesClient client) {
    MasterPods.create(client, NAMESPACE, "label-master", PODS.size());
  }

  @Test
  void theLeaderPutsItsLabelBackAfterADeposedLeadersLatePatchesUndidIt(KubernetesClient client)
      throws Exception {
    Leader first = new Leader();
    Leader second = new Leader();
    try (LeaseLeadership a = leadership(PODS.get(0));
        LeaseLeadership b = leadership(PODS.get(1))) {
      a.start(first);
      first.started.get(WAIT.toSeconds(), TimeUnit.SECONDS);
      b.start(second); // a standby: its own checks must leave the leader's label alone
      awaitLabelled(client, List.of(PODS.get(0)));

      // what a deposed leader's late patches do: its own pod labelled, the new leader's unlabelled
      // (written here: the real race cannot be timed from a test; MasterFailoverIT runs it)
      label(client, PODS.get(0), null);
      label(client, PODS.get(1), "leader");
      awaitLabelled(client, List.of(PODS.get(0)));

      // a real handover: the label moves with the leadership, to the other master's pod only
      a.stepDown();
      second.started.get(WAIT.toSeconds(), TimeUnit.SECONDS);
      awaitLabelled(client, List.of(PODS.get(1)));
    }
    awaitLabelled(client, List.of());
  }

  private static LeaseLeadership leadership(String pod) {
    // the labels are checked every lease duration (4 s)
    LeaseElection election =
        new LeaseElection(
            NAMESPACE,
            "label",
            pod,
            PODS,
            Duration.ofSeconds(4),
            Duration.ofSeconds(3),
            Duration.ofMillis(200));
    return new LeaseLeadership(
        election, new LeaderIdentity(pod, pod + ":1", pod + ":2"), RealKubeApiServer.newClient());
  }

  private static void label(KubernetesClient client, String pod, String value) {
    client
        .pods()
        .inNamespace(NAMESPACE)
        .withName(pod)
        .patch(
            PatchContext.of(PatchType.JSON_MERGE),
            "{\"metadata\":{\"labels\":{\"kvpool.io/role\":"
                + (value == null ? "null" : "\"" + value + "\"")
                + "}}}");
  }

  private static List<String> labelled(KubernetesClient client) {
    List<String> out = new ArrayList<>();
    for (Pod p : client.pods().inNamespace(NAMESPACE).list().getItems()) {
      var labels = p.getMetadata().getLabels();
      if (labels != null && "leader".equals(labels.get("kvpool.io/role"))) {
        out.add(p.getMetadata().getName());
      }
    }
    return out;
  }

  private static void awaitLabelled(KubernetesClient client, List<String> expected)
      throws InterruptedException {
    long deadline = System.nanoTime() + WAIT.toNanos();
    List<String> seen = labelled(client);
    while (!seen.equals(expected) && System.nanoTime() < deadline) {
      Thread.sleep(100);
      seen = labelled(client);
    }
    assertThat(seen).as("the pods labelled leader").isEqualTo(expected);
  }

  /** A master that is told when it leads; it serves no storage nodes. */
  private static final class Leader implements Leadership.Listener {
    final CompletableFuture<Set<String>> started = new CompletableFuture<>();

    @Override
    public void startedLeading(Set<String> previousNodes) {
      started.complete(previousNodes);
    }

    @Override
    public Set<String> servedNodes() {
      return Set.of();
    }

    @Override
    public void stoppedLeading() {}

    @Override
    public void newLeader(String leaderIdentity) {}
  }
}
