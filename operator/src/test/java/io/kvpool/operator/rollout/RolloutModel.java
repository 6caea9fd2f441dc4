package io.kvpool.operator.rollout;

import io.kvpool.admin.AdminJson;
import io.kvpool.admin.MasterStatus;
import io.kvpool.api.v1alpha1.RolloutStep;
import io.kvpool.operator.common.PoolLabels.Component;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A pool as the planner sees it, to build observations for unit tests and to play a rollout: {@link
 * #apply} does what the cluster and the data plane would do after an action (a drained node
 * empties, a deleted pod comes back on the rendered template, a step-down moves leadership to an
 * updated standby), so a test can run a rollout to the end and look at the order of its steps.
 */
final class RolloutModel {
  static final String OLD = "1.0.0";
  static final String NEW = "1.1.0";
  static final long MIB = 1L << 20;

  final String pool = "p";
  String release = OLD;
  String image = "kvpool/data-plane:" + OLD;
  String masterTemplate = "m-old";
  String storageTemplate = "s-old";
  int masterReplicas = 3;
  int storageDesired = 4;
  int storageRendered = 4;
  int objectReplicas = 2;
  boolean warmTemplate;
  boolean leaderReadable = true;
  String leaderState = "SERVING";
  String leader = "p-master-0";
  long underReplicated;
  final Map<String, Integer> formats = new LinkedHashMap<>();
  final java.util.Set<String> checking = new java.util.TreeSet<>();
  RolloutObservation.Policy policy = RolloutObservation.Policy.defaults();
  RolloutStep step;
  Instant now = Instant.parse("2026-01-01T00:00:00Z");
  final Map<String, Pod> pods = new LinkedHashMap<>();
  final Map<String, Node> nodes = new LinkedHashMap<>();

  /** A pod as the model keeps it. */
  static final class Pod {
    final String name;
    final Component component;
    final int ordinal;
    String release;
    String image;
    String template;
    boolean ready = true;
    boolean terminating;
    Instant created;
    boolean memoryFiles;
    boolean drained;

    Pod(String name, Component component, int ordinal) {
      this.name = name;
      this.component = component;
      this.ordinal = ordinal;
    }
  }

  /** A storage node as the leader sees it. */
  static final class Node {
    String state = "ALIVE";
    long replicas = 100;
    long used = 10 * MIB;
    long capacity = 64 * MIB;
  }

  RolloutModel() {
    for (int i = 0; i < masterReplicas; i++) {
      addPod(Component.MASTER, i);
    }
    for (int i = 0; i < storageDesired; i++) {
      addPod(Component.STORAGE, i);
      nodes.put(pool + "-storage-" + i, new Node());
    }
  }

  Pod addPod(Component component, int ordinal) {
    Pod p = new Pod(pool + "-" + component.label() + "-" + ordinal, component, ordinal);
    p.release = release;
    p.image = image;
    p.template = component == Component.MASTER ? masterTemplate : storageTemplate;
    p.created = now.minusSeconds(3600);
    p.memoryFiles = warmTemplate && component == Component.STORAGE;
    pods.put(p.name, p);
    return p;
  }

  /** spec.version changed: the StatefulSets render release {@code to} on new templates. */
  RolloutModel upgradeTo(String to) {
    release = to;
    image = "kvpool/data-plane:" + to;
    masterTemplate = "m-" + to;
    storageTemplate = "s-" + to;
    return this;
  }

  RolloutModel warm(boolean on, int oldFormat, int newFormat) {
    warmTemplate = on;
    pods.values().stream()
        .filter(p -> p.component == Component.STORAGE)
        .forEach(p -> p.memoryFiles = on);
    formats.put("kvpool/data-plane:" + OLD, oldFormat);
    formats.put("kvpool/data-plane:" + NEW, newFormat);
    return this;
  }

  Pod pod(String name) {
    return pods.get(name);
  }

