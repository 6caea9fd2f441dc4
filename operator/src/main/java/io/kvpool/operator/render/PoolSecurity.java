package io.kvpool.operator.render;

import io.kvpool.api.v1alpha1.KvCachePool;
import io.kvpool.api.v1alpha1.NetworkPolicySpec;
import io.kvpool.api.v1alpha1.SecuritySpec;
import java.util.Objects;

/**
 * Who may talk to a pool, from {@code spec.security} (the CRD defaults mirrored, as in {@link
 * DataPlaneSettings}): whether peers prove the pool's keys, the TLS Secret if any, and the
 * NetworkPolicy.
 */
public record PoolSecurity(
    boolean authentication,
    String tlsSecretName,
    boolean networkPolicy,
    String monitoringNamespace,
    boolean clientsFromAllNamespaces) {
  /** Where the keys Secret is mounted in data-plane pods ({@code KVPOOL_SECRET_DIR}). */
  public static final String KEYS_DIR = "/etc/kvpool-keys";

  /** Where the TLS Secret is mounted ({@code KVPOOL_TLS_DIR}). */
  public static final String TLS_DIR = "/etc/kvpool-tls";

  /**
   * The label that lets a pod reach a pool's data ports through its NetworkPolicy: {@code
   * kvpool.io/client: <pool>}.
   */
  public static final String CLIENT_LABEL = "kvpool.io/client";

  public static PoolSecurity of(KvCachePool pool) {
    SecuritySpec s =
        pool.getSpec().getSecurity() == null ? new SecuritySpec() : pool.getSpec().getSecurity();
    NetworkPolicySpec n =
        s.getNetworkPolicy() == null ? new NetworkPolicySpec() : s.getNetworkPolicy();
    String tls =
        s.getTlsSecretName() == null || s.getTlsSecretName().isBlank()
            ? null
            : s.getTlsSecretName();
    return new PoolSecurity(
        Objects.requireNonNullElse(s.getAuthentication(), SecuritySpec.DEFAULT_AUTHENTICATION),
        tls,
        Objects.requireNonNullElse(n.getEnabled(), NetworkPolicySpec.DEFAULT_ENABLED),
        n.getMonitoringNamespace(),
        Boolean.TRUE.equals(n.getClientsFromAllNamespaces()));
  }

  public boolean tls() {
    return tlsSecretName != null;
  }
}
