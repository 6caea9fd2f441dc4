package io.kvpool.operator.render;

import io.kvpool.api.v1alpha1.KvCachePool;
import io.kvpool.operator.common.PoolLabels.Component;
import java.util.ArrayList;
import java.util.List;

/**
 * Names of the objects the operator creates for a pool; one place so tests and dependents agree.
 */
public final class PoolNames {
  private PoolNames() {}

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

  /**
   * The Secret with the pool's cluster key, client key and admin token, mounted into masters and
   * storage nodes.
   */
  public static String keysSecret(KvCachePool pool) {
    return pool.getMetadata().getName() + "-keys";
  }

  /** The Secret inference clients take the client key from (and nothing else). */
  public static String clientKeySecret(KvCachePool pool) {
    return pool.getMetadata().getName() + "-client-key";
  }

  /** The coordination.k8s.io Lease the masters elect their leader with. */
  public static String leaderLease(KvCachePool pool) {
    return pool.getMetadata().getName() + "-leader";
  }

  /**
   * Every master's stable DNS name under the headless peer Service, comma-separated, with {@code
   * port}: what storage nodes and clients are given. Any master answers (a standby names the leader
   * in its handshake), so a failover needs no DNS or Service change; the peer Service publishes
   * names before pods are ready.
   */
  public static String masterEndpoints(KvCachePool pool, int masters, int port) {
    List<String> endpoints = new ArrayList<>();
    for (int i = 0; i < masters; i++) {
      endpoints.add(
          master(pool)
              + "-"
              + i
              + "."
              + masterPeers(pool)
              + "."
              + pool.getMetadata().getNamespace()
              + ".svc:"
              + port);
    }
    return String.join(",", endpoints);
  }

  /** In-cluster address of {@code port} on the leader, through the leader Service. */
  public static String leaderServiceAddress(KvCachePool pool, int port) {
    return master(pool) + "." + pool.getMetadata().getNamespace() + ".svc:" + port;
  }
}
