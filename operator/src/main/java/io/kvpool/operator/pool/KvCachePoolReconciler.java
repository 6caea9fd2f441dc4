package io.kvpool.operator.pool;

import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.ControllerConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.ErrorStatusUpdateControl;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.api.reconciler.PrimaryUpdateAndCacheUtils;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import io.javaoperatorsdk.operator.api.reconciler.Workflow;
import io.javaoperatorsdk.operator.api.reconciler.dependent.Dependent;
import io.javaoperatorsdk.operator.processing.event.source.EventSource;
import io.javaoperatorsdk.operator.processing.retry.GradualRetry;
import io.kvpool.api.v1alpha1.KvCachePool;
import io.kvpool.api.v1alpha1.RolloutPhase;
import io.kvpool.api.v1alpha1.TransferEngine;
import io.kvpool.operator.admin.MasterAddressResolver;
import io.kvpool.operator.admin.PoolAdminClient;
import io.kvpool.operator.autoscale.AutoscalingOutcome;
import io.kvpool.operator.autoscale.PoolAutoscaler;
import io.kvpool.operator.common.ControllerStopping;
import io.kvpool.operator.common.KubernetesEventRecorder;
import io.kvpool.operator.observe.PoolObserver;
import io.kvpool.operator.observe.Snapshot;
import io.kvpool.operator.pool.dependents.ClientConfigMapDependent;
import io.kvpool.operator.pool.dependents.ClientKeySecretDependent;
import io.kvpool.operator.pool.dependents.KeysSecretDependent;
import io.kvpool.operator.pool.dependents.MasterDisruptionBudgetDependent;
import io.kvpool.operator.pool.dependents.MasterLeaderServiceDependent;
import io.kvpool.operator.pool.dependents.MasterPeerServiceDependent;
import io.kvpool.operator.pool.dependents.MasterRoleBindingDependent;
import io.kvpool.operator.pool.dependents.MasterRoleDependent;
import io.kvpool.operator.pool.dependents.MasterServiceAccountDependent;
import io.kvpool.operator.pool.dependents.MasterStatefulSetDependent;
import io.kvpool.operator.pool.dependents.NetworkPolicyDependent;
import io.kvpool.operator.pool.dependents.PoolConfigMapDependent;
import io.kvpool.operator.pool.dependents.RenderInputs;
import io.kvpool.operator.pool.dependents.SecurityConditions;
import io.kvpool.operator.pool.dependents.StorageDisruptionBudgetDependent;
import io.kvpool.operator.pool.dependents.StorageServiceDependent;
import io.kvpool.operator.pool.dependents.StorageStatefulSetDependent;
import io.kvpool.operator.render.DiskTierCheck;
import io.kvpool.operator.render.PoolPreflight;
import io.kvpool.operator.render.PoolSpecValidator;
import io.kvpool.operator.rollout.RolloutExecutor;
import io.kvpool.operator.rollout.RolloutRound;
import io.kvpool.operator.status.PoolObservation;
import io.kvpool.operator.status.PoolStatusAggregator;
import io.kvpool.operator.status.PoolStatusUpdate;
import io.kvpool.operator.status.ReconcileFailure;
import io.kvpool.operator.transferengine.EnginePreflight;
import io.quarkiverse.operatorsdk.annotations.RBACRule;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reconciles a KvCachePool: check the spec (validator, then a server-side dry run of the
 * StatefulSets it renders) → apply the dependents, only for a valid spec, so an invalid change
 * creates nothing and leaves the last valid objects running → observe → patch the status when it
 * changed. The workflow is invoked explicitly for that reason; owner references delete everything
 * with the pool. A failed apply (an object of the same name in the way, an API error) is retried
 * forever with a backoff capped at 15 s, so removing the obstacle heals the pool by itself, and the
 * failure is in the status meanwhile.
 */
