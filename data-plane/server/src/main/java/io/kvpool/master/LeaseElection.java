package io.kvpool.master;

import java.time.Duration;
import java.util.List;

/**
 * Leader election on a {@code coordination.k8s.io} Lease of a reachable API server (in a pod: its
 * service account; elsewhere: the kube config). {@code masterPods} are the pods of all masters of
 * the pool (to move the leader label); empty outside Kubernetes pods (no label to set).
 */
public record LeaseElection(
    String namespace,
    String leaseName,
    String podName,
    List<String> masterPods,
    Duration leaseDuration,
    Duration renewDeadline,
    Duration retryPeriod) {
  public LeaseElection {
    masterPods = List.copyOf(masterPods);
    if (renewDeadline.compareTo(leaseDuration) >= 0) {
      throw new IllegalArgumentException(
          "renew deadline " + renewDeadline + " must be shorter than the lease " + leaseDuration);
    }
  }

  /** Kubernetes' own defaults for controllers are 15 s / 10 s / 2 s; kvpool takes over faster. */
  public static LeaseElection of(
      String namespace, String leaseName, String podName, List<String> masterPods) {
    return new LeaseElection(
        namespace,
        leaseName,
        podName,
        masterPods,
        Duration.ofSeconds(8),
        Duration.ofSeconds(6),
        Duration.ofMillis(500));
  }
}
