package io.kvpool.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Size;
import java.util.Objects;

/**
 * The pool's NetworkPolicy: its data ports are reachable from the pool's own pods and from pods
 * labelled {@code kvpool.io/client: <pool>}; its admin ports also from the operator's namespace and
 * a monitoring namespace.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class NetworkPolicySpec {
  /** CRD default, stated once (see {@link KvCachePoolSpec}). */
  public static final boolean DEFAULT_ENABLED = true;

  @SpecDiff(SpecDiff.Impact.LIVE)
  @Default("" + DEFAULT_ENABLED)
  @JsonPropertyDescription(
      "Create the NetworkPolicy <pool> (needs a CNI that enforces NetworkPolicies).")
  private Boolean enabled;

  @SpecDiff(SpecDiff.Impact.LIVE)
  @Pattern("^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")
  @Size(max = 63)
  @JsonPropertyDescription(
      "Namespace whose pods (e.g. Prometheus) may reach the admin ports for /metrics.")
  private String monitoringNamespace;

  @SpecDiff(SpecDiff.Impact.LIVE)
  @Default("false")
  @JsonPropertyDescription(
      "Let client pods of every namespace in (those labelled kvpool.io/client: <pool>); by"
          + " default only the pool's own namespace.")
  private Boolean clientsFromAllNamespaces;

  public Boolean getEnabled() {
    return enabled;
  }

  public void setEnabled(Boolean enabled) {
    this.enabled = enabled;
  }

  public String getMonitoringNamespace() {
    return monitoringNamespace;
  }

  public void setMonitoringNamespace(String monitoringNamespace) {
    this.monitoringNamespace = monitoringNamespace;
  }

  public Boolean getClientsFromAllNamespaces() {
    return clientsFromAllNamespaces;
  }

  public void setClientsFromAllNamespaces(Boolean clientsFromAllNamespaces) {
    this.clientsFromAllNamespaces = clientsFromAllNamespaces;
  }

  @Override
  public boolean equals(Object o) {
    if (this == o) {
      return true;
    }
    if (!(o instanceof NetworkPolicySpec that)) {
      return false;
    }
    return Objects.equals(enabled, that.enabled)
        && Objects.equals(monitoringNamespace, that.monitoringNamespace)
        && Objects.equals(clientsFromAllNamespaces, that.clientsFromAllNamespaces);
  }

  @Override
  public int hashCode() {
    return Objects.hash(enabled, monitoringNamespace, clientsFromAllNamespaces);
  }

  @Override
  public String toString() {
    return "NetworkPolicySpec{enabled="
        + enabled
        + ", monitoringNamespace="
        + monitoringNamespace
        + ", clientsFromAllNamespaces="
        + clientsFromAllNamespaces
        + "}";
  }
}
