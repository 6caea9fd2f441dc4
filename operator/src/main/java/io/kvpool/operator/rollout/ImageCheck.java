package io.kvpool.operator.rollout;

import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.ContainerState;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceRequirementsBuilder;
import io.kvpool.admin.AdminJson;
import io.kvpool.admin.ImageVersion;
import io.kvpool.api.v1alpha1.ApiLimits;
import io.kvpool.api.v1alpha1.KvCachePool;
import io.kvpool.api.v1alpha1.SchedulingSpec;
import io.kvpool.operator.common.PoolLabels;
import io.kvpool.operator.common.PoolLabels.Component;
import io.kvpool.operator.common.PoolObjectMeta;
import io.kvpool.operator.common.StatusMessage;
import io.kvpool.operator.render.DataPlaneContainer;
import io.kvpool.operator.render.PodPlacement;
import io.kvpool.operator.render.PodSecurity;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.time.Instant;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The pre-flight check of an image (as Keycloak checks compatibility before a rollout): a
 * short-lived pod runs the image's {@code io.kvpool.server.ImageVersionMain}, which writes what the
 * image declares (release, wire protocol, inventory format) to the container's termination message,
 * where the operator reads it from the pod's status. One pod per pool and image, named after a hash
 * of the image, owned by the pool; it stays while a rollout needs its answer (state kept in the
 * cluster, so an operator restart reads it again) and is deleted after.
 */
public final class ImageCheck {
  /** Component label of the check pods (the pool's pod informer watches them too). */
  public static final String COMPONENT = "version-check";

  public static final String MAIN_CLASS = "io.kvpool.server.ImageVersionMain";

  /** The image annotation on a check pod: which image it answers for. */
  public static final String IMAGE_ANNOTATION = PoolLabels.IMAGE_ANNOTATION;

  private static final Set<String> PULL_PROBLEMS =
      Set.of(
          "ErrImagePull",
          "ImagePullBackOff",
          "ErrImageNeverPull",
          "InvalidImageName",
          "CreateContainerConfigError",
          "CreateContainerError",
          "RunContainerError");

  private ImageCheck() {}

  /** What a check pod says now. */
  public record Result(State state, ImageVersion declared, String message) {
    public enum State {
      PENDING,
      DECLARED,
      FAILED
    }

    static Result pending(String message) {
      return new Result(State.PENDING, null, message);
    }

    static Result failed(String message) {
      return new Result(State.FAILED, null, StatusMessage.bound(message));
    }
  }