@Singleton
@ControllerConfiguration(name = KvCachePoolReconciler.NAME)
@Workflow(
    explicitInvocation = true,
    dependents = {
      @Dependent(name = "master-service-account", type = MasterServiceAccountDependent.class),
      @Dependent(name = "master-role", type = MasterRoleDependent.class),
      @Dependent(
          name = "master-role-binding",
          type = MasterRoleBindingDependent.class,
          dependsOn = {"master-service-account", "master-role"}),
      @Dependent(name = KvCachePoolReconciler.CONFIG_MAPS, type = PoolConfigMapDependent.class),
      @Dependent(
          name = "client-config",
          type = ClientConfigMapDependent.class,
          useEventSourceWithName = KvCachePoolReconciler.CONFIG_MAPS),
      @Dependent(name = KvCachePoolReconciler.SERVICES, type = MasterPeerServiceDependent.class),
      @Dependent(
          name = "master-leader-service",
          type = MasterLeaderServiceDependent.class,
          useEventSourceWithName = KvCachePoolReconciler.SERVICES),
      @Dependent(
          name = "storage-service",
          type = StorageServiceDependent.class,
          useEventSourceWithName = KvCachePoolReconciler.SERVICES),
      @Dependent(
          name = KvCachePoolReconciler.SECRETS,
          type = KeysSecretDependent.class,
          reconcilePrecondition = SecurityConditions.AuthenticationOn.class,
          readyPostcondition = SecurityConditions.KeysReadable.class),
      @Dependent(
          name = "client-key-secret",
          type = ClientKeySecretDependent.class,
          dependsOn = KvCachePoolReconciler.SECRETS,
          reconcilePrecondition = SecurityConditions.AuthenticationOn.class,
          useEventSourceWithName = KvCachePoolReconciler.SECRETS),
      @Dependent(
          name = "network-policy",
          type = NetworkPolicyDependent.class,
          reconcilePrecondition = SecurityConditions.NetworkPolicyOn.class),
      @Dependent(
          name = KvCachePoolReconciler.STATEFUL_SETS,
          type = MasterStatefulSetDependent.class,
          dependsOn = {
            "master-role-binding",
            KvCachePoolReconciler.CONFIG_MAPS,
            KvCachePoolReconciler.SERVICES
          }),
      @Dependent(
          name = "storage-statefulset",
          type = StorageStatefulSetDependent.class,
          dependsOn = {KvCachePoolReconciler.CONFIG_MAPS, "storage-service"},
          useEventSourceWithName = KvCachePoolReconciler.STATEFUL_SETS),
      @Dependent(
          name = KvCachePoolReconciler.DISRUPTION_BUDGETS,
          type = MasterDisruptionBudgetDependent.class),
      @Dependent(
          name = "storage-pdb",
          type = StorageDisruptionBudgetDependent.class,
          useEventSourceWithName = KvCachePoolReconciler.DISRUPTION_BUDGETS),
    })
@GradualRetry(
    maxAttempts = -1,
    initialInterval = 1_000,
    intervalMultiplier = 2,
    maxInterval = 15_000)
@RBACRule(
    apiGroups = "",
    resources = "events",
    verbs = {"create"})
// pods: watched for status; deleted one at a time by rollouts, patched to mark a drained pod,
// created for image checks
@RBACRule(
    apiGroups = "",
    resources = "pods",
    verbs = {"get", "list", "watch", "create", "delete", "patch"})
@RBACRule(
    apiGroups = "kvpool.io",
    resources = "transferengines",
    verbs = {"get", "list", "watch"})
// spec.storage.replicas, written by autoscaling (spec.storage.autoscaling.enabled)
@RBACRule(
    apiGroups = "kvpool.io",
    resources = "kvcachepools",
    verbs = {"patch"})
public class KvCachePoolReconciler implements Reconciler<KvCachePool> {
  public static final String NAME = "kvcachepool";
  /*
   * A dependent's informer is named after the dependent. Dependents of the same kind share the informer of the
   * first one (useEventSourceWithName): all of them watch the same managed-by label, so a second informer would
   * only hold a second copy of the same objects. Each dependent still finds its own object by name.
   */
  static final String CONFIG_MAPS = "pool-config";
  static final String SERVICES = "master-peer-service";
  static final String STATEFUL_SETS = "master-statefulset";
  static final String DISRUPTION_BUDGETS = "master-pdb";
  static final String SECRETS = "keys-secret";
  private static final Logger LOG = LoggerFactory.getLogger(KvCachePoolReconciler.class);

