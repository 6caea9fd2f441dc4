package io.kvpool.operator.status;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ContainerStatusBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.kvpool.api.v1alpha1.FailingPod;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Pod status written the way the kubelet and the scheduler write it. */
class PodFailuresTest {

  private static PodBuilder pod(String name) {
    return new PodBuilder()
        .withNewMetadata()
        .withName(name)
        .endMetadata()
        .withNewStatus()
        .withPhase("Pending")
        .endStatus();
  }

  private static Pod waiting(String name, String reason, String message) {
    return pod(name)
        .editStatus()
        .withContainerStatuses(
            new ContainerStatusBuilder()
                .withName("storage")
                .withNewState()
                .withNewWaiting()
                .withReason(reason)
                .withMessage(message)
                .endWaiting()
                .endState()
                .build())
        .endStatus()
        .build();
  }

  @Test
  void imagePullBackOffAndUnschedulableAreNamedWithTheirMessages() {
    Pod pull =
        waiting(
            "p-storage-1",
            "ImagePullBackOff",
            "Back-off pulling image \"kvpool/data-plane:9.9.9\"");
    Pod unschedulable =
        pod("p-storage-0")
            .editStatus()
            .addNewCondition()
            .withType("PodScheduled")
            .withStatus("False")
            .withReason("Unschedulable")
            .withMessage("0/3 nodes are available: 3 Insufficient huawei.com/Ascend910.")
            .endCondition()
            .endStatus()
            .build();

    List<FailingPod> failing = PodFailures.of(List.of(pull, unschedulable));

    assertThat(failing)
        .containsExactly(
            FailingPod.of(
                "p-storage-0",
                "Unschedulable",
                "0/3 nodes are available: 3 Insufficient huawei.com/Ascend910."),
            FailingPod.of(
                "p-storage-1",
                "ImagePullBackOff",
                "Back-off pulling image \"kvpool/data-plane:9.9.9\""));
    assertThat(PodFailures.summary(failing))
        .isEqualTo(
            "2 pods cannot start: p-storage-0 Unschedulable (0/3 nodes"
                + " are available: 3 Insufficient huawei.com/Ascend910.); p-storage-1 ImagePullBackOff (Back-off pulling"
                + " image \"kvpool/data-plane:9.9.9\")");
  }

  @Test
  void crashLoopBackOffSaysHowTheContainerLastExited() {
    Pod crashing =
        pod("p-master-0")
            .editStatus()
            .withContainerStatuses(
                new ContainerStatusBuilder()
                    .withName("master")
                    .withNewState()
                    .withNewWaiting()
                    .withReason("CrashLoopBackOff")
                    .withMessage("back-off 40s restarting failed container=master")
                    .endWaiting()
                    .endState()
                    .withNewLastState()
                    .withNewTerminated()
                    .withReason("OOMKilled")
                    .withExitCode(137)
                    .endTerminated()
                    .endLastState()
                    .build())
            .endStatus()
            .build();

    assertThat(PodFailures.of(List.of(crashing)))
        .singleElement()
        .satisfies(
            pod -> {
              assertThat(pod.getReason()).isEqualTo("CrashLoopBackOff");
              assertThat(pod.getMessage())
                  .isEqualTo(
                      "back-off 40s restarting failed container=master; last exit:"
                          + " OOMKilled with code 137");
            });
  }

  @Test
  void podsOnTheirWayAreNotFailing() {
    Pod creating = waiting("p-storage-0", "ContainerCreating", null);
    Pod fresh = pod("p-storage-1").build();

    assertThat(PodFailures.of(List.of(creating, fresh))).isEmpty();
  }

  @Test
  void longMessagesAreBounded() {
    Pod pull = waiting("p-storage-1", "ErrImagePull", "x ".repeat(10_000));

    assertThat(PodFailures.of(List.of(pull)))
        .singleElement()
        .satisfies(
            pod -> assertThat(pod.getMessage()).hasSizeLessThanOrEqualTo(PodFailures.MAX_MESSAGE));
  }
}
