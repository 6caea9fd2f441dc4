package io.kvpool.e2e.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kvpool.e2e.cluster.ClusterChoice.Decision;
import io.kvpool.e2e.cluster.ClusterChoice.Docker;
import io.kvpool.e2e.cluster.ClusterChoice.Findings;
import io.kvpool.e2e.cluster.ClusterChoice.Kind;
import io.kvpool.e2e.cluster.ClusterChoice.Local;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The order in which the suite picks its cluster, from the probe's findings as plain values. */
class ClusterChoiceTest {
  private static final Docker NO_DOCKER = Docker.unreachable("no Docker daemon");
  private static final Docker K3S_READY = new Docker(true, true, true, null);
  private static final Local LOCAL_OK = new Local(true, null);
  private static final Local NOT_ROOT = new Local(false, "it needs root");

  private static Findings findings(
      String e2eKubeconfig, String kubeconfig, Docker docker, Local local) {
    List<String> readable = new java.util.ArrayList<>();
    for (String f : new String[] {e2eKubeconfig, kubeconfig}) {
      if (f != null && f.startsWith("/readable/")) {
        readable.add(f);
      }
    }
    return new Findings(null, e2eKubeconfig, kubeconfig, readable, docker, local);
  }

  @Test
  void theSuitesOwnVariableComesFirst() {
    Decision d =
        ClusterChoice.decide(findings("/readable/e2e", "/readable/dev", K3S_READY, LOCAL_OK));
    assertThat(d.kind()).isEqualTo(Kind.KUBECONFIG);
    assertThat(d.kubeconfig()).isEqualTo("/readable/e2e");
    assertThat(d.reason()).contains(ClusterChoice.KUBECONFIG_ENV);
  }

  @Test
  void kubeconfigComesBeforeK3sAndTheLocalCluster() {
    Decision d = ClusterChoice.decide(findings(null, "/readable/dev", K3S_READY, LOCAL_OK));
    assertThat(d.kind()).isEqualTo(Kind.KUBECONFIG);
    assertThat(d.kubeconfig()).isEqualTo("/readable/dev");
  }

  @Test
  void aKubeconfigThatCannotBeReadIsAnErrorNotASilentFallback() {
    assertThatThrownBy(
            () -> ClusterChoice.decide(findings("/missing/e2e", null, K3S_READY, LOCAL_OK)))
        .hasMessageContaining("/missing/e2e")
        .hasMessageContaining("not a readable file");
  }

  @Test
  void kubeconfigPointingAtDevNullMeansNone() {
    Decision d = ClusterChoice.decide(findings(null, "/dev/null", NO_DOCKER, LOCAL_OK));
    assertThat(d.kind()).isEqualTo(Kind.LOCAL);
  }

  @Test
  void k3sWhereDockerCanRunIt() {
    Decision d = ClusterChoice.decide(findings(null, null, K3S_READY, LOCAL_OK));
    assertThat(d.kind()).isEqualTo(Kind.K3S);
  }

  @Test
  void localClusterWithoutDocker() {
    Decision d = ClusterChoice.decide(findings(null, "", NO_DOCKER, LOCAL_OK));
    assertThat(d.kind()).isEqualTo(Kind.LOCAL);
    assertThat(d.reason()).contains("no K3s container: no Docker daemon");
  }

  @Test
  void localClusterWhenDockerRefusesPrivilegedContainers() {
    Docker rootless = new Docker(true, false, false, "Docker runs rootless");
    Decision d = ClusterChoice.decide(findings(null, null, rootless, LOCAL_OK));
    assertThat(d.kind()).isEqualTo(Kind.LOCAL);
    assertThat(d.reason()).contains("rootless");
  }

  @Test
  void localClusterWhenTheK3sImageCannotBePulled() {
    Docker noImage =
        new Docker(true, true, false, "rancher/k3s is not present and Docker Hub is not reachable");
    Decision d = ClusterChoice.decide(findings(null, null, noImage, LOCAL_OK));
    assertThat(d.kind()).isEqualTo(Kind.LOCAL);
  }

  @Test
  void nothingUsableSaysWhyForEachOption() {
    assertThatThrownBy(() -> ClusterChoice.decide(findings(null, null, NO_DOCKER, NOT_ROOT)))
        .hasMessageContaining("no K3s container: no Docker daemon")
        .hasMessageContaining("no local cluster: it needs root")
        .hasMessageContaining(ClusterChoice.KUBECONFIG_ENV);
  }

  @Test
  void forcingSkipsTheOrderButNotTheChecks() {
    Findings local =
        new Findings("local", null, "/readable/dev", List.of("/readable/dev"), K3S_READY, LOCAL_OK);
    assertThat(ClusterChoice.decide(local).kind()).isEqualTo(Kind.LOCAL);

    Findings k3s = new Findings("K3S", null, null, List.of(), NO_DOCKER, LOCAL_OK);
    assertThatThrownBy(() -> ClusterChoice.decide(k3s)).hasMessageContaining("no Docker daemon");

    Findings unknown = new Findings("kind", null, null, List.of(), NO_DOCKER, LOCAL_OK);
    assertThatThrownBy(() -> ClusterChoice.decide(unknown))
        .hasMessageContaining("none of kubeconfig, k3s, local");
  }
}
