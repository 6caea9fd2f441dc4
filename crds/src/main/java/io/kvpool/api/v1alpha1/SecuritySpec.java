package io.kvpool.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Size;
import java.util.Objects;

/** Who may talk to the pool: keys proven in every handshake, optional TLS, and a NetworkPolicy. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class SecuritySpec {
  /** CRD default, stated once (see {@link KvCachePoolSpec}). */
  public static final boolean DEFAULT_AUTHENTICATION = true;

  @SpecDiff(SpecDiff.Impact.RESTART_ALL)
  @Default("" + DEFAULT_AUTHENTICATION)
  @JsonPropertyDescription(
      "Every data-plane connection proves the pool's keys (the operator creates them in the"
          + " Secret <pool>-keys; inference clients use the client key of the Secret <pool>-client-key). Rotate them by"
          + " setting the annotation kvpool.io/rotate-keys on the pool to a new value.")
  private Boolean authentication;

  @SpecDiff(SpecDiff.Impact.RESTART_ALL)
  @Pattern("^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$")
  @Size(max = 253)
  @JsonPropertyDescription(
      "A kubernetes.io/tls Secret in the pool's namespace (tls.crt, tls.key in PKCS#8, ca.crt),"
          + " e.g. from cert-manager: every data-plane connection then runs TLS 1.3. Empty: plaintext.")
  private String tlsSecretName;

  @Default("{}")
  @JsonPropertyDescription("The NetworkPolicy <pool> that limits who reaches the pool's ports.")
  private NetworkPolicySpec networkPolicy;

  public Boolean getAuthentication() {
    return authentication;
  }

  public void setAuthentication(Boolean authentication) {
    this.authentication = authentication;
  }

  public String getTlsSecretName() {
    return tlsSecretName;
  }

  public void setTlsSecretName(String tlsSecretName) {
    this.tlsSecretName = tlsSecretName;
  }

  public NetworkPolicySpec getNetworkPolicy() {
    return networkPolicy;
  }

  public void setNetworkPolicy(NetworkPolicySpec networkPolicy) {
    this.networkPolicy = networkPolicy;
  }

  @Override
  public boolean equals(Object o) {
    if (this == o) {
      return true;
    }
    if (!(o instanceof SecuritySpec that)) {
      return false;
    }
    return Objects.equals(authentication, that.authentication)
        && Objects.equals(tlsSecretName, that.tlsSecretName)
        && Objects.equals(networkPolicy, that.networkPolicy);
  }

  @Override
  public int hashCode() {
    return Objects.hash(authentication, tlsSecretName, networkPolicy);
  }

  @Override
  public String toString() {
    return "SecuritySpec{authentication="
        + authentication
        + ", tlsSecretName="
        + tlsSecretName
        + ", networkPolicy="
        + networkPolicy
        + "}";
  }
}
