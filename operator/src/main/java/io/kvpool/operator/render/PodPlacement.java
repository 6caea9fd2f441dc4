package io.kvpool.operator.render;

import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.TopologySpreadConstraint;
import io.fabric8.kubernetes.api.model.TopologySpreadConstraintBuilder;
import io.kvpool.api.v1alpha1.KvCachePool;
import io.kvpool.api.v1alpha1.SchedulingSpec;
import io.kvpool.operator.common.PoolLabels;
import io.kvpool.operator.common.PoolLabels.Component;
import java.util.List;

/**
 * Where the pods of one component may run: the storage nodes follow {@code spec.scheduling}, the
 * masters {@code spec.master.scheduling}; the storage block (often pinned to accelerator nodes)
 * never moves the masters. Unless the block gives its own {@code topologySpreadConstraints} (an
 * empty list turns spreading off), the pods of a component are spread across Kubernetes nodes: at
 * most one more on any node than on another. So the two replicas of an object do not end up on one
 * node while other nodes are free, and three masters do not share one.
 */
public final class PodPlacement {
  public static final String NODE_TOPOLOGY = "kubernetes.io/hostname";

  private PodPlacement() {}

  /** The scheduling block that places {@code component}, or null. */
  public static SchedulingSpec schedulingOf(KvCachePool pool, Component component) {
    if (component == Component.STORAGE) {
      return pool.getSpec().getScheduling();
    }
    return pool.getSpec().getMaster() == null ? null : pool.getSpec().getMaster().getScheduling();
  }

  public static void apply(KvCachePool pool, Component component, PodSpec podSpec) {
    SchedulingSpec scheduling = schedulingOf(pool, component);
    if (scheduling != null) {
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
    List<TopologySpreadConstraint> spread =
        scheduling == null || scheduling.getTopologySpreadConstraints() == null
            ? List.of(acrossNodes(pool, component))
            : scheduling.getTopologySpreadConstraints();
    if (!spread.isEmpty()) {
      podSpec.setTopologySpreadConstraints(spread);
    }
  }

  /**
   * One more pod on a node than on any other at most, else the pod waits. Tainted nodes the pods do
   * not tolerate and nodes outside the node selector do not count as places to spread to, so they
   * never block scheduling.
   */
  static TopologySpreadConstraint acrossNodes(KvCachePool pool, Component component) {
    return new TopologySpreadConstraintBuilder()
        .withMaxSkew(1)
        .withTopologyKey(NODE_TOPOLOGY)
        .withWhenUnsatisfiable("DoNotSchedule")
        .withNodeAffinityPolicy("Honor")
        .withNodeTaintsPolicy("Honor")
        .withNewLabelSelector()
        .withMatchLabels(PoolLabels.selector(pool, component))
        .endLabelSelector()
        .build();
  }
}
