package io.kvpool.operator.render;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.PodSpecBuilder;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.PodTemplateSpecBuilder;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.apps.StatefulSetBuilder;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.kvpool.api.v1alpha1.KvCachePool;
import io.kvpool.operator.common.PoolLabels;
import io.kvpool.operator.common.PoolLabels.Component;
import io.kvpool.operator.common.PoolObjectMeta;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Builds the StatefulSet of one data-plane component: what masters and storage nodes have in common
 * (labels, the release and image recorded on the StatefulSet and its pods, the stable selector,
 * parallel pod management, the config and /tmp volumes, the security context of {@link
 * PodSecurity}, the placement of {@link PodPlacement}). {@link StatefulSets} adds what only one
 * component has: its resources, environment, ports and volumes.
 *
 * <p>Updates are {@code OnDelete}: a changed template replaces no pod by itself; the operator's
 * rollout planner deletes pods one at a time, in its order and after its checks. The template
 * carries a hash of itself ({@value PoolLabels#TEMPLATE_ANNOTATION}), which every pod made from it
 * keeps, so the planner tells an outdated pod from the pods themselves, and a hash of the ConfigMap
 * keys the component reads at start.
 */
public final class DataPlaneStatefulSet {
  private final KvCachePool pool;
  private final DataPlaneSettings settings;
  private final Component component;
  private final String name;
  private final String serviceName;
  private final int replicas;
  private final int rpcPort;
  private final int adminPort;

  private DataPlaneStatefulSet(
      KvCachePool pool,
      DataPlaneSettings settings,
      Component component,
      String name,
      String serviceName,
      int replicas,
      int rpcPort,
      int adminPort) {
    this.pool = pool;
    this.settings = settings;
    this.component = component;
    this.name = name;
    this.serviceName = serviceName;
    this.replicas = replicas;
    this.rpcPort = rpcPort;
    this.adminPort = adminPort;
  }

  /** The masters, governed by the headless peer Service, at the release of the spec. */
  public static DataPlaneStatefulSet master(KvCachePool pool) {
    return master(pool, PoolRollout.ofSpec(pool));
  }

  /** The masters at the release the rollout renders. */
  public static DataPlaneStatefulSet master(KvCachePool pool, PoolRollout rollout) {
    DataPlaneSettings settings = DataPlaneSettings.of(pool).rendered(rollout);
    return new DataPlaneStatefulSet(
        pool,
        settings,
        Component.MASTER,
        PoolNames.of(pool, Component.MASTER),
        PoolNames.masterPeers(pool),
        settings.masterReplicas(),
        settings.masterPort(),
        settings.masterAdminPort());
  }

  /**
   * The storage nodes, governed by the headless storage Service, at the release and replicas of the
   * spec.
   */
  public static DataPlaneStatefulSet storage(KvCachePool pool) {
    return storage(pool, PoolRollout.ofSpec(pool));
  }

  /** The storage nodes at the release and replica count the rollout renders. */
  public static DataPlaneStatefulSet storage(KvCachePool pool, PoolRollout rollout) {
    DataPlaneSettings settings = DataPlaneSettings.of(pool).rendered(rollout);
    return new DataPlaneStatefulSet(
        pool,
        settings,
        Component.STORAGE,
        PoolNames.of(pool, Component.STORAGE),
        PoolNames.storage(pool),
        settings.storageReplicas(),
        settings.storagePort(),
        settings.storageAdminPort());
  }

  public DataPlaneSettings settings() {
    return settings;
  }

  /**
   * The component's container running {@code mainClass} with its resources and the JVM sized to
   * them.
   */
  public ContainerBuilder container(String mainClass, ContainerSizing sizing) {
    PoolSecurity security = PoolSecurity.of(pool);
    return DataPlaneContainer.builder(
            component,
            settings,
            DataPlaneContainer.javaCommand(mainClass, sizing.jvm()),
            rpcPort,
            adminPort)
        .addAllToEnv(SecretMounts.env(security))
        .addAllToVolumeMounts(SecretMounts.mounts(security))
        .withResources(sizing.resources());
  }

  /**
   * A pod spec with the container, the config, /tmp and secret volumes; the caller adds its own
   * fields and volumes.
   */
  public PodSpecBuilder podSpec(Container container) {
    return new PodSpecBuilder()
        .withTerminationGracePeriodSeconds(30L)
        .withSecurityContext(PodSecurity.pod())
        .withContainers(container)
        .withVolumes(DataPlaneContainer.configVolume(pool), PodSecurity.tmpVolume())
        .addAllToVolumes(SecretMounts.volumes(pool, PoolSecurity.of(pool)));
  }

  /** The StatefulSet around {@code podSpec}, after placing it ({@link PodPlacement}). */
  public StatefulSet build(PodSpec podSpec) {
    PodPlacement.apply(pool, component, podSpec);
    Map<String, String> labels = PoolLabels.component(pool, component, settings.version());
    Map<String, String> annotations = new LinkedHashMap<>();
    // The release on each pod: a half-finished upgrade stays visible after an operator restart.
    annotations.put(PoolLabels.RELEASE_ANNOTATION, settings.version());
    annotations.put(PoolLabels.CONFIG_ANNOTATION, configHash());
    PodTemplateSpec template =
        new PodTemplateSpecBuilder()
            .withNewMetadata()
            .withLabels(labels)
            .withAnnotations(annotations)
            .endMetadata()
            .withSpec(podSpec)
            .build();
    template
        .getMetadata()
        .getAnnotations()
        .put(PoolLabels.TEMPLATE_ANNOTATION, hash(Serialization.asJson(template)));
    return new StatefulSetBuilder()
        .withMetadata(
            PoolObjectMeta.of(
                pool,
                name,
                component,
                settings.version(),
                Map.of(
                    PoolLabels.RELEASE_ANNOTATION, settings.version(),
                    PoolLabels.IMAGE_ANNOTATION, settings.image())))
        .withNewSpec()
        .withReplicas(replicas)
        .withServiceName(serviceName)
        // Parallel: standby masters need not wait for the leader, storage nodes not for each other.
        .withPodManagementPolicy("Parallel")
        // OnDelete: the rollout planner replaces pods itself, one at a time (drain, step-down, warm
        // restart).
        .withNewUpdateStrategy()
        .withType("OnDelete")
        .endUpdateStrategy()
        .withNewSelector()
        .withMatchLabels(PoolLabels.selector(pool, component))
        .endSelector()
        .withTemplate(template)
        .endSpec()
        .build();
  }

  /** Hash of the pool ConfigMap values this component reads at start (the live ones left out). */
  private String configHash() {
    Set<String> keys =
        component == Component.MASTER ? ConfigMaps.MASTER_KEYS : ConfigMaps.STORAGE_KEYS;
    Map<String, String> read = new TreeMap<>(ConfigMaps.pool(pool).getData());
    read.keySet().retainAll(keys);
    return hash(read.toString());
  }

  /** The first 10 hex digits of the SHA-256 of {@code text}. */
  static String hash(String text) {
    try {
      byte[] digest =
          MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
      return HexFormat.of().formatHex(digest, 0, 5);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
