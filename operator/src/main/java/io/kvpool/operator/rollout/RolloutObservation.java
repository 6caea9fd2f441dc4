package io.kvpool.operator.rollout;

import io.kvpool.admin.MasterStatus;
import io.kvpool.api.v1alpha1.RolloutStep;
import io.kvpool.api.v1alpha1.UpgradeFailurePolicy;
import io.kvpool.api.v1alpha1.UpgradeSpec;
import io.kvpool.operator.common.DataPlaneDurations;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Everything the rollout planner decides from, observed now: the pods (with what they record), what
 * the StatefulSets render, the leader's view of the storage nodes, the policy, and the step under
 * way as the status recorded it (only for its start time: which step runs is found from the pods
 * and the leader).
 *
 * @param release the release the StatefulSets render now
 * @param image the image they render
 * @param masterTemplate the template hash the master StatefulSet renders
 * @param storageTemplate the template hash the storage StatefulSet renders
 * @param masterReplicas masters the pool has
 * @param storageDesired storage pods spec.storage.replicas asks for
 * @param storageRendered storage pods the StatefulSet has now (above storageDesired while scaling
 *     down)
 * @param leader the leader's /status, empty when it cannot be read
 * @param objectReplicas copies per object (spec.objectReplicas)
 * @param warmTemplate whether the storage template keeps segments in memory files
 * @param inventoryFormats inventory format each image declared in its check, by image
 * @param checking images whose check is needed and has not answered yet
 * @param policy spec.upgrade, and whether the gate is rolling back
 * @param step the step status.upgrade recorded as under way
 */
public record RolloutObservation(
    String pool,
    String release,
    String image,
    String masterTemplate,
    String storageTemplate,
    int masterReplicas,
    int storageDesired,
    int storageRendered,
    List<PodView> masters,
    List<PodView> storage,
    Optional<MasterStatus> leader,
    int objectReplicas,
    boolean warmTemplate,
    Map<String, Integer> inventoryFormats,
    Set<String> checking,
    Policy policy,
    Optional<RolloutStep> step,
    Instant now) {
  public RolloutObservation {
    masters = List.copyOf(masters);
    storage = List.copyOf(storage);
    inventoryFormats = Map.copyOf(inventoryFormats);
    checking = Set.copyOf(checking);
  }

  /** spec.upgrade as the planner uses it. */
  public record Policy(
      boolean paused, Duration stepTimeout, UpgradeFailurePolicy onFailure, boolean rollingBack) {
    public static Policy defaults() {
      return new Policy(
          false,
          DataPlaneDurations.parse(UpgradeSpec.DEFAULT_STEP_TIMEOUT).orElseThrow(),
          UpgradeFailurePolicy.valueOf(UpgradeSpec.DEFAULT_ON_FAILURE),
          false);
    }
  }

  /** The leader's record of storage node {@code id}, if it has one. */
  public Optional<MasterStatus.NodeStatus> node(String id) {
    return leader.flatMap(l -> l.nodes().stream().filter(n -> id.equals(n.id())).findFirst());
  }

  /** The leader's pod, if it names one. */
  public Optional<String> leaderPod() {
    return leader.map(MasterStatus::leader).map(MasterStatus.Leader::pod).filter(p -> !p.isBlank());
  }
}
