package io.kvpool.operator.pool;

import java.net.URI;

/** Every call the operator makes to a pool's data plane goes through here (real: HTTP; tests: a fake). */
public interface PoolAdminClient {

  /**
   * Reads {@code GET <adminBase>/status} of the master behind {@code adminBase}.
   *
   * @throws PoolAdminException when the master cannot be reached or answers something unusable
   */
  MasterStatus status(URI adminBase) throws PoolAdminException;
}
