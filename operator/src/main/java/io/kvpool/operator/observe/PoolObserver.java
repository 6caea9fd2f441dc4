package io.kvpool.operator.observe;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.kvpool.admin.MasterStatus;
import io.kvpool.api.v1alpha1.KvCachePool;
import io.kvpool.operator.admin.MasterAddressResolver;
import io.kvpool.operator.admin.PoolAdminClient;
import io.kvpool.operator.admin.PoolAdminException;
import io.kvpool.operator.render.PoolNames;
import io.kvpool.operator.status.ReplicaState;
import java.net.URI;
import java.util.List;
import java.util.Optional;

/**
 * Reads, once per reconciliation and before anything is applied, what the reconciliation decides
 * from: the pool's two StatefulSets and its pods (from the informer caches), and the leader's
 * {@code /status} (one admin call, only once a master is ready). The spec check, the rollout and
 * the status all take what they need from that one {@link Snapshot}, so they never disagree about
 * what they saw.
 */
public final class PoolObserver {
  private final PoolAdminClient admin;
  private final MasterAddressResolver addresses;

  public PoolObserver(PoolAdminClient admin, MasterAddressResolver addresses) {
    this.admin = admin;
    this.addresses = addresses;
  }

  public Snapshot observe(KvCachePool pool, Context<KvCachePool> context) {
    String masterName = PoolNames.master(pool);
    String storageName = PoolNames.storage(pool);
    Optional<StatefulSet> masters = Optional.empty();
    Optional<StatefulSet> storage = Optional.empty();
    for (StatefulSet sts : context.getSecondaryResources(StatefulSet.class)) {
      String name = sts.getMetadata().getName();
      if (masters.isEmpty() && masterName.equals(name)) {
        masters = Optional.of(sts);
      } else if (storage.isEmpty() && storageName.equals(name)) {
        storage = Optional.of(sts);
      }
    }
    List<Pod> pods = context.getSecondaryResourcesAsStream(Pod.class).toList();
    return new Snapshot(pool, masters, storage, pods, leader(pool, masters.map(ReplicaState::of)));
  }

  /** The leader's /status and admin address, or why it cannot be read. */
  private Snapshot.Leader leader(KvCachePool pool, Optional<ReplicaState> masters) {
    if (masters.isEmpty() || masters.get().ready() == 0) {
      return new Snapshot.Leader(Optional.empty(), "no master pod is ready yet", Optional.empty());
    }
    URI base;
    try {
      base = addresses.adminBase(pool);
    } catch (RuntimeException e) {
      return new Snapshot.Leader(
          Optional.empty(),
          "the leader's admin address cannot be built: " + e.getMessage(),
          Optional.empty());
    }
    try {
      MasterStatus status = admin.status(base);
      return new Snapshot.Leader(Optional.of(status), null, Optional.of(base));
    } catch (PoolAdminException e) {
      return new Snapshot.Leader(Optional.empty(), e.getMessage(), Optional.of(base));
    }
  }
}
