package io.kvpool.operator.pool;

import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.EnvVarBuilder;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.Probe;
import io.fabric8.kubernetes.api.model.ProbeBuilder;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeBuilder;
import io.fabric8.kubernetes.api.model.VolumeMountBuilder;
import io.kvpool.api.v1alpha1.KvCachePool;
import io.kvpool.operator.common.PoolLabels.Component;
import java.util.ArrayList;
import java.util.List;

/**
 * What the master and storage containers share: the image, the JVM command, the pod identity, the RPC and
 * admin ports, the probes and the pool ConfigMap mounted read-only.
 */
public final class DataPlaneContainer {
  /** Where the data-plane image keeps its jars; the mains are started with a classpath wildcard. */
  public static final String CLASSPATH = "/opt/kvpool/lib/*";
  public static final String CONFIG_VOLUME = "pool-config";
  public static final String CONFIG_DIR = "/etc/kvpool";

  private DataPlaneContainer() {
  }

  /** A container of the component running {@code command}; the caller adds what only its component needs. */
  public static ContainerBuilder builder(Component component, DataPlaneSettings settings, List<String> command,
      int rpcPort, int adminPort) {
    return new ContainerBuilder()
        .withName(component.label())
        .withImage(settings.image())
        .withImagePullPolicy(settings.imagePullPolicy())
        .withCommand(command)
        .withEnv(podIdentityEnv())
        .withPorts(DataPlanePorts.containerPorts(rpcPort, adminPort))
        .withReadinessProbe(readiness())
        .withLivenessProbe(liveness())
        .withVolumeMounts(new VolumeMountBuilder().withName(CONFIG_VOLUME).withMountPath(CONFIG_DIR)
            .withReadOnly(true).build());
  }

  /** The JVM launch; the heap stays small because segments live outside it (native memory). */
  public static List<String> javaCommand(String mainClass, String maxHeap, List<String> args) {
    List<String> command = new ArrayList<>(List.of("java", "-Xmx" + maxHeap, "-XX:+ExitOnOutOfMemoryError",
        "-cp", CLASSPATH, mainClass));
    command.addAll(args);
    return command;
  }

  /** The pool ConfigMap as the volume behind the config mount. */
  public static Volume configVolume(KvCachePool pool) {
    return new VolumeBuilder().withName(CONFIG_VOLUME)
        .withNewConfigMap().withName(PoolNames.poolConfig(pool)).endConfigMap()
        .build();
  }

  /** Ready only once the process serves its RPCs; the leader Service and clients rely on it. */
  private static Probe readiness() {
    return adminProbe("/ready").withInitialDelaySeconds(2).withPeriodSeconds(5).withFailureThreshold(3).build();
  }

  /** Restart only a wedged process: the threshold tolerates a slow lease recovery. */
  private static Probe liveness() {
    return adminProbe("/health").withInitialDelaySeconds(10).withPeriodSeconds(10).withFailureThreshold(6).build();
  }

  private static ProbeBuilder adminProbe(String path) {
    return new ProbeBuilder()
        .withNewHttpGet().withPath(path).withPort(new IntOrString(DataPlanePorts.ADMIN)).endHttpGet()
        .withTimeoutSeconds(2);
  }

  /** Pod name and namespace from the downward API: the node id and the election identity. */
  private static List<EnvVar> podIdentityEnv() {
    return List.of(fieldRef("POD_NAME", "metadata.name"), fieldRef("POD_NAMESPACE", "metadata.namespace"));
  }

  private static EnvVar fieldRef(String name, String fieldPath) {
    return new EnvVarBuilder().withName(name)
        .withNewValueFrom().withNewFieldRef().withFieldPath(fieldPath).endFieldRef().endValueFrom()
        .build();
  }
}
