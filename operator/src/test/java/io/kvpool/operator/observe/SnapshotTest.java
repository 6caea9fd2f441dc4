package io.kvpool.operator.observe;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.apps.StatefulSetBuilder;
import io.kvpool.api.v1alpha1.KvCachePool;
import io.kvpool.api.v1alpha1.KvCachePoolSpec;
import io.kvpool.operator.TestPools;
import io.kvpool.operator.common.PoolLabels;
import io.kvpool.operator.render.StatefulSets;
import io.kvpool.operator.rollout.ImageCheck;
import io.kvpool.operator.rollout.LivePool;
import io.kvpool.operator.rollout.StatefulSetView;
import io.kvpool.operator.status.PoolObservation;
import io.kvpool.operator.transferengine.TransportSettings;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The rollout and the status of a reconciliation are made of the same read. */
class SnapshotTest {
  private static final KvCachePool POOL = TestPools.defaultedPool("ns", "p");

  /**
   * {@code rendered} as the API server returns it once its controller has seen it and {@code ready}
   * pods are ready.
   */
  private static StatefulSet running(StatefulSet rendered, int ready) {
    return new StatefulSetBuilder(rendered)
        .editMetadata()
        .withGeneration(1L)
        .endMetadata()
        .withNewStatus()
        .withObservedGeneration(1L)
        .withReplicas(rendered.getSpec().getReplicas())
        .withReadyReplicas(ready)
        .withUpdatedReplicas(ready)
        .endStatus()
        .build();
  }

  private static Pod pod(
      String name, String component, Map<String, String> labels, Map<String, String> annotations) {
    return new PodBuilder()
        .withNewMetadata()
        .withName(name)
        .withNamespace("ns")
        .addToLabels(PoolLabels.NAME, PoolLabels.APP)
        .addToLabels(PoolLabels.INSTANCE, "p")
        .addToLabels(PoolLabels.COMPONENT, component)
        .addToLabels(labels)
        .withAnnotations(annotations)
        .endMetadata()
        .build();
  }

  /**
   * The check pod of an image that cannot be pulled: a failing pod, but not one of the pool's data
   * plane.
   */
  private static Pod unpullableCheck() {
    return new PodBuilder(
            pod(
                "p-image-0123456789",
                ImageCheck.COMPONENT,
                Map.of(),
                Map.of(ImageCheck.IMAGE_ANNOTATION, "kvpool/data-plane:9.9.9")))
        .withNewStatus()
        .withPhase("Pending")
        .addNewContainerStatus()
        .withName(ImageCheck.COMPONENT)
        .withNewState()
        .withNewWaiting()
        .withReason("ImagePullBackOff")
        .endWaiting()
        .endState()
        .endContainerStatus()
        .endStatus()
        .build();
  }

  private static Snapshot snapshot(KvCachePool pool) {
    List<Pod> pods =
        List.of(
            pod(
                "p-master-0",
                "master",
                Map.of(PoolLabels.ROLE, PoolLabels.ROLE_LEADER),
                Map.of(PoolLabels.RELEASE_ANNOTATION, "0.1.0")),
            pod("p-storage-0", "storage", Map.of(), Map.of(PoolLabels.RELEASE_ANNOTATION, "0.1.0")),
            unpullableCheck());
    return new Snapshot(
        pool,
        Optional.of(running(StatefulSets.master(pool), 1)),
        Optional.of(running(StatefulSets.storage(pool, TransportSettings.PLAIN_TCP), 3)),
        pods,
        new Snapshot.Leader(Optional.empty(), "master admin unreachable", Optional.empty()));
  }

  @Test
  void theRolloutSeesEveryPodAndWhatTheStatefulSetsRenderAndRun() {
    LivePool live = snapshot(POOL).rollout();

    assertThat(live.pods())
        .extracting(p -> p.getMetadata().getName())
        .containsExactly("p-master-0", "p-storage-0", "p-image-0123456789");
    StatefulSetView masters = live.masters().orElseThrow();
    assertThat(masters.release()).isEqualTo("0.1.0");
    assertThat(masters.image()).isEqualTo("kvpool/data-plane:0.1.0");
    assertThat(masters.settled(StatefulSetView.templateOf(StatefulSets.master(POOL)))).isTrue();
    assertThat(live.storage().orElseThrow().replicas()).isEqualTo(3);
  }

  @Test
  void theStatusSeesTheSameStatefulSetsAndOnlyTheDataPlanePods() {
    PoolObservation observed = snapshot(POOL).status(List.of(), null, Optional.empty());

    assertThat(observed.masters().orElseThrow().fraction()).isEqualTo("1/1");
    assertThat(observed.storage().orElseThrow().fraction()).isEqualTo("3/3");
    assertThat(observed.podReleases()).containsExactly("0.1.0");
    assertThat(observed.labelledLeader()).isEqualTo("p-master-0");
    assertThat(observed.failingPods())
        .as("a check pod's failure is the rollout's, not the pool's")
        .isEmpty();
    assertThat(observed.masterError()).isEqualTo("master admin unreachable");
    assertThat(observed.rollout()).isEmpty();
  }

  @Test
  void aPoolStoredWithoutObjectReplicasIsObservedWithTheCrdDefault() {
    KvCachePool older = TestPools.pool("ns", "p");
    older.getSpec().setObjectReplicas(null);

    assertThat(snapshot(older).status(List.of(), null, Optional.empty()).objectReplicas())
        .isEqualTo(KvCachePoolSpec.DEFAULT_OBJECT_REPLICAS);
  }
}
