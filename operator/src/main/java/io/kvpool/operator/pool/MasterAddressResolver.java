package io.kvpool.operator.pool;

import io.kvpool.api.v1alpha1.KvCachePool;
import java.net.URI;

/**
 * Where the operator finds a pool's leading master admin API. In the cluster that is the leader Service;
 * tests and an operator running outside the cluster plug in another resolution.
 */
@FunctionalInterface
public interface MasterAddressResolver {

  URI adminBase(KvCachePool pool);

  /** {@code http://<pool>-master.<ns>.svc:<adminPort>}: the leader Service, for an in-cluster operator. */
  static MasterAddressResolver leaderService() {
    return pool -> URI.create("http://" + PoolNames.masterAddress(pool, DataPlaneSettings.of(pool).masterAdminPort()));
  }
}
