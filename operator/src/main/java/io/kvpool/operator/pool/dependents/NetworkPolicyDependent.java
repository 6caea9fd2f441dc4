package io.kvpool.operator.pool.dependents;

import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.javaoperatorsdk.operator.api.config.informer.Informer;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.CRUDKubernetesDependentResource;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.KubernetesDependent;
import io.kvpool.api.v1alpha1.KvCachePool;
import io.kvpool.operator.common.PoolLabels;
import io.kvpool.operator.render.NetworkPolicies;

/** {@code <pool>} ({@link NetworkPolicies#of}), letting the operator in from its own namespace. */
@KubernetesDependent(informer = @Informer(labelSelector = PoolLabels.MANAGED_SELECTOR))
public class NetworkPolicyDependent
    extends CRUDKubernetesDependentResource<NetworkPolicy, KvCachePool> {

  public NetworkPolicyDependent() {
    super(NetworkPolicy.class);
  }

  @Override
  protected NetworkPolicy desired(KvCachePool pool, Context<KvCachePool> context) {
    return NetworkPolicies.of(pool, context.getClient().getNamespace());
  }
}
