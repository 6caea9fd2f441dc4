package io.kvpool.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonProperty;

/** Transport between storage nodes and clients; serialised lowercase as in the CRD. */
public enum TransferProtocol {
  @JsonProperty("tcp")
  TCP,
  @JsonProperty("rdma")
  RDMA,
  @JsonProperty("ascend")
  ASCEND
}