  /**
   * {@code <pool>-image-<10 hex of the image's SHA-256>}: at most 61 characters for a 44-character
   * pool name.
   */
  public static String podName(KvCachePool pool, String image) {
    try {
      byte[] digest =
          MessageDigest.getInstance("SHA-256").digest(image.getBytes(StandardCharsets.UTF_8));
      return pool.getMetadata().getName() + "-image-" + HexFormat.of().formatHex(digest, 0, 5);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  /**
   * The check pod of {@code image}: restricted security context, no service-account token, small
   * resources, placed where the storage pods may run (the image must be pullable there), given at
   * most 10 minutes.
   */
  public static Pod pod(KvCachePool pool, String image, String pullPolicy) {
    var container =
        new ContainerBuilder()
            .withName(COMPONENT)
            .withImage(image)
            .withImagePullPolicy(pullPolicy)
            .withCommand(
                "java",
                "-Xmx64m",
                "-XX:-UsePerfData",
                "-Djna.tmpdir=" + ApiLimits.TMP_DIR,
                "-cp",
                DataPlaneContainer.CLASSPATH,
                MAIN_CLASS)
            .withTerminationMessagePath("/dev/termination-log")
            .withTerminationMessagePolicy("FallbackToLogsOnError")
            .withResources(
                new ResourceRequirementsBuilder()
                    .withRequests(
                        Map.of("cpu", new Quantity("50m"), "memory", new Quantity("128Mi")))
                    .withLimits(Map.of("memory", new Quantity("256Mi")))
                    .build())
            .withSecurityContext(PodSecurity.container())
            .withVolumeMounts(PodSecurity.tmpMount())
            .build();
    Map<String, String> labels = PoolLabels.common(pool);
    labels.put(PoolLabels.COMPONENT, COMPONENT);
    var meta = PoolObjectMeta.of(pool, podName(pool, image));
    meta.setLabels(labels);
    meta.setAnnotations(Map.of(IMAGE_ANNOTATION, image));
    SchedulingSpec scheduling = PodPlacement.schedulingOf(pool, Component.STORAGE);
    return new PodBuilder()
        .withMetadata(meta)
        .withNewSpec()
        .withRestartPolicy("Never")
        .withActiveDeadlineSeconds(600L)
        .withTerminationGracePeriodSeconds(5L)
        .withAutomountServiceAccountToken(false)
        .withSecurityContext(PodSecurity.pod())
        .withContainers(container)
        .withVolumes(PodSecurity.tmpVolume())
        .withNodeSelector(scheduling == null ? null : scheduling.getNodeSelector())
        .withTolerations(scheduling == null ? null : scheduling.getTolerations())
        .withAffinity(scheduling == null ? null : scheduling.getAffinity())
        .endSpec()
        .build();
  }

  /** Whether {@code pod} is a check pod (by its component label). */
  public static boolean isCheckPod(Pod pod) {
    Map<String, String> labels = pod.getMetadata().getLabels();
    return labels != null && COMPONENT.equals(labels.get(PoolLabels.COMPONENT));
  }

  /** The image a check pod answers for. */
  public static Optional<String> imageOf(Pod pod) {
    Map<String, String> annotations = pod.getMetadata().getAnnotations();
    return Optional.ofNullable(annotations == null ? null : annotations.get(IMAGE_ANNOTATION));
  }

  /**
   * What the check pod of an image says: still running, what the image declared, or why it could
   * not tell. A check that has not answered {@code timeout} (spec.upgrade.stepTimeout) after its
   * pod was created has failed: a pod that is never scheduled, for one, would otherwise keep the
   * rollout checking for ever.
   */
  public static Result read(Pod pod, Instant now, Duration timeout) {
    String image = imageOf(pod).orElse("?");
    String phase = pod.getStatus() == null ? null : pod.getStatus().getPhase();
    ContainerStatus container = containerStatus(pod);
    ContainerState state = container == null ? null : container.getState();
    if ("Succeeded".equals(phase)) {
      String message =
          state == null || state.getTerminated() == null
              ? null
              : state.getTerminated().getMessage();
      if (message == null || message.isBlank()) {
        return Result.failed(
            "the check of image "
                + image
                + " ended without declaring its versions (is it a kvpool"
                + " data-plane image of release 0.3 or later?)");
      }
      try {
        ImageVersion declared = AdminJson.read(message.strip(), ImageVersion.class);
        return new Result(
            Result.State.DECLARED,
            declared,
            "image "
                + image
                + " declares release "
                + declared.release()
                + ", protocol "
                + declared.protocol()
                + ", inventory format "
                + declared.inventoryFormat());
      } catch (IOException e) {
        return Result.failed(
            "image " + image + " declared something unreadable: " + e.getMessage());
      }
    }
    if ("Failed".equals(phase)) {
      String detail =
          state != null && state.getTerminated() != null
              ? "exit code "
                  + state.getTerminated().getExitCode()
                  + (state.getTerminated().getMessage() == null
                      ? ""
                      : ": " + state.getTerminated().getMessage().strip())
              : pod.getStatus().getReason() + " " + pod.getStatus().getMessage();
      return Result.failed("the check of image " + image + " failed (" + detail + ")");
    }
    if (state != null
        && state.getWaiting() != null
        && PULL_PROBLEMS.contains(state.getWaiting().getReason())) {
      return Result.failed(
          "image "
              + image
              + " cannot run: "
              + state.getWaiting().getReason()
              + (state.getWaiting().getMessage() == null
                  ? ""
                  : " (" + state.getWaiting().getMessage() + ")")
              + "; the check retries while the image stays in spec");
    }
    String waiting = waitingFor(pod, state);
    Instant created = created(pod);
    if (created != null && Duration.between(created, now).compareTo(timeout) > 0) {
      return Result.failed(
          "the check of image "
              + image
              + " in pod "
              + pod.getMetadata().getName()
              + " did not answer within "
              + timeout.toMinutes()
              + "m (spec.upgrade.stepTimeout)"
              + waiting
              + "; delete the pod to check again");
    }
    return Result.pending(
        "checking image " + image + " in pod " + pod.getMetadata().getName() + waiting);
  }

  /**
   * What holds a pod that has not run its container yet: the scheduler's or the container's reason,
   * if any.
   */
  private static String waitingFor(Pod pod, ContainerState state) {
    if (state != null && state.getWaiting() != null && state.getWaiting().getReason() != null) {
      return " ("
          + state.getWaiting().getReason()
          + (state.getWaiting().getMessage() == null ? "" : ": " + state.getWaiting().getMessage())
          + ")";
    }
    List<PodCondition> conditions =
        pod.getStatus() == null ? null : pod.getStatus().getConditions();
    if (conditions != null) {
      for (PodCondition c : conditions) {
        if ("PodScheduled".equals(c.getType()) && "False".equals(c.getStatus())) {
          return " (" + c.getReason() + (c.getMessage() == null ? "" : ": " + c.getMessage()) + ")";
        }
      }
    }
    return "";
  }

  private static Instant created(Pod pod) {
    try {
      String at = pod.getMetadata().getCreationTimestamp();
      return at == null ? null : Instant.parse(at);
    } catch (java.time.format.DateTimeParseException e) {
      return null;
    }
  }

  private static ContainerStatus containerStatus(Pod pod) {
    if (pod.getStatus() == null || pod.getStatus().getContainerStatuses() == null) {
      return null;
    }
    List<ContainerStatus> statuses = pod.getStatus().getContainerStatuses();
    return statuses.isEmpty() ? null : statuses.get(0);
  }
}
