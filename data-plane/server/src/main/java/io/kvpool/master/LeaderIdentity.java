package io.kvpool.master;

/**
 * How a master names itself in the leader Lease: {@code <pod>|<rpc endpoint>|<admin endpoint>}, so
 * that standbys, storage nodes and the operator learn where the leader serves from the Lease alone.
 */
record LeaderIdentity(String pod, String rpcEndpoint, String adminEndpoint) {
  String encode() {
    return pod + "|" + rpcEndpoint + "|" + adminEndpoint;
  }

  /** Null when {@code identity} is not of this form (e.g. a Lease held by something else). */
  static LeaderIdentity decode(String identity) {
    if (identity == null) {
      return null;
    }
    String[] parts = identity.split("\\|", -1);
    return parts.length == 3 ? new LeaderIdentity(parts[0], parts[1], parts[2]) : null;
  }
}
