package io.kvpool.operator.pool;

import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
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
import io.kvpool.api.v1alpha1.KvCachePool;
import io.kvpool.api.v1alpha1.TransferEngine;
import io.kvpool.operator.common.KubernetesEventRecorder;
import io.kvpool.operator.common.PoolLabels;
import io.kvpool.operator.common.PoolLabels.Component;
import io.kvpool.operator.pool.dependents.ClientConfigMapDependent;
import io.kvpool.operator.pool.dependents.MasterDisruptionBudgetDependent;
import io.kvpool.operator.pool.dependents.MasterLeaderServiceDependent;
import io.kvpool.operator.pool.dependents.MasterPeerServiceDependent;
import io.kvpool.operator.pool.dependents.MasterRoleBindingDependent;
import io.kvpool.operator.pool.dependents.MasterRoleDependent;
import io.kvpool.operator.pool.dependents.MasterServiceAccountDependent;
import io.kvpool.operator.pool.dependents.MasterStatefulSetDependent;
import io.kvpool.operator.pool.dependents.PoolConfigMapDependent;
import io.kvpool.operator.pool.dependents.StorageDisruptionBudgetDependent;
import io.kvpool.operator.pool.dependents.StorageServiceDependent;
import io.kvpool.operator.pool.dependents.StorageStatefulSetDependent;
import io.quarkiverse.operatorsdk.annotations.RBACRule;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reconciles a KvCachePool: validate → apply the dependents (only for a valid spec, so an invalid
 * change leaves the last valid objects running) → observe → patch the status when it changed.
 * The workflow is invoked explicitly for that reason; owner references delete everything with the pool.
 */
