package io.kvpool.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonProperty;

/** How storage segments are backed by huge pages; serialised lowercase as in the CRD. */
public enum HugePages {
  @JsonProperty("none")
  NONE,
  @JsonProperty("transparent")
  TRANSPARENT,
  @JsonProperty("explicit")
  EXPLICIT
}
