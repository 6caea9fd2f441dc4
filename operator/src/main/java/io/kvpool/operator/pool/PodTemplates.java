package io.kvpool.operator.pool;

import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.EnvVarBuilder;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Probe;
import io.fabric8.kubernetes.api.model.ProbeBuilder;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeBuilder;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.api.model.VolumeMountBuilder;
import io.kvpool.api.v1alpha1.KvCachePool;
import io.kvpool.api.v1alpha1.SchedulingSpec;
import io.kvpool.operator.common.PoolLabels;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** Pieces shared by the master and storage pod templates: probes, downward-API env, config, scheduling. */
public final class PodTemplates {
  /** Where the data-plane image keeps its jars; the mains are started with a classpath wildcard. */
  public static final String CLASSPATH = "/opt/kvpool/lib/*";
  public static final String CONFIG_VOLUME = "pool-config";
  public static final String CONFIG_DIR = "/etc/kvpool";

  private PodTemplates() {
  }

  /** The JVM launch prefix; the heap stays small because segments live outside it (native memory). */
  public static List<String> javaCommand(String mainClass, String maxHeap) {
    List<String> command = new ArrayList<>();
    command.add("java");
    command.add("-Xmx" + maxHeap);
    command.add("-XX:+ExitOnOutOfMemoryError");
    command.add("-cp");
    command.add(CLASSPATH);
    command.add(mainClass);
    return command;
  }

  /** Ready only once the process serves its RPCs; the leader Service and clients rely on it. */
  public static Probe readiness() {
    return new ProbeBuilder()
        .withNewHttpGet().withPath("/ready").withPort(new IntOrString("admin")).endHttpGet()
        .withInitialDelaySeconds(2)
        .withPeriodSeconds(5)
        .withTimeoutSeconds(2)
        .withFailureThreshold(3)
        .build();
  }

  /** Restart only a wedged process: the threshold tolerates a slow lease recovery. */
  public static Probe liveness() {
    return new ProbeBuilder()
        .withNewHttpGet().withPath("/health").withPort(new IntOrString("admin")).endHttpGet()
        .withInitialDelaySeconds(10)
        .withPeriodSeconds(10)
        .withTimeoutSeconds(2)
        .withFailureThreshold(6)
        .build();
  }

  /** Pod name and namespace from the downward API: the node id and the election identity. */
  public static List<EnvVar> podIdentityEnv() {
    return List.of(
        new EnvVarBuilder().withName("POD_NAME")
            .withNewValueFrom().withNewFieldRef().withFieldPath("metadata.name").endFieldRef().endValueFrom()
            .build(),
        new EnvVarBuilder().withName("POD_NAMESPACE")
            .withNewValueFrom().withNewFieldRef().withFieldPath("metadata.namespace").endFieldRef().endValueFrom()
            .build());
  }

  public static Volume configVolume(KvCachePool pool) {
    return new VolumeBuilder().withName(CONFIG_VOLUME)
        .withNewConfigMap().withName(PoolNames.poolConfig(pool)).endConfigMap()
        .build();
  }

  public static VolumeMount configMount() {
    return new VolumeMountBuilder().withName(CONFIG_VOLUME).withMountPath(CONFIG_DIR).withReadOnly(true).build();
  }

  /** Pod annotations recording the release, read back to detect half-finished upgrades. */
  public static Map<String, String> podAnnotations(DataPlaneSettings settings) {
    return Map.of(PoolLabels.RELEASE_ANNOTATION, settings.version());
  }

  /** Applies spec.scheduling (node selector, tolerations, affinity) to a pod spec. */
  public static void applyScheduling(KvCachePool pool, PodSpec podSpec) {
    SchedulingSpec scheduling = pool.getSpec().getScheduling();
    if (scheduling == null) {
      return;
    }
    if (scheduling.getNodeSelector() != null && !scheduling.getNodeSelector().isEmpty()) {
      podSpec.setNodeSelector(scheduling.getNodeSelector());
    }
    if (scheduling.getTolerations() != null && !scheduling.getTolerations().isEmpty()) {
      podSpec.setTolerations(scheduling.getTolerations());
    }
    if (scheduling.getAffinity() != null) {
      podSpec.setAffinity(scheduling.getAffinity());
    }
  }
}
