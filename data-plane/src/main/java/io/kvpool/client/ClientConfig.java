package io.kvpool.client;

import io.kvpool.common.HostPort;
import io.kvpool.common.VersionInfo;
import java.time.Duration;
import java.util.Objects;

/** Settings of a {@link KvPoolClient}; build with {@link #builder()}. */
public final class ClientConfig {
  private final HostPort master;
  private final String clientId;
  private final String poolId;
  private final int retries;
  private final Duration timeout;
  private final VersionInfo advertisedVersion;

  private ClientConfig(Builder b) {
    this.master = Objects.requireNonNull(b.master, "ClientConfig needs master(HOST:PORT)");
    this.clientId = b.clientId;
    this.poolId = b.poolId;
    this.retries = b.retries;
    this.timeout = b.timeout;
    this.advertisedVersion = b.advertisedVersion;
  }

  public static Builder builder() {
    return new Builder();
  }

  public HostPort master() {
    return master;
  }

  public String clientId() {
    return clientId;
  }

  public String poolId() {
    return poolId;
  }

  public int retries() {
    return retries;
  }

  public Duration timeout() {
    return timeout;
  }

  public VersionInfo advertisedVersion() {
    return advertisedVersion;
  }

  /** Builder with defaults: 3 retries, 10 s per exchange, any pool, this build's version. */
  public static final class Builder {
    private HostPort master;
    private String clientId = "client";
    private String poolId = "";
    private int retries = 3;
    private Duration timeout = Duration.ofSeconds(10);
    private VersionInfo advertisedVersion = VersionInfo.CURRENT;

    public Builder master(String hostPort) {
      this.master = HostPort.parse(hostPort);
      return this;
    }

    public Builder master(HostPort hostPort) {
      this.master = hostPort;
      return this;
    }

    public Builder clientId(String id) {
      this.clientId = Objects.requireNonNull(id);
      return this;
    }

    /** Refuse to talk to a master of another pool (empty: accept any). */
    public Builder poolId(String id) {
      this.poolId = Objects.requireNonNull(id);
      return this;
    }

    /** Extra attempts after a transient failure (connection lost, replica unreadable, put raced a node death). */
    public Builder retries(int n) {
      if (n < 0) {
        throw new IllegalArgumentException("retries must be >= 0, got " + n);
      }
      this.retries = n;
      return this;
    }

    /** Deadline of one network exchange (a request with its reply and payload). */
    public Builder timeout(Duration t) {
      if (t.isNegative() || t.isZero()) {
        throw new IllegalArgumentException("timeout must be positive, got " + t);
      }
      this.timeout = t;
      return this;
    }

    /** The version announced in handshakes; only for compatibility tests that impersonate another release. */
    public Builder advertisedVersion(VersionInfo v) {
      this.advertisedVersion = Objects.requireNonNull(v);
      return this;
    }

    public ClientConfig build() {
      return new ClientConfig(this);
    }
  }
}
