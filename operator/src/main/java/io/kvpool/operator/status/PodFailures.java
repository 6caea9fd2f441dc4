package io.kvpool.operator.status;

import io.fabric8.kubernetes.api.model.ContainerStateTerminated;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.kvpool.api.v1alpha1.FailingPod;
import io.kvpool.operator.common.StatusMessage;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Stream;

/**
 * The pool's pods that cannot start or keep failing, with the reason and message Kubernetes gives,
 * the way the kubelet and the scheduler write them into the pod's status: a container waiting for a
 * reason other than being created (ImagePullBackOff, ErrImagePull, CrashLoopBackOff with its last
 * exit, CreateContainerConfigError...), a pod the scheduler marked Unschedulable (with its message
 * naming what no node offers), or a pod that Failed. Pure.
 */
public final class PodFailures {
  /**
   * At most this many pods are listed in the status; the count in the condition message says how
   * many in all.
   */
  public static final int MAX_LISTED = 10;

  public static final int MAX_MESSAGE = 256;

  /** Waiting reasons of a container that is simply on its way. */
  private static final Set<String> STARTING = Set.of("ContainerCreating", "PodInitializing");

  private PodFailures() {}

  public static List<FailingPod> of(List<Pod> pods) {
    List<FailingPod> failing = new ArrayList<>();
    pods.stream()
        .filter(pod -> pod.getMetadata().getDeletionTimestamp() == null)
        .sorted(Comparator.comparing(pod -> pod.getMetadata().getName()))
        .forEach(pod -> failure(pod).ifPresent(failing::add));
    return failing;
  }

  static Optional<FailingPod> failure(Pod pod) {
    String name = pod.getMetadata().getName();
    if (pod.getStatus() == null) {
      return Optional.empty();
    }
    if ("Failed".equals(pod.getStatus().getPhase())) {
      return Optional.of(
          failing(
              name, reasonOr(pod.getStatus().getReason(), "Failed"), pod.getStatus().getMessage()));
    }
    Optional<PodCondition> unschedulable =
        Optional.ofNullable(pod.getStatus().getConditions()).stream()
            .flatMap(List::stream)
            .filter(
                c ->
                    "PodScheduled".equals(c.getType())
                        && "False".equals(c.getStatus())
                        && "Unschedulable".equals(c.getReason()))
            .findFirst();
    if (unschedulable.isPresent()) {
      return Optional.of(failing(name, "Unschedulable", unschedulable.get().getMessage()));
    }
    return Stream.concat(
            statuses(pod.getStatus().getInitContainerStatuses()),
            statuses(pod.getStatus().getContainerStatuses()))
        .map(status -> waitingFailure(name, status))
        .flatMap(Optional::stream)
        .findFirst();
  }

  private static Optional<FailingPod> waitingFailure(String pod, ContainerStatus status) {
    if (status.getState() == null || status.getState().getWaiting() == null) {
      return Optional.empty();
    }
    String reason = status.getState().getWaiting().getReason();
    if (reason == null || STARTING.contains(reason)) {
      return Optional.empty();
    }
    String message = status.getState().getWaiting().getMessage();
    ContainerStateTerminated last =
        status.getLastState() == null ? null : status.getLastState().getTerminated();
    if (last != null) {
      message =
          (message == null ? "" : message + "; ")
              + "last exit: "
              + reasonOr(last.getReason(), "Error")
              + " with code "
              + last.getExitCode()
              + (last.getMessage() == null ? "" : ": " + last.getMessage());
    }
    return Optional.of(failing(pod, reason, message));
  }

  private static Stream<ContainerStatus> statuses(List<ContainerStatus> statuses) {
    return statuses == null ? Stream.empty() : statuses.stream();
  }

  private static FailingPod failing(String pod, String reason, String message) {
    return FailingPod.of(
        pod, reason, StatusMessage.bound(message == null ? reason : message, MAX_MESSAGE));
  }

  private static String reasonOr(String reason, String fallback) {
    return reason == null || reason.isBlank() ? fallback : reason;
  }

  /**
   * One clause for the Degraded condition: "2 pods cannot start: p-storage-0 ImagePullBackOff
   * (...); ...".
   */
  public static String summary(List<FailingPod> failing) {
    StringBuilder out = new StringBuilder();
    out.append(failing.size())
        .append(failing.size() == 1 ? " pod cannot start: " : " pods cannot start: ");
    for (int i = 0; i < failing.size(); i++) {
      FailingPod pod = failing.get(i);
      if (i > 0) {
        out.append("; ");
      }
      out.append(pod.getName()).append(' ').append(pod.getReason());
      if (pod.getMessage() != null && !pod.getMessage().equals(pod.getReason())) {
        out.append(" (").append(pod.getMessage()).append(')');
      }
    }
    return StatusMessage.bound(out.toString());
  }
}