@Singleton
@ControllerConfiguration(name = KvCachePoolReconciler.NAME)
@Workflow(explicitInvocation = true, dependents = {
    @Dependent(name = "master-service-account", type = MasterServiceAccountDependent.class),
    @Dependent(name = "master-role", type = MasterRoleDependent.class),
    @Dependent(name = "master-role-binding", type = MasterRoleBindingDependent.class,
        dependsOn = {"master-service-account", "master-role"}),
    @Dependent(name = KvCachePoolReconciler.CONFIG_MAPS, type = PoolConfigMapDependent.class),
    @Dependent(name = "client-config", type = ClientConfigMapDependent.class,
        useEventSourceWithName = KvCachePoolReconciler.CONFIG_MAPS),
    @Dependent(name = KvCachePoolReconciler.SERVICES, type = MasterPeerServiceDependent.class),
    @Dependent(name = "master-leader-service", type = MasterLeaderServiceDependent.class,
        useEventSourceWithName = KvCachePoolReconciler.SERVICES),
    @Dependent(name = "storage-service", type = StorageServiceDependent.class,
        useEventSourceWithName = KvCachePoolReconciler.SERVICES),
    @Dependent(name = KvCachePoolReconciler.STATEFUL_SETS, type = MasterStatefulSetDependent.class,
        dependsOn = {"master-role-binding", KvCachePoolReconciler.CONFIG_MAPS, KvCachePoolReconciler.SERVICES}),
    @Dependent(name = "storage-statefulset", type = StorageStatefulSetDependent.class,
        dependsOn = {KvCachePoolReconciler.CONFIG_MAPS, "storage-service"},
        useEventSourceWithName = KvCachePoolReconciler.STATEFUL_SETS),
    @Dependent(name = KvCachePoolReconciler.DISRUPTION_BUDGETS, type = MasterDisruptionBudgetDependent.class),
    @Dependent(name = "storage-pdb", type = StorageDisruptionBudgetDependent.class,
        useEventSourceWithName = KvCachePoolReconciler.DISRUPTION_BUDGETS),
})
@RBACRule(apiGroups = "", resources = "events", verbs = {"create"})
@RBACRule(apiGroups = "", resources = "pods", verbs = {"get", "list"})
@RBACRule(apiGroups = "kvpool.io", resources = "transferengines", verbs = {"get", "list", "watch"})
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
  private static final Logger LOG = LoggerFactory.getLogger(KvCachePoolReconciler.class);

  private final PoolAdminClient adminClient;
  private final MasterAddressResolver addressResolver;
  private final PoolStatusAggregator aggregator;
  private final Duration statusInterval;

  @Inject
  public KvCachePoolReconciler(PoolAdminClient adminClient, MasterAddressResolver addressResolver, Clock clock,
      PoolOperatorSettings settings) {
    this.adminClient = adminClient;
    this.addressResolver = addressResolver;
    this.aggregator = new PoolStatusAggregator(clock);
    this.statusInterval = settings.statusInterval();
  }

  @Override
  public List<EventSource<?, KvCachePool>> prepareEventSources(EventSourceContext<KvCachePool> context) {
    return List.of(TransferEngineToPools.eventSource(context));
  }

  @Override
  public UpdateControl<KvCachePool> reconcile(KvCachePool pool, Context<KvCachePool> context) {
    Optional<TransferEngine> engine = context.getSecondaryResource(TransferEngine.class);
    List<String> problems = PoolSpecValidator.validate(pool, engine, statefulSet(context, PoolNames.master(pool)));
    if (problems.isEmpty()) {
      context.managedWorkflowAndDependentResourceContext().reconcileManagedWorkflow();
    } else {
      LOG.debug("pool={} namespace={} spec invalid, dependents left as they run: {}", pool.getMetadata().getName(),
          pool.getMetadata().getNamespace(), problems);
    }
    updateStatus(pool, context, observe(pool, context, problems, null));
    // Status is re-read from the leader on a timer: nothing in Kubernetes signals a change of its figures.
    return UpdateControl.<KvCachePool>noUpdate().rescheduleAfter(statusInterval);
  }

  /** Applying the dependents failed (API error, conflict...): say so in the status; JOSDK retries with backoff. */
  @Override
  public ErrorStatusUpdateControl<KvCachePool> updateErrorStatus(KvCachePool pool, Context<KvCachePool> context,
      Exception e) {
    updateStatus(pool, context, observe(pool, context, List.of(), e.getClass().getSimpleName() + ": " + e.getMessage()));
    return ErrorStatusUpdateControl.noStatusUpdate();
  }

  /**
   * Patches the status when it differs from the stored one, then publishes the transitions' events. The patch
   * goes through JOSDK's cache so the next reconciliation compares with this status even if the informer has not
   * delivered it yet: without that, a quick second reconciliation would see the old status and announce the same
   * transition twice.
   */
  private void updateStatus(KvCachePool pool, Context<KvCachePool> context, PoolObservation observation) {
    PoolStatusUpdate update = aggregator.aggregate(pool.getStatus(), observation);
    if (!update.status().equals(pool.getStatus())) {
      KvCachePool patch = new KvCachePool();
      patch.setMetadata(new ObjectMetaBuilder().withName(pool.getMetadata().getName())
          .withNamespace(pool.getMetadata().getNamespace()).build());
      patch.setStatus(update.status());
      PrimaryUpdateAndCacheUtils.ssaPatchStatusAndCacheResource(pool, patch, context);
    }
    KubernetesEventRecorder recorder = new KubernetesEventRecorder(context.getClient());
    update.events().forEach(e -> recorder.record(pool, e.reason().type(), e.reason().name(), e.message()));
  }

  private PoolObservation observe(KvCachePool pool, Context<KvCachePool> context, List<String> problems,
      String reconcileError) {
    Optional<ReplicaState> masters = statefulSet(context, PoolNames.master(pool)).map(ReplicaState::of);
    Optional<ReplicaState> storage = statefulSet(context, PoolNames.storage(pool)).map(ReplicaState::of);
    Optional<MasterStatus> master = Optional.empty();
    String masterError = null;
    if (masters.isEmpty() || masters.get().ready() == 0) {
      masterError = "no master pod is ready yet";
    } else {
      try {
        master = Optional.of(adminClient.status(addressResolver.adminBase(pool)));
      } catch (PoolAdminException e) {
        masterError = e.getMessage();
      }
    }
    return new PoolObservation(
        pool.getMetadata().getGeneration(),
        pool.getSpec().getVersion(),
        DataPlaneSettings.of(pool).objectReplicas(),
        problems,
        masters,
        storage,
        master,
        masterError,
        master.isPresent() && master.get().leader() == null ? leaderPod(pool, context) : Optional.empty(),
        PoolLabels.selectorString(pool, Component.STORAGE),
        reconcileError);
  }

  private static Optional<StatefulSet> statefulSet(Context<KvCachePool> context, String name) {
    return context.getSecondaryResourcesAsStream(StatefulSet.class)
        .filter(sts -> name.equals(sts.getMetadata().getName()))
        .findFirst();
  }

  /** The pod the elected master labelled as leader, for masters whose /status does not name themselves. */
  private static Optional<String> leaderPod(KvCachePool pool, Context<KvCachePool> context) {
    Map<String, String> selector = PoolLabels.selector(pool, Component.MASTER);
    selector.put(PoolLabels.ROLE, PoolLabels.ROLE_LEADER);
    return context.getClient().pods().inNamespace(pool.getMetadata().getNamespace()).withLabels(selector)
        .list().getItems().stream().map(Pod::getMetadata).map(ObjectMeta::getName).findFirst();
  }
}
