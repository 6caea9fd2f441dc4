package io.kvpool.operator.pool.dependents;

import io.javaoperatorsdk.operator.api.config.informer.Informer;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.KubernetesDependent;
import io.kvpool.operator.common.PoolLabels;
import io.kvpool.operator.common.PoolLabels.Component;

/**
 * {@code <pool>-master}: with three masters a node drain never takes the leader and a standby
 * together; a single master stays evictable so drains do not hang forever. Its informer watches
 * every budget of the operator; the storage budget dependent shares it.
 */
@KubernetesDependent(informer = @Informer(labelSelector = PoolLabels.MANAGED_SELECTOR))
public class MasterDisruptionBudgetDependent extends DisruptionBudgetDependent {

  public MasterDisruptionBudgetDependent() {
    super(Component.MASTER);
  }
}
