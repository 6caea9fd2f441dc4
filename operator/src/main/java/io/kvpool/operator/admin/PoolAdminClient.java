package io.kvpool.operator.admin;

import io.kvpool.admin.MasterStatus;
import java.net.URI;

/**
 * Every call the operator makes to a pool's data plane goes through here (real: HTTP; tests: a
 * fake): the leader's status, and the two mutating admin calls a rollout makes, with the pool's
 * admin token.
 */
public interface PoolAdminClient {

  /**
   * Reads {@code GET <adminBase>/status} of the master behind {@code adminBase}.
   *
   * @throws PoolAdminException when the master cannot be reached or answers something unusable
   */
  MasterStatus status(URI adminBase) throws PoolAdminException;

  /**
   * {@code POST <adminBase>/nodes/<nodeId>/drain}: the leader stops placing on the node and copies
   * its replicas to the other nodes.
   *
   * @param adminToken the pool's admin token, or empty for a pool without keys
   * @throws PoolAdminException when the call fails or the leader refuses (its reason is the
   *     message)
   */
  void drain(URI adminBase, String nodeId, String adminToken) throws PoolAdminException;

  /**
   * {@code POST <adminBase>/step-down}: the leader gives its Lease up so that a standby leads.
   *
   * @throws PoolAdminException when the call fails or the master refuses (not the leader, no
   *     standby)
   */
  void stepDown(URI adminBase, String adminToken) throws PoolAdminException;
}
