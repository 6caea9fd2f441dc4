package io.kvpool.operator.pool;

import io.kvpool.api.v1alpha1.KvCachePool;
import io.kvpool.operator.common.PoolLabels.Component;

/** Names of the objects the operator creates for a pool; one place so tests and dependents agree. */
public final class PoolNames {
  private PoolNames() {
  }

  public static String master(KvCachePool pool) {
    return pool.getMetadata().getName() + "-master";
  }

  public static String masterPeers(KvCachePool pool) {
    return pool.getMetadata().getName() + "-master-peers";
  }

  public static String storage(KvCachePool pool) {
    return pool.getMetadata().getName() + "-storage";
  }

  /** The StatefulSet and disruption budget of a data-plane component. */
  public static String of(KvCachePool pool, Component component) {
    return component == Component.MASTER ? master(pool) : storage(pool);
  }

  public static String poolConfig(KvCachePool pool) {
    return pool.getMetadata().getName() + "-config";
  }

  public static String clientConfig(KvCachePool pool) {
    return pool.getMetadata().getName() + "-client";
  }

  /** The coordination.k8s.io Lease the masters elect their leader with. */
  public static String leaderLease(KvCachePool pool) {
    return pool.getMetadata().getName() + "-leader";
  }

  /** In-cluster address of the leader's RPC port, through the leader Service. */
  public static String masterAddress(KvCachePool pool, int port) {
    return master(pool) + "." + pool.getMetadata().getNamespace() + ".svc:" + port;
  }
}