  private final PoolAdminClient adminClient;
  private final PoolObserver observer;
  private final PoolStatusAggregator aggregator;
  private final Clock clock;
  private final Duration statusInterval;
  private final StatefulSetDryRun dryRun = new StatefulSetDryRun();
  private final PoolAutoscaler autoscaler = new PoolAutoscaler();

  @Inject
  public KvCachePoolReconciler(
      PoolAdminClient adminClient,
      MasterAddressResolver addressResolver,
      Clock clock,
      PoolOperatorSettings settings) {
    this.adminClient = adminClient;
    this.observer = new PoolObserver(adminClient, addressResolver);
    this.clock = clock;
    this.aggregator = new PoolStatusAggregator(clock);
    this.statusInterval = settings.statusInterval();
  }

  @Override
  public List<EventSource<?, KvCachePool>> prepareEventSources(
      EventSourceContext<KvCachePool> context) {
    return List.of(TransferEngineToPools.eventSource(context), PoolPods.eventSource(context));
  }

  /**
   * Observe ({@link PoolObserver}: the StatefulSets, the pods and the leader, read once) → spec
   * check → the rollout's release decision ({@link RolloutRound#begin}) → apply the dependents →
   * the rollout's next step ({@link RolloutRound#finish}) → status. An invalid spec applies nothing
   * and moves no rollout.
   */
  @Override
  public UpdateControl<KvCachePool> reconcile(KvCachePool pool, Context<KvCachePool> context) {
    Snapshot observed = observer.observe(pool, context);
    Optional<TransferEngine> engine = context.getSecondaryResource(TransferEngine.class);
    List<EnginePreflight.Finding> preflight = PoolPreflight.findings(pool, engine);
    List<String> problems = specProblems(pool, context, engine, observed, preflight);
    RolloutRound.Result rollout = null;
    Optional<AutoscalingOutcome> autoscaling = Optional.empty();
    if (problems.isEmpty()) {
      RolloutRound round =
          RolloutRound.begin(pool, observed.rollout(), observed.leader().status(), clock);
      RenderInputs.putRollout(context, round.rollout());
      context.managedWorkflowAndDependentResourceContext().reconcileManagedWorkflow();
      rollout =
          round.finish(
              new RolloutExecutor(context.getClient(), adminClient),
              RenderInputs.transport(pool, context),
              observed.leader().adminBase(),
              KeysSecretDependent.adminToken(pool, context));
      autoscaling = autoscale(pool, context, observed, rollout);
    } else {
      LOG.debug(
          "pool={} namespace={} spec invalid, nothing applied: {}",
          pool.getMetadata().getName(),
          pool.getMetadata().getNamespace(),
          problems);
    }
    updateStatus(
        pool,
        context,
        observed
            .status(problems, null, Optional.ofNullable(rollout))
            .withAutoscaling(autoscaling)
            .withPreflight(preflight));
    // Status is re-read from the leader on a timer: nothing in Kubernetes signals a change of its
    // figures; a rollout
    // (drains, lease recovery) is followed more closely.
    Duration next =
        rollout != null
                && rollout.active()
                && RolloutRound.ACTIVE_INTERVAL.compareTo(statusInterval) < 0
            ? RolloutRound.ACTIVE_INTERVAL
            : statusInterval;
    return UpdateControl.<KvCachePool>noUpdate().rescheduleAfter(next);
  }

