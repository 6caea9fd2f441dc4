package io.kvpool.operator.render;

import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.EnvVarBuilder;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.Probe;
import io.fabric8.kubernetes.api.model.ProbeBuilder;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeBuilder;
import io.fabric8.kubernetes.api.model.VolumeMountBuilder;
import io.kvpool.api.v1alpha1.ApiLimits;
import io.kvpool.api.v1alpha1.KvCachePool;
import io.kvpool.operator.common.PoolLabels.Component;
import java.util.ArrayList;
import java.util.List;

/**
 * What the master and storage containers share: the image, the JVM command, the pod identity, the
 * RPC and admin ports, the probes and the pool ConfigMap mounted read-only. The data plane reads
 * its whole configuration from that mount ({@value #CONFIG_DIR}, named by {@code
 * KVPOOL_CONFIG_DIR}) and from the environment set here: the contract is the table in
 * data-plane/README.md. The container runs with the restricted security context of {@link
 * PodSecurity}: a read-only root filesystem with a writable /tmp.
 */
public final class DataPlaneContainer {
  /** Where the data-plane image keeps its jars; the mains are started with a classpath wildcard. */
  public static final String CLASSPATH = "/opt/kvpool/lib/*";

  public static final String CONFIG_VOLUME = ApiLimits.CONFIG_VOLUME;
  public static final String CONFIG_DIR = ApiLimits.CONFIG_DIR;
  public static final String CONFIG_DIR_ENV = "KVPOOL_CONFIG_DIR";

  private DataPlaneContainer() {}

  /**
   * A container of the component running {@code command}; the caller adds what only its component
   * needs.
   */
  public static ContainerBuilder builder(
      Component component,
      DataPlaneSettings settings,
      List<String> command,
      int rpcPort,
      int adminPort) {
    return new ContainerBuilder()
        .withName(component.label())
        .withImage(settings.image())
        .withImagePullPolicy(settings.imagePullPolicy())
        .withCommand(command)
        .withEnv(env(component))
        .withPorts(DataPlanePorts.containerPorts(rpcPort, adminPort))
        .withReadinessProbe(readiness())
        .withLivenessProbe(liveness())
        .withSecurityContext(PodSecurity.container())
        .withVolumeMounts(
            new VolumeMountBuilder()
                .withName(CONFIG_VOLUME)
                .withMountPath(CONFIG_DIR)
                .withReadOnly(true)
                .build(),
            PodSecurity.tmpMount());
  }

  /**
   * The JVM launch, no arguments: the settings come from the config mount and the environment. JNA
   * extracts libkvpool (and its own dispatch library) before loading it; by default it tries
   * ~/.cache first, which a read-only root filesystem refuses, so it is pointed at the writable
   * /tmp.
   */
  public static List<String> javaCommand(String mainClass, JvmMemory memory) {
    List<String> command = new ArrayList<>();
    command.add("java");
    command.addAll(memory.flags());
    command.addAll(
        List.of(
            "-XX:+ExitOnOutOfMemoryError",
            "-Djna.tmpdir=" + ApiLimits.TMP_DIR,
            "-cp",
            CLASSPATH,
            mainClass));
    return List.copyOf(command);
  }

  /** The pool ConfigMap as the volume behind the config mount. */
  public static Volume configVolume(KvCachePool pool) {
    return new VolumeBuilder()
        .withName(CONFIG_VOLUME)
        .withNewConfigMap()
        .withName(PoolNames.poolConfig(pool))
        .endConfigMap()
        .build();
  }

  /** Ready only once the process serves its RPCs; the leader Service and clients rely on it. */
  private static Probe readiness() {
    return adminProbe("/ready")
        .withInitialDelaySeconds(2)
        .withPeriodSeconds(5)
        .withFailureThreshold(3)
        .build();
  }

  /** Restart only a wedged process: the threshold tolerates a slow lease recovery. */
  private static Probe liveness() {
    return adminProbe("/health")
        .withInitialDelaySeconds(10)
        .withPeriodSeconds(10)
        .withFailureThreshold(6)
        .build();
  }

  private static ProbeBuilder adminProbe(String path) {
    return new ProbeBuilder()
        .withNewHttpGet()
        .withPath(path)
        .withPort(new IntOrString(DataPlanePorts.ADMIN))
        .endHttpGet()
        .withTimeoutSeconds(2);
  }

  /**
   * Where the config is, and the pod's identity from the downward API: its IP (the address peers
   * dial; the processes bind the wildcard, so an advertised address must be given); a master's name
   * and namespace (the pod the leader labels, the namespace of the election Lease); a storage
   * node's id, its pod name (stable across restarts, so a replaced pod re-registers as the same
   * node).
   */
  private static List<EnvVar> env(Component component) {
    List<EnvVar> env =
        new ArrayList<>(
            List.of(
                new EnvVar(CONFIG_DIR_ENV, CONFIG_DIR, null),
                fieldRef("KVPOOL_ADVERTISE_HOST", "status.podIP")));
    if (component == Component.MASTER) {
      env.add(fieldRef("POD_NAME", "metadata.name"));
      env.add(fieldRef("POD_NAMESPACE", "metadata.namespace"));
    } else {
      env.add(fieldRef("KVPOOL_NODE_ID", "metadata.name"));
    }
    return env;
  }

  private static EnvVar fieldRef(String name, String fieldPath) {
    return new EnvVarBuilder()
        .withName(name)
        .withNewValueFrom()
        .withNewFieldRef()
        .withFieldPath(fieldPath)
        .endFieldRef()
        .endValueFrom()
        .build();
  }
}