  Node node(String name) {
    return nodes.get(name);
  }

  RolloutObservation observe() {
    List<PodView> masters = new ArrayList<>();
    List<PodView> storage = new ArrayList<>();
    for (Pod p : pods.values()) {
      PodView v =
          new PodView(
              p.name,
              p.component,
              p.ordinal,
              p.release,
              p.image,
              p.template,
              p.ready,
              p.terminating,
              p.created,
              "node-a",
              p.memoryFiles,
              p.drained);
      (p.component == Component.MASTER ? masters : storage).add(v);
    }
    return new RolloutObservation(
        pool,
        release,
        image,
        masterTemplate,
        storageTemplate,
        masterReplicas,
        storageDesired,
        storageRendered,
        masters,
        storage,
        leaderReadable ? Optional.of(status()) : Optional.empty(),
        objectReplicas,
        warmTemplate,
        formats,
        checking,
        policy,
        Optional.ofNullable(step),
        now);
  }

  RolloutPlan plan() {
    return UpgradePlanner.plan(observe());
  }

  MasterStatus status() {
    List<MasterStatus.NodeStatus> list = new ArrayList<>();
    nodes.forEach(
        (id, n) ->
            list.add(
                new MasterStatus.NodeStatus(
                    id,
                    "10.0.0.1:50052",
                    n.state,
                    n.capacity,
                    n.used,
                    n.replicas,
                    OLD,
                    "2.0",
                    100)));
    return new MasterStatus(
        AdminJson.API_VERSION,
        pool,
        "LEADER",
        leaderState,
        7,
        new MasterStatus.Leader(leader, "10.0.0.9:50051", "10.0.0.9:8080"),
        OLD,
        "2.0",
        new MasterStatus.Recovery("RECOVERING".equals(leaderState), 0, List.of()),
        list,
        0,
        0,
        0,
        new MasterStatus.Counters(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, underReplicated, 0, 0),
        null,
        null);
  }

  /**
   * Records the action as the operator's status would, then lets the cluster and data plane react
   * to it.
   */
  void apply(RolloutPlan.Action action) {
    if (action.pod() != null && !(action instanceof RolloutPlan.Wait)) {
      step = new RolloutStep();
      step.setPod(action.pod());
      step.setAction(
          action instanceof RolloutPlan.Drain
              ? "Drain"
              : action instanceof RolloutPlan.StepDown
                  ? "StepDown"
                  : action instanceof RolloutPlan.Replace r
                      ? r.kind().action()
                      : action.getClass().getSimpleName());
      step.setStartedAt(now.toString());
      step.setActedAt(now.toString());
    }
    if (action instanceof RolloutPlan.Drain d) {
      Node n = node(d.pod());
      n.state = "DRAINING";
      n.replicas = 0;
      n.used = 0;
    } else if (action instanceof RolloutPlan.Replace r) {
      Pod old = pods.remove(r.pod());
      Pod fresh = addPod(old.component, old.ordinal);
      fresh.created = now;
      if (old.component == Component.STORAGE) {
        Node n = node(old.name);
        n.state = "ALIVE";
        n.replicas = r.kind() == RolloutPlan.StepKind.WARM_RESTART ? n.replicas : 0;
      }
      if (old.name.equals(leader)) {
        leader =
            pods.keySet().stream()
                .filter(n -> n.contains("-master-") && !n.equals(old.name))
                .findFirst()
                .orElse(old.name);
      }
    } else if (action instanceof RolloutPlan.StepDown) {
      leader =
          pods.values().stream()
              .filter(p -> p.component == Component.MASTER && p.template.equals(masterTemplate))
              .findFirst()
              .orElseThrow()
              .name;
    } else if (action instanceof RolloutPlan.MarkDrained m) {
      pods.remove(m.pod());
      nodes.get(m.pod()).state = "DEAD";
      storageRendered--;
    }
    now = now.plus(Duration.ofSeconds(5));
  }
}
