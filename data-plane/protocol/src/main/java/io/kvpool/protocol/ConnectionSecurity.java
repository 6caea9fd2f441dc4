package io.kvpool.protocol;

/**
 * How a connecting side protects a connection: the pool key it proves (null: none) and TLS (null:
 * plaintext).
 */
public record ConnectionSecurity(PoolKey key, TlsContext tls) {
  public static final ConnectionSecurity NONE = new ConnectionSecurity(null, null);
}
