package io.kvpool.operator.rollout;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.kvpool.operator.rollout.ImageCheck.Result.State;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * What a check pod says, from its status: declared, failed, still checking and why, or out of time.
 */
class ImageCheckTest {
  private static final Instant CREATED = Instant.parse("2026-01-01T00:00:00Z");
  private static final Duration TIMEOUT = Duration.ofMinutes(10);

  private static PodBuilder pod() {
    return new PodBuilder()
        .withNewMetadata()
        .withName("p-image-0123456789")
        .withCreationTimestamp(CREATED.toString())
        .withAnnotations(Map.of(ImageCheck.IMAGE_ANNOTATION, "kvpool/data-plane:1.1.0"))
        .endMetadata();
  }

  private static Pod unschedulable() {
    return pod()
        .withNewStatus()
        .withPhase("Pending")
        .addNewCondition()
        .withType("PodScheduled")
        .withStatus("False")
        .withReason("Unschedulable")
        .withMessage("0/1 nodes are available: 1 Insufficient cpu.")
        .endCondition()
        .endStatus()
        .build();
  }

  @Test
  void aSucceededCheckDeclaresWhatItsTerminationMessageSays() {
    Pod done =
        pod()
            .withNewStatus()
            .withPhase("Succeeded")
            .addNewContainerStatus()
            .withNewState()
            .withNewTerminated()
            .withExitCode(0)
            .withMessage(
                "{\"apiVersion\":\"kvpool.io/admin/v1\",\"release\":\"1.1.0\","
                    + "\"protocol\":\"2.1\",\"inventoryFormat\":2}")
            .endTerminated()
            .endState()
            .endContainerStatus()
            .endStatus()
            .build();
    ImageCheck.Result r = ImageCheck.read(done, CREATED.plusSeconds(5), TIMEOUT);
    assertThat(r.state()).isEqualTo(State.DECLARED);
    assertThat(r.declared().release()).isEqualTo("1.1.0");
    assertThat(r.declared().inventoryFormat()).isEqualTo(2);
  }

  @Test
  void aPendingCheckSaysWhatHoldsIt() {
    ImageCheck.Result r = ImageCheck.read(unschedulable(), CREATED.plusSeconds(30), TIMEOUT);
    assertThat(r.state()).isEqualTo(State.PENDING);
    assertThat(r.message())
        .isEqualTo(
            "checking image kvpool/data-plane:1.1.0 in pod p-image-0123456789"
                + " (Unschedulable: 0/1 nodes are available: 1 Insufficient cpu.)");
  }

  @Test
  void aCheckThatDoesNotAnswerWithinTheStepTimeoutHasFailed() {
    ImageCheck.Result r =
        ImageCheck.read(unschedulable(), CREATED.plus(TIMEOUT).plusSeconds(1), TIMEOUT);
    assertThat(r.state()).isEqualTo(State.FAILED);
    assertThat(r.message())
        .isEqualTo(
            "the check of image kvpool/data-plane:1.1.0 in pod p-image-0123456789 did not"
                + " answer within 10m (spec.upgrade.stepTimeout) (Unschedulable: 0/1 nodes are available: 1 Insufficient"
                + " cpu.); delete the pod to check again");
  }

  @Test
  void anImageThatCannotBePulledFailsAtOnce() {
    Pod pulling =
        pod()
            .withNewStatus()
            .withPhase("Pending")
            .addNewContainerStatus()
            .withNewState()
            .withNewWaiting()
            .withReason("ErrImageNeverPull")
            .withMessage("image is not present")
            .endWaiting()
            .endState()
            .endContainerStatus()
            .endStatus()
            .build();
    ImageCheck.Result r = ImageCheck.read(pulling, CREATED.plusSeconds(2), TIMEOUT);
    assertThat(r.state()).isEqualTo(State.FAILED);
    assertThat(r.message())
        .startsWith("image kvpool/data-plane:1.1.0 cannot run: ErrImageNeverPull");
  }
}
