package io.kvpool.operator.pool.dependents;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.dependent.DependentResource;
import io.javaoperatorsdk.operator.processing.dependent.workflow.Condition;
import io.kvpool.api.v1alpha1.KvCachePool;
import io.kvpool.operator.render.PoolNames;
import io.kvpool.operator.render.PoolSecurity;

/** When the security dependents apply: JOSDK deletes one whose precondition stops holding. */
public final class SecurityConditions {
  private SecurityConditions() {}

  /** The pool authenticates peers (spec.security.authentication, on by default). */
  public static final class AuthenticationOn implements Condition<HasMetadata, KvCachePool> {
    @Override
    public boolean isMet(
        DependentResource<HasMetadata, KvCachePool> dependent,
        KvCachePool pool,
        Context<KvCachePool> context) {
      return PoolSecurity.of(pool).authentication();
    }
  }

  /** The keys Secret is in the informer's cache, so what follows it can read it. */
  public static final class KeysReadable implements Condition<HasMetadata, KvCachePool> {
    @Override
    public boolean isMet(
        DependentResource<HasMetadata, KvCachePool> dependent,
        KvCachePool pool,
        Context<KvCachePool> context) {
      return KeysSecretDependent.secret(context, PoolNames.keysSecret(pool)).isPresent();
    }
  }

  /** The pool wants its NetworkPolicy (spec.security.networkPolicy.enabled, on by default). */
  public static final class NetworkPolicyOn implements Condition<HasMetadata, KvCachePool> {
    @Override
    public boolean isMet(
        DependentResource<HasMetadata, KvCachePool> dependent,
        KvCachePool pool,
        Context<KvCachePool> context) {
      return PoolSecurity.of(pool).networkPolicy();
    }
  }
}
