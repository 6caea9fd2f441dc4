package io.kvpool.operator.pool;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.PodSpecBuilder;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.apps.StatefulSetBuilder;
import io.kvpool.api.v1alpha1.KvCachePool;
import io.kvpool.api.v1alpha1.SchedulingSpec;
import io.kvpool.operator.common.PoolLabels;
import io.kvpool.operator.common.PoolLabels.Component;
import io.kvpool.operator.common.PoolObjectMeta;
import java.util.List;
import java.util.Map;

/**
 * Builds the StatefulSet of one data-plane component: what masters and storage nodes have in common (labels,
 * the release and image recorded on the StatefulSet and its pods, the stable selector, parallel rolling pods,
 * the config volume, scheduling). The component's dependent adds its own arguments, ports and volumes.
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

  private DataPlaneStatefulSet(KvCachePool pool, DataPlaneSettings settings, Component component, String name,
      String serviceName, int replicas, int rpcPort, int adminPort) {
    this.pool = pool;
    this.settings = settings;
    this.component = component;
    this.name = name;
    this.serviceName = serviceName;
    this.replicas = replicas;
    this.rpcPort = rpcPort;
    this.adminPort = adminPort;
  }

  /** The masters, governed by the headless peer Service. */
  public static DataPlaneStatefulSet master(KvCachePool pool) {
    DataPlaneSettings settings = DataPlaneSettings.of(pool);
    return new DataPlaneStatefulSet(pool, settings, Component.MASTER, PoolNames.of(pool, Component.MASTER),
        PoolNames.masterPeers(pool), settings.masterReplicas(), settings.masterPort(), settings.masterAdminPort());
  }

  /** The storage nodes, governed by the headless storage Service. */
  public static DataPlaneStatefulSet storage(KvCachePool pool) {
    DataPlaneSettings settings = DataPlaneSettings.of(pool);
    return new DataPlaneStatefulSet(pool, settings, Component.STORAGE, PoolNames.of(pool, Component.STORAGE),
        PoolNames.storage(pool), settings.storageReplicas(), settings.storagePort(), settings.storageAdminPort());
  }

  public DataPlaneSettings settings() {
    return settings;
  }

  /** The component's container running {@code mainClass} with {@code args}. */
  public ContainerBuilder container(String mainClass, String maxHeap, List<String> args) {
    return DataPlaneContainer.builder(component, settings, DataPlaneContainer.javaCommand(mainClass, maxHeap, args),
        rpcPort, adminPort);
  }

  /** A pod spec with the container and the config volume first; the caller adds its own fields and volumes. */
  public PodSpecBuilder podSpec(Container container) {
    return new PodSpecBuilder()
        .withTerminationGracePeriodSeconds(30L)
        .withContainers(container)
        .withVolumes(DataPlaneContainer.configVolume(pool));
  }

  /** The StatefulSet around {@code podSpec}, after applying spec.scheduling to it. */
  public StatefulSet build(PodSpec podSpec) {
    applyScheduling(podSpec);
    Map<String, String> labels = PoolLabels.component(pool, component, settings.version());
    return new StatefulSetBuilder()
        .withMetadata(PoolObjectMeta.of(pool, name, component, settings.version(), Map.of(
            PoolLabels.RELEASE_ANNOTATION, settings.version(),
            PoolLabels.IMAGE_ANNOTATION, settings.image())))
        .withNewSpec()
        .withReplicas(replicas)
        .withServiceName(serviceName)
        // Parallel: standby masters need not wait for the leader, storage nodes not for each other.
        .withPodManagementPolicy("Parallel")
        .withNewUpdateStrategy().withType("RollingUpdate").endUpdateStrategy()
        .withNewSelector().withMatchLabels(PoolLabels.selector(pool, component)).endSelector()
        .withNewTemplate()
        .withNewMetadata()
        .withLabels(labels)
        // The release on each pod: a half-finished upgrade stays visible after an operator restart.
        .withAnnotations(Map.of(PoolLabels.RELEASE_ANNOTATION, settings.version()))
        .endMetadata()
        .withSpec(podSpec)
        .endTemplate()
        .endSpec()
        .build();
  }

  private void applyScheduling(PodSpec podSpec) {
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
