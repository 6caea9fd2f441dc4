package io.kvpool.e2e.cluster;

import java.nio.file.Path;
import java.util.List;

/**
 * A Kubernetes cluster the suite runs on; closing it stops what the suite started (nothing for a
 * given cluster).
 */
public interface E2eCluster extends AutoCloseable {
  /** What it is, for the log (e.g. "local cluster of e2e/cluster/up.sh"). */
  String description();

  Path kubeconfig();

  /**
   * Makes image tarballs available to the cluster's runtime, so pods start them without a registry.
   */
  void loadImages(List<Path> tarballs);

  /**
   * A node folder on tmpfs for storage pods' memory files (spec.storage.warmRestart.hostPath of the
   * upgrade scenarios): {@code /dev/shm} is the host's tmpfs here.
   */
  default String memoryFolder() {
    return "/dev/shm/kvpool-e2e";
  }

  /** A node folder on disk for storage pods' disk tiers (spec.storage.disk.hostPath). */
  default String diskFolder() {
    return "/var/lib/kvpool-e2e/disk";
  }

  @Override
  void close();

  /** Starts (or connects to) the cluster {@link ClusterChoice} picked. */
  static E2eCluster open(Path repoRoot) {
    ClusterChoice.Decision decision = ClusterChoice.decide(ClusterProbe.findings(repoRoot));
    E2eLog.info("cluster source: " + decision.kind() + " - " + decision.reason());
    return switch (decision.kind()) {
      case KUBECONFIG -> new GivenCluster(Path.of(decision.kubeconfig()));
      case K3S -> K3sCluster.start(ClusterProbe.k3sImage());
      case LOCAL -> LocalCluster.start(repoRoot);
    };
  }
}
