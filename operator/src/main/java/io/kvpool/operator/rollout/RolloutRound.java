package io.kvpool.operator.rollout;

import io.fabric8.kubernetes.api.model.Pod;
import io.kvpool.admin.MasterStatus;
import io.kvpool.admin.NodeState;
import io.kvpool.api.v1alpha1.KvCachePool;
import io.kvpool.api.v1alpha1.KvCachePoolSpec;
import io.kvpool.api.v1alpha1.UpgradeFailurePolicy;
import io.kvpool.api.v1alpha1.UpgradeSpec;
import io.kvpool.api.v1alpha1.UpgradeStatus;
import io.kvpool.operator.common.DataPlaneDurations;
import io.kvpool.operator.common.PoolEvent;
import io.kvpool.operator.common.PoolLabels;
import io.kvpool.operator.render.DataPlaneSettings;
import io.kvpool.operator.render.MemoryFileVolume;
import io.kvpool.operator.render.PoolRollout;
import io.kvpool.operator.render.StatefulSets;
import io.kvpool.operator.transferengine.TransportSettings;
import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * One reconciliation's part of a pool's rollout, from the pool as that reconciliation read it
 * ({@link LivePool}) and the leader's view. {@link #begin} (before the workflow) reads the image
 * checks, lets the {@link ReleaseGate} decide which release to render and {@link StorageReplicas}
 * how far a scale-down may go: what the dependents render ({@link #rollout()}). {@link #finish}
 * (after it) plans the next step ({@link UpgradePlanner}), carries it out ({@link
 * RolloutExecutor}), keeps the image check pods, and computes {@code status.upgrade} with its
 * Events ({@link RolloutStatus}).
 */
public final class RolloutRound {
  /**
   * How often a pool is reconciled while a rollout runs (drains and recoveries signal nothing to
   * Kubernetes).
   */
  public static final Duration ACTIVE_INTERVAL = Duration.ofSeconds(2);

  private final KvCachePool pool;
  private final LivePool live;
  private final Optional<MasterStatus> leader;
  private final Clock clock;
  private final List<PodView> views;
  private final Map<String, ImageCheck.Result> checks;
  private final ReleaseGate.Release target;
  private final ReleaseGate.Decision gate;
  private final PoolRollout rollout;

  private RolloutRound(
      KvCachePool pool,
      LivePool live,
      Optional<MasterStatus> leader,
      Clock clock,
      List<PodView> views,
      Map<String, ImageCheck.Result> checks,
      ReleaseGate.Release target,
      ReleaseGate.Decision gate,
      PoolRollout rollout) {
    this.pool = pool;
    this.live = live;
    this.leader = leader;
    this.clock = clock;
    this.views = views;
    this.checks = checks;
    this.target = target;
    this.gate = gate;
    this.rollout = rollout;
  }

  /**
   * Decides what the dependents render in this reconciliation ({@link #rollout()}).
   *
   * @param live the pool's pods and StatefulSets as this reconciliation read them, before anything
   *     is applied
   * @param leader the leader's /status, empty when it cannot be read
   */
  public static RolloutRound begin(
      KvCachePool pool, LivePool live, Optional<MasterStatus> leader, Clock clock) {
    String name = pool.getMetadata().getName();
    List<Pod> pods = live.pods();
    List<PodView> views =
        pods.stream().map(p -> PodView.of(p, name)).flatMap(Optional::stream).toList();
    Map<String, ImageCheck.Result> checks = new HashMap<>();
    Duration checkTimeout = stepTimeout(upgrade(pool.getSpec()));
    pods.stream()
        .filter(ImageCheck::isCheckPod)
        .forEach(
            p ->
                ImageCheck.imageOf(p)
                    .ifPresent(
                        image ->
                            checks.put(image, ImageCheck.read(p, clock.instant(), checkTimeout))));
    DataPlaneSettings settings = DataPlaneSettings.of(pool);
    ReleaseGate.Release target = new ReleaseGate.Release(settings.version(), settings.image());
    Optional<ReleaseGate.Release> deployed =
        live.masters()
            .map(m -> new ReleaseGate.Release(m.release(), m.image()))
            .filter(r -> r.version() != null && r.image() != null);
    Set<String> releases = new TreeSet<>();
    views.forEach(
        v -> {
          if (v.release() != null) {
            releases.add(v.release());
          }
        });
    Set<String> protocols = new TreeSet<>();
    leader
        .filter(MasterStatus::leading)
        .ifPresent(
            m -> {
              if (m.protocolVersion() != null) {
                protocols.add(m.protocolVersion());
              }
              m.nodes().stream()
                  .filter(n -> n.nodeState() != NodeState.DEAD && n.protocolVersion() != null)
                  .forEach(n -> protocols.add(n.protocolVersion()));
            });
    UpgradeSpec upgrade = upgrade(pool.getSpec());
    ReleaseGate.Decision gate =
        ReleaseGate.decide(
            new ReleaseGate.Inputs(
                target,
                Boolean.TRUE.equals(upgrade.getAllowDowngrade()),
                deployed,
                releases,
                protocols,
                checks,
                pool.getStatus() == null ? null : pool.getStatus().getUpgrade()));
    Optional<Integer> currentStorage = live.storage().map(StatefulSetView::replicas);
    List<PodView> storage =
        views.stream().filter(v -> v.component() == PoolLabels.Component.STORAGE).toList();
    PoolRollout rollout =
        new PoolRollout(
            gate.render().version(),
            gate.render().image(),
            StorageReplicas.render(settings.storageReplicas(), currentStorage, storage));
    return new RolloutRound(pool, live, leader, clock, views, checks, target, gate, rollout);
  }

  public ReleaseGate.Decision gate() {
    return gate;
  }

  /**
   * What the dependents render in this reconciliation: the release the gate allows, the storage
   * replicas.
   */
  public PoolRollout rollout() {
    return rollout;
  }

  /** What {@link #finish} found and did. */
  public record Result(
      RolloutPlan plan,
      UpgradeStatus status,
      List<PoolEvent> events,
      ReleaseGate.Decision gate,
      String failure) {
    /** Whether pods are being replaced, removed or checked: reconcile again soon. */
    public boolean active() {
      return gate.verdict() == ReleaseGate.Verdict.CHECKING
          || plan != null && !(plan.action() instanceof RolloutPlan.Done);
    }
  }

  /**
   * Plans and takes the next step, after the workflow applied what {@link #rollout()} renders (only
   * when the spec is valid), and computes status.upgrade.
   *
   * @param transport the transport the storage StatefulSet was rendered with
   * @param adminBase where the leader's admin API is
   * @param adminToken the pool's admin token (empty without keys), for the drains and step-downs
   */
  public Result finish(
      RolloutExecutor executor,
      TransportSettings transport,
      Optional<URI> adminBase,
      String adminToken) {
    UpgradeStatus previous = pool.getStatus() == null ? null : pool.getStatus().getUpgrade();
    if (live.masters().isEmpty() || live.storage().isEmpty()) {
      return new Result(null, previous, List.of(), gate, null);
    }
    // what this reconciliation rendered, and the workflow applied
    String masterTemplate = StatefulSetView.templateOf(StatefulSets.master(pool, rollout));
    String storageTemplate =
        StatefulSetView.templateOf(StatefulSets.storage(pool, transport, rollout));
    UpgradeSpec upgrade = upgrade(pool.getSpec());
    RolloutObservation.Policy policy =
        new RolloutObservation.Policy(
            Boolean.TRUE.equals(upgrade.getPaused()),
            stepTimeout(upgrade),
            upgrade.getOnFailure() == null
                ? UpgradeFailurePolicy.valueOf(UpgradeSpec.DEFAULT_ON_FAILURE)
                : upgrade.getOnFailure(),
            gate.verdict() == ReleaseGate.Verdict.ROLLING_BACK);
    Map<String, Integer> formats = new LinkedHashMap<>();
    checks.forEach(
        (image, result) -> {
          if (result.declared() != null) {
            formats.put(image, result.declared().inventoryFormat());
          }
        });
    DataPlaneSettings settings = DataPlaneSettings.of(pool);
    List<PodView> masters =
        views.stream().filter(v -> v.component() == PoolLabels.Component.MASTER).toList();
    List<PodView> storage =
        views.stream().filter(v -> v.component() == PoolLabels.Component.STORAGE).toList();
    Set<String> neededChecks = neededChecks(storage);
    Set<String> checking = new TreeSet<>();
    neededChecks.forEach(
        image -> {
          ImageCheck.Result result = checks.get(image);
          if (result == null || result.state() == ImageCheck.Result.State.PENDING) {
            checking.add(image);
          }
        });
    RolloutObservation observed =
        new RolloutObservation(
            pool.getMetadata().getName(),
            rollout.version(),
            rollout.image(),
            masterTemplate,
            storageTemplate,
            settings.masterReplicas(),
            settings.storageReplicas(),
            rollout.storageReplicas().orElse(settings.storageReplicas()),
            masters,
            storage,
            leader,
            settings.objectReplicas(),
            MemoryFileVolume.of(pool).isPresent(),
            formats,
            checking,
            policy,
            Optional.ofNullable(previous).map(UpgradeStatus::getStep),
            clock.instant());
    RolloutPlan plan = UpgradePlanner.plan(observed);
    boolean templatesTaken =
        live.masters().get().settled(masterTemplate)
            && live.storage().get().settled(storageTemplate);
    if (plan.action() instanceof RolloutPlan.Replace && !templatesTaken) {
      // the StatefulSet controller must have the template before a pod is deleted, or it recreates
      // the old one
      plan =
          new RolloutPlan(
              plan.phase(),
              new RolloutPlan.Wait(
                  plan.action().pod(),
                  "waiting for the StatefulSet"
                      + " controller to take the new templates before "
                      + plan.action().describe()),
              plan.updated(),
              plan.total());
    }
    RolloutExecutor.Outcome outcome =
        executor.execute(pool, plan.action(), byName(), adminBase, adminToken);
    Optional<String> checkFailure = keepImageChecks(executor, neededChecks);
    String failure = outcome.failure() != null ? outcome.failure() : checkFailure.orElse(null);
    Set<String> releases = new TreeSet<>();
    views.forEach(
        v -> {
          if (v.release() != null) {
            releases.add(v.release());
          }
        });
    RolloutStatus.Update update =
        RolloutStatus.next(
            previous,
            new RolloutStatus.Round(
                target,
                gate,
                plan,
                observed,
                releases,
                outcome.acted(),
                outcome.event(),
                failure,
                policy.onFailure(),
                clock.instant()));
    return new Result(plan, update.status(), update.events(), gate, failure);
  }

  /**
   * The check the gate waits for; with warm restarts, while a release changes, also the checks of
   * the rendered image and of every image a storage pod runs (the warm-restart rule compares their
   * inventory formats).
   */
  private Set<String> neededChecks(List<PodView> storage) {
    Set<String> needed = new TreeSet<>();
    gate.checkImage().ifPresent(needed::add);
    boolean releaseChanging =
        gate.verdict() == ReleaseGate.Verdict.CHECKING
            || views.stream()
                .anyMatch(v -> v.release() != null && !v.release().equals(rollout.version()));
    if (releaseChanging && MemoryFileVolume.of(pool).isPresent()) {
      needed.add(rollout.image());
      storage.stream().map(PodView::image).filter(i -> i != null).forEach(needed::add);
    }
    return needed;
  }

  /**
   * Creates the check pods {@code needed}, removes the others; says why a needed one could not be
   * created.
   */
  private Optional<String> keepImageChecks(RolloutExecutor executor, Set<String> needed) {
    String pullPolicy = DataPlaneSettings.of(pool).imagePullPolicy();
    Optional<String> failure = Optional.empty();
    for (String image : needed) {
      Optional<String> refused = executor.ensureImageCheck(pool, image, pullPolicy, live.pods());
      failure = failure.or(() -> refused);
    }
    executor.removeImageChecks(
        pool, live.pods().stream().filter(ImageCheck::isCheckPod).toList(), needed);
    return failure;
  }

  private Map<String, Pod> byName() {
    Map<String, Pod> out = new HashMap<>();
    live.pods().forEach(p -> out.put(p.getMetadata().getName(), p));
    return out;
  }

  private static Duration stepTimeout(UpgradeSpec upgrade) {
    return DataPlaneDurations.parse(upgrade.getStepTimeout())
        .orElseGet(() -> DataPlaneDurations.parse(UpgradeSpec.DEFAULT_STEP_TIMEOUT).orElseThrow());
  }

  private static UpgradeSpec upgrade(KvCachePoolSpec spec) {
    return spec == null || spec.getUpgrade() == null ? new UpgradeSpec() : spec.getUpgrade();
  }
}
