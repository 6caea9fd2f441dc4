package io.kvpool.operator.pool.dependents;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.PodSpecBuilder;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeBuilder;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.api.model.VolumeMountBuilder;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.apps.StatefulSetBuilder;
import io.javaoperatorsdk.operator.api.config.informer.Informer;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.CRUDKubernetesDependentResource;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.KubernetesDependent;
import io.kvpool.api.v1alpha1.HugePages;
import io.kvpool.api.v1alpha1.KvCachePool;
import io.kvpool.operator.common.Ownership;
import io.kvpool.operator.common.PoolLabels;
import io.kvpool.operator.common.PoolLabels.Component;
import io.kvpool.operator.pool.DataPlaneSettings;
import io.kvpool.operator.pool.PodTemplates;
import io.kvpool.operator.pool.PoolNames;
import io.kvpool.operator.pool.PoolTransport;
import io.kvpool.operator.pool.StorageResources;
import io.kvpool.operator.pool.TransportAttachments;
import io.kvpool.operator.transferengine.TransportSettings;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * {@code <pool>-storage}: the storage nodes that own the memory segments. The replica count is the
 * only field driven by spec.storage.replicas, so scaling never changes the pod template (no restart).
 * Transport settings are in the pod env, so a TransferEngine change rolls the storage nodes only.
 */
@KubernetesDependent(informer = @Informer(labelSelector = PoolLabels.MANAGED_SELECTOR))
public class StorageStatefulSetDependent extends CRUDKubernetesDependentResource<StatefulSet, KvCachePool> {
  public static final String MAIN_CLASS = "io.kvpool.storage.StorageNodeMain";
  public static final String HUGEPAGES_VOLUME = "hugepages";

  public StorageStatefulSetDependent() {
    super(StatefulSet.class);
  }

  @Override
  protected StatefulSet desired(KvCachePool pool, Context<KvCachePool> context) {
    return desired(pool, PoolTransport.of(pool, context));
  }

  public static StatefulSet desired(KvCachePool pool, TransportSettings transport) {
    DataPlaneSettings settings = DataPlaneSettings.of(pool);
    Map<String, String> labels = PoolLabels.component(pool, Component.STORAGE, settings.version());
    return new StatefulSetBuilder()
        .withNewMetadata()
        .withName(PoolNames.storage(pool))
        .withNamespace(pool.getMetadata().getNamespace())
        .withOwnerReferences(Ownership.controlledBy(pool))
        .withLabels(labels)
        .withAnnotations(Map.of(
            PoolLabels.RELEASE_ANNOTATION, settings.version(),
            PoolLabels.IMAGE_ANNOTATION, settings.image()))
        .endMetadata()
        .withNewSpec()
        .withReplicas(settings.storageReplicas())
        .withServiceName(PoolNames.storage(pool))
        .withPodManagementPolicy("Parallel")
        .withNewUpdateStrategy().withType("RollingUpdate").endUpdateStrategy()
        .withNewSelector().withMatchLabels(PoolLabels.selector(pool, Component.STORAGE)).endSelector()
        .withNewTemplate()
        .withNewMetadata()
        .withLabels(labels)
        .withAnnotations(PodTemplates.podAnnotations(settings))
        .endMetadata()
        .withSpec(podSpec(pool, settings, transport))
        .endTemplate()
        .endSpec()
        .build();
  }

  private static PodSpec podSpec(KvCachePool pool, DataPlaneSettings settings, TransportSettings transport) {
    List<Volume> volumes = new ArrayList<>();
    volumes.add(PodTemplates.configVolume(pool));
    if (settings.hugePages() == HugePages.EXPLICIT) {
      volumes.add(new VolumeBuilder().withName(HUGEPAGES_VOLUME)
          .withNewEmptyDir().withMedium("HugePages-2Mi").endEmptyDir().build());
    }
    volumes.addAll(TransportAttachments.driverVolumes(transport));
    PodSpec spec = new PodSpecBuilder()
        // Storage nodes never call the Kubernetes API: no token in the pod.
        .withAutomountServiceAccountToken(false)
        .withTerminationGracePeriodSeconds(30L)
        .withHostNetwork(transport.hostNetwork() ? Boolean.TRUE : null)
        .withDnsPolicy(transport.hostNetwork() ? "ClusterFirstWithHostNet" : null)
        .withContainers(container(pool, settings, transport))
        .withVolumes(volumes)
        .build();
    PodTemplates.applyScheduling(pool, spec);
    return spec;
  }

  static Container container(KvCachePool pool, DataPlaneSettings settings, TransportSettings transport) {
    List<String> command = new ArrayList<>(PodTemplates.javaCommand(MAIN_CLASS, StorageResources.STORAGE_MAX_HEAP));
    // The storage main learns its pool from the master it registers with; it takes no --pool-id.
    command.addAll(List.of(
        "--master", PoolNames.masterAddress(pool, settings.masterPort()),
        "--node-id", "$(POD_NAME)",
        "--host", "0.0.0.0",
        "--port", Integer.toString(settings.storagePort()),
        "--admin-port", Integer.toString(settings.storageAdminPort()),
        "--memory", Long.toString(settings.memoryPerNodeBytes()),
        "--segments", Integer.toString(settings.segments()),
        "--huge-pages", settings.hugePagesFlag()));
    List<VolumeMount> mounts = new ArrayList<>();
    mounts.add(PodTemplates.configMount());
    if (settings.hugePages() == HugePages.EXPLICIT) {
      mounts.add(new VolumeMountBuilder().withName(HUGEPAGES_VOLUME).withMountPath("/dev/hugepages").build());
    }
    mounts.addAll(TransportAttachments.driverMounts(transport));
    List<EnvVar> env = new ArrayList<>(PodTemplates.podIdentityEnv());
    env.addAll(TransportAttachments.env(transport));
    return new ContainerBuilder()
        .withName("storage")
        .withImage(settings.image())
        .withImagePullPolicy(settings.imagePullPolicy())
        .withCommand(command)
        .withEnv(env)
        .addNewPort().withName("rpc").withContainerPort(settings.storagePort()).withProtocol("TCP").endPort()
        .addNewPort().withName("admin").withContainerPort(settings.storageAdminPort()).withProtocol("TCP").endPort()
        .addNewPort().withName("transfer").withContainerPort(transport.port()).withProtocol("TCP").endPort()
        .withReadinessProbe(PodTemplates.readiness())
        .withLivenessProbe(PodTemplates.liveness())
        .withResources(StorageResources.of(settings, transport))
        .withVolumeMounts(mounts)
        // mlock of the segments needs IPC_LOCK; nothing else is added.
        .withNewSecurityContext().withNewCapabilities().withAdd("IPC_LOCK").endCapabilities().endSecurityContext()
        .build();
  }
}
