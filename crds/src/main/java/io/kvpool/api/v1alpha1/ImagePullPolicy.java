package io.kvpool.api.v1alpha1;

/**
 * Kubernetes image pull policy of the data-plane containers; constants spelled as Kubernetes spells
 * them.
 */
public enum ImagePullPolicy {
  Always,
  IfNotPresent,
  Never
}
