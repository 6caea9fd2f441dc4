package io.kvpool.operator.pool.dependents;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.PodSpecBuilder;
import io.fabric8.kubernetes.api.model.ResourceRequirements;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.apps.StatefulSetBuilder;
import io.javaoperatorsdk.operator.api.config.informer.Informer;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.CRUDKubernetesDependentResource;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.KubernetesDependent;
import io.kvpool.api.v1alpha1.KvCachePool;
import io.kvpool.operator.common.Ownership;
import io.kvpool.operator.common.PoolLabels;
import io.kvpool.operator.common.PoolLabels.Component;
import io.kvpool.operator.pool.DataPlaneSettings;
import io.kvpool.operator.pool.PodTemplates;
import io.kvpool.operator.pool.PoolNames;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * {@code <pool>-master}: 1 or 3 masters that elect a leader through the pool's Lease. Parallel pod
 * management: standbys need not wait for the leader to be ready (it only reports ready once it leads).
 */
@KubernetesDependent(informer = @Informer(labelSelector = PoolLabels.MANAGED_SELECTOR))
public class MasterStatefulSetDependent extends CRUDKubernetesDependentResource<StatefulSet, KvCachePool> {
  public static final String MAIN_CLASS = "io.kvpool.master.MasterMain";
  public static final String MASTER_MAX_HEAP = "512m";

  public MasterStatefulSetDependent() {
    super(StatefulSet.class);
  }

  @Override
  protected StatefulSet desired(KvCachePool pool, Context<KvCachePool> context) {
    return desired(pool);
  }

  public static StatefulSet desired(KvCachePool pool) {
    DataPlaneSettings settings = DataPlaneSettings.of(pool);
    Map<String, String> labels = PoolLabels.component(pool, Component.MASTER, settings.version());
    return new StatefulSetBuilder()
        .withNewMetadata()
        .withName(PoolNames.master(pool))
        .withNamespace(pool.getMetadata().getNamespace())
        .withOwnerReferences(Ownership.controlledBy(pool))
        .withLabels(labels)
        .withAnnotations(Map.of(
            PoolLabels.RELEASE_ANNOTATION, settings.version(),
            PoolLabels.IMAGE_ANNOTATION, settings.image()))
        .endMetadata()
        .withNewSpec()
        .withReplicas(settings.masterReplicas())
        .withServiceName(PoolNames.masterPeers(pool))
        .withPodManagementPolicy("Parallel")
        .withNewUpdateStrategy().withType("RollingUpdate").endUpdateStrategy()
        .withNewSelector().withMatchLabels(PoolLabels.selector(pool, Component.MASTER)).endSelector()
        .withNewTemplate()
        .withNewMetadata()
        .withLabels(labels)
        .withAnnotations(PodTemplates.podAnnotations(settings))
        .endMetadata()
        .withSpec(podSpec(pool, settings))
        .endTemplate()
        .endSpec()
        .build();
  }

  private static PodSpec podSpec(KvCachePool pool, DataPlaneSettings settings) {
    PodSpec spec = new PodSpecBuilder()
        .withServiceAccountName(PoolNames.master(pool))
        .withTerminationGracePeriodSeconds(30L)
        .withContainers(container(pool, settings))
        .withVolumes(PodTemplates.configVolume(pool))
        .build();
    PodTemplates.applyScheduling(pool, spec);
    return spec;
  }

  static Container container(KvCachePool pool, DataPlaneSettings settings) {
    List<String> command = new ArrayList<>(PodTemplates.javaCommand(MAIN_CLASS, MASTER_MAX_HEAP));
    command.addAll(List.of(
        "--pool-id", settings.poolId(),
        "--host", "0.0.0.0",
        "--port", Integer.toString(settings.masterPort()),
        "--admin-port", Integer.toString(settings.masterAdminPort()),
        "--node-ttl", settings.nodeTtl(),
        "--lease-ttl", settings.leaseTtl(),
        "--high-watermark", Double.toString(settings.highWatermark()),
        "--evict-ratio", Double.toString(settings.evictRatio())));
    return new ContainerBuilder()
        .withName("master")
        .withImage(settings.image())
        .withImagePullPolicy(settings.imagePullPolicy())
        .withCommand(command)
        .withEnv(PodTemplates.podIdentityEnv())
        .addNewPort().withName("rpc").withContainerPort(settings.masterPort()).withProtocol("TCP").endPort()
        .addNewPort().withName("admin").withContainerPort(settings.masterAdminPort()).withProtocol("TCP").endPort()
        .withReadinessProbe(PodTemplates.readiness())
        .withLivenessProbe(PodTemplates.liveness())
        .withResources(settings.masterResources() == null ? new ResourceRequirements() : settings.masterResources())
        .withVolumeMounts(PodTemplates.configMount())
        .build();
  }
}