  /**
   * Applying the dependents failed (an object in the way, API error...): say so in one sentence in
   * the status, with the generation observed, while the SDK retries (it logs the exception with its
   * stack trace).
   */
  @Override
  public ErrorStatusUpdateControl<KvCachePool> updateErrorStatus(
      KvCachePool pool, Context<KvCachePool> context, Exception e) {
    String failure = ReconcileFailure.describe(e);
    LOG.debug(
        "pool={} namespace={} reconcile failed: {}",
        pool.getMetadata().getName(),
        pool.getMetadata().getNamespace(),
        failure);
    updateStatus(
        pool,
        context,
        observer
            .observe(pool, context)
            .status(List.of(), failure, Optional.empty())
            .withPreflight(
                PoolPreflight.findings(pool, context.getSecondaryResource(TransferEngine.class))));
    return ErrorStatusUpdateControl.noStatusUpdate();
  }

  /**
   * Autoscaling's round after the rollout's: it holds while surplus nodes drain (the rollout's
   * ScalingDown) and scales down only when no rollout runs; a new replica count is written to the
   * spec, so the next reconciliation renders it (and drains, for fewer).
   */
  private Optional<AutoscalingOutcome> autoscale(
      KvCachePool pool,
      Context<KvCachePool> context,
      Snapshot observed,
      RolloutRound.Result rollout) {
    boolean scalingDown =
        rollout.active()
            && rollout.status() != null
            && rollout.status().getPhase() == RolloutPhase.ScalingDown;
    return autoscaler.reconcile(
        pool,
        observed.leader().status(),
        rollout.active(),
        scalingDown,
        clock.instant(),
        replicas -> {
          boolean written = StorageScale.write(context.getClient(), pool, replicas);
          LOG.info(
              "pool={} namespace={} event=storage_autoscaled replicas={} written={}",
              pool.getMetadata().getName(),
              pool.getMetadata().getNamespace(),
              replicas,
              written);
          return written;
        });
  }

  /**
   * The validator's problems and the blocking preflight findings (checked before any pod exists),
   * else the API server's verdict on the StatefulSets the spec renders.
   */
  private List<String> specProblems(
      KvCachePool pool,
      Context<KvCachePool> context,
      Optional<TransferEngine> engine,
      Snapshot observed,
      List<EnginePreflight.Finding> preflight) {
    List<String> problems =
        new java.util.ArrayList<>(PoolSpecValidator.validate(pool, engine, observed.masters()));
    problems.addAll(PoolPreflight.problems(preflight, engine));
    problems.addAll(DiskTierCheck.claimChange(pool, observed.storage()));
    if (!problems.isEmpty()) {
      return problems;
    }
    return dryRun.problems(
        context.getClient(),
        context.getControllerConfiguration().fieldManager(),
        pool,
        RenderInputs.transport(pool, context),
        engine);
  }

  /**
   * Patches the status when it differs from the stored one, then publishes the transitions' events.
   * The patch goes through JOSDK's cache so the next reconciliation compares with this status even
   * if the informer has not delivered it yet: without that, a quick second reconciliation would see
   * the old status and announce the same transition twice.
   */
  private void updateStatus(
      KvCachePool pool, Context<KvCachePool> context, PoolObservation observation) {
    if (ControllerStopping.now(context)) {
      // what this reconciliation observed may come from emptied caches; the next operator writes it
      // from a full view
      LOG.info(
          "pool={} namespace={} operator stopping: status and events left to the next reconciliation",
          pool.getMetadata().getName(),
          pool.getMetadata().getNamespace());
      return;
    }
    PoolStatusUpdate update = aggregator.aggregate(pool.getStatus(), observation);
    if (!update.status().equals(pool.getStatus())) {
      KvCachePool patch = new KvCachePool();
      patch.setMetadata(
          new ObjectMetaBuilder()
              .withName(pool.getMetadata().getName())
              .withNamespace(pool.getMetadata().getNamespace())
              .build());
      patch.setStatus(update.status());
      PrimaryUpdateAndCacheUtils.ssaPatchStatusAndCacheResource(pool, patch, context);
    }
    KubernetesEventRecorder recorder = new KubernetesEventRecorder(context.getClient());
    update
        .events()
        .forEach(e -> recorder.record(pool, e.reason().type(), e.reason().name(), e.message()));
  }
}
