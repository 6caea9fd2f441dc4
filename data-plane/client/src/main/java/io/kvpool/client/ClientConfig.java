package io.kvpool.client;

import io.kvpool.common.HostPort;
import io.kvpool.common.VersionInfo;
import io.kvpool.protocol.ConnectionSecurity;
import io.kvpool.protocol.PoolKey;
import io.kvpool.protocol.TlsContext;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ThreadLocalRandom;

/** Settings of a {@link KvPoolClient}; build with {@link #builder()}. */
public final class ClientConfig {
  private final List<HostPort> masters;
  private final String clientId;
  private final String poolId;
  private final int retries;
  private final Duration timeout;
  private final Duration operationTimeout;
  private final VersionInfo advertisedVersion;
  private final PoolKey poolKey;
  private final TlsContext tls;
  private final Duration leaseTtl;
  private final int locationCacheEntries;
  private final boolean batchRequests;
  private final boolean extents;
  private final PrometheusRegistry metrics;
  private final Duration failFastConnect;
  private final Duration failedNodeMemory;

  private ClientConfig(Builder b) {
    this.masters =
        List.copyOf(
            Objects.requireNonNull(b.masters, "ClientConfig needs master(HOST:PORT[,HOST:PORT])"));
    this.clientId = b.clientId;
    this.poolId = b.poolId;
    this.retries = b.retries;
    this.timeout = b.timeout;
    this.operationTimeout = b.operationTimeout;
    this.advertisedVersion = b.advertisedVersion;
    this.poolKey = b.poolKey;
    this.tls = b.tls;
    this.leaseTtl = b.leaseTtl;
    this.locationCacheEntries = b.locationCacheEntries;
    this.batchRequests = b.batchRequests;
    this.extents = b.extents;
    this.metrics = b.metrics;
    this.failFastConnect = b.failFastConnect;
    this.failedNodeMemory = b.failedNodeMemory;
  }

  /**
   * How long the client reads last from, and places no puts on, a storage node whose connection
   * failed or timed out ({@link Builder#failedNodeMemory}).
   */
  public Duration failedNodeMemory() {
    return failedNodeMemory;
  }

  /**
   * The handshake timeout of the fail-fast connect ({@link Builder#failFastConnect}), or null when
   * {@link KvPoolClient#connect} waits for a leader until the operation timeout.
   */
  public Duration failFastConnect() {
    return failFastConnect;
  }

  /**
   * Where the client's metrics are registered (the JVM's default Prometheus registry unless set).
   */
  public PrometheusRegistry metrics() {
    return metrics;
  }

  /**
   * The pool's read lease (its KVPOOL_LEASE_TTL): cached replica lists are used for at most 80% of
   * it.
   */
  public Duration leaseTtl() {
    return leaseTtl;
  }

  /**
   * Most keys whose replica lists the client keeps for gets straight to a storage node (0: none).
   */
  public int locationCacheEntries() {
    return locationCacheEntries;
  }

  /**
   * Whether several reads or writes to one storage node go as one READ_BATCH / WRITE_BATCH
   * (protocol 2.1 nodes).
   */
  public boolean batchRequests() {
    return batchRequests;
  }

  /**
   * Whether small puts go straight into extents the master granted ahead (protocol 2.4, PROTOCOL.md
   * "Extents"): one exchange with a storage node instead of one with the master and one with the
   * node. Off by default.
   */
  public boolean extents() {
    return extents;
  }

  /** The key and TLS this client connects with. */
  public ConnectionSecurity security() {
    return new ConnectionSecurity(poolKey, tls);
  }

  /**
   * The key this client proves to the pool's servers (its client key), or null for a pool without
   * secrets.
   */
  public PoolKey poolKey() {
    return poolKey;
  }

  public static Builder builder() {
    return new Builder();
  }

  /**
   * Every master of the pool (or one Service name); the client finds and follows the leader among
   * them.
   */
  public List<HostPort> masters() {
    return masters;
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

  public Duration operationTimeout() {
    return operationTimeout;
  }

  public VersionInfo advertisedVersion() {
    return advertisedVersion;
  }

  /** A client id of its own: {@code client-<pid>-<6 hex digits>}. */
  static String defaultClientId() {
    return "client-"
        + ProcessHandle.current().pid()
        + "-"
        + HexFormat.of().toHexDigits(ThreadLocalRandom.current().nextInt()).substring(2);
  }

  /**
   * Builder with defaults: 3 retries, 10 s per exchange, 30 s per operation, any pool, this build's
   * version.
   */
  public static final class Builder {
    private List<HostPort> masters;
    private String clientId = defaultClientId();
    private String poolId = "";
    private int retries = 3;
    private Duration timeout = Duration.ofSeconds(10);
    private Duration operationTimeout = Duration.ofSeconds(30);
    private VersionInfo advertisedVersion = VersionInfo.CURRENT;
    private PoolKey poolKey;
    private TlsContext tls;
    private Duration leaseTtl = Duration.ofSeconds(5);
    private int locationCacheEntries = 65_536;
    private boolean batchRequests = true;
    private boolean extents;
    private PrometheusRegistry metrics = PrometheusRegistry.defaultRegistry;
    private Duration failFastConnect;
    private Duration failedNodeMemory = Duration.ofSeconds(10);

    /**
     * How long, after a storage node's connection failed or timed out, every get of the client
     * reads the node's replicas last and every PUT_START asks the master to place the put on other
     * nodes, unless the node answers a read or a write first; default 10 s, the master's default
     * node TTL (a node silent that long is no longer listed). A frozen or partitioned node then
     * costs the client one exchange timeout rather than one per get or put that meets it.
     */
    public Builder failedNodeMemory(Duration memory) {
      this.failedNodeMemory = positive(memory, "failed node memory");
      return this;
    }

    /**
     * Makes {@link KvPoolClient#connect} try every master endpoint once first, each with this
     * handshake timeout, and fail at once with {@link ConnectionFailedException} naming every
     * endpoint's problem (a host that does not resolve, nothing listening, a port that does not
     * speak kvpool such as the admin port) when none answers. Without it, connect waits for a
     * leader until the operation timeout, as every call does during a failover: right for a
     * service, but a wrong address then looks like a hang to a one-shot command.
     */
    public Builder failFastConnect(Duration handshakeTimeout) {
      this.failFastConnect = positive(handshakeTimeout, "fail-fast connect timeout");
      return this;
    }

    /**
     * The Prometheus registry of the client's latency histograms and counters ({@code
     * kvpool_client_*}); by default the JVM's default registry, which an application exposing
     * Prometheus metrics usually scrapes already.
     */
    public Builder metrics(PrometheusRegistry registry) {
      this.metrics = Objects.requireNonNull(registry);
      return this;
    }

    /**
     * The pool's read lease TTL (KVPOOL_LEASE_TTL of its client ConfigMap, default 5 s). A get
     * whose replica list the client got less than 80% of it ago goes straight to a storage node; a
     * shorter lease than configured only costs a refused read and a lookup.
     */
    public Builder leaseTtl(Duration ttl) {
      this.leaseTtl = positive(ttl, "lease TTL");
      return this;
    }

    /**
     * How many keys' replica lists (with their read tokens) the client keeps, default 65,536; 0
     * turns the cache off, so that every get asks the master first.
     */
    public Builder locationCacheEntries(int entries) {
      if (entries < 0) {
        throw new IllegalArgumentException("location cache entries must be >= 0, got " + entries);
      }
      this.locationCacheEntries = entries;
      return this;
    }

    /**
     * Whether several reads or writes to one storage node go as one READ_BATCH / WRITE_BATCH
     * (default; only to nodes that speak protocol 2.1). False sends them as pipelined READs /
     * WRITEs, as protocol 2.0 does (for comparison).
     */
    public Builder batchRequests(boolean batch) {
      this.batchRequests = batch;
      return this;
    }

    /**
     * Puts values of at most {@link ExtentPuts#MAX_VALUE_BYTES} with one replica and no block
     * metadata through extents (protocol 2.4 masters; off by default): see {@link #extents()}.
     * Other puts, and puts an extent cannot take, go through PUT_START as before.
     */
    public Builder extents(boolean on) {
      this.extents = on;
      return this;
    }

    /**
     * The pool's client key (the {@code client-key} of the Secret the client ConfigMap names in
     * {@code KVPOOL_CLIENT_SECRET}); with it the client authenticates and refuses servers that
     * cannot prove the key.
     */
    public Builder poolKey(String key) {
      this.poolKey = key == null || key.isBlank() ? null : PoolKey.parse(key);
      return this;
    }

    /** The pool's client key as read from its file ({@link PoolKey#read}), or null for none. */
    public Builder poolKey(PoolKey key) {
      this.poolKey = key;
      return this;
    }

    /**
     * TLS to every server of a pool that runs it ({@link TlsContext#fromDirectory}), or null for
     * plaintext.
     */
    public Builder tls(TlsContext context) {
      this.tls = context;
      return this;
    }

    /**
     * One endpoint or a comma-separated list of the pool's masters, e.g. the client ConfigMap's
     * address.
     */
    public Builder master(String hostPorts) {
      this.masters = HostPort.parseList(hostPorts);
      return this;
    }

    public Builder master(HostPort hostPort) {
      this.masters = List.of(hostPort);
      return this;
    }

    public Builder masters(List<HostPort> hostPorts) {
      if (hostPorts.isEmpty()) {
        throw new IllegalArgumentException("at least one master endpoint is required");
      }
      this.masters = List.copyOf(hostPorts);
      return this;
    }

    /**
     * This client's name in handshakes, the master's logs and its extent limit (8 open extents per
     * id). Default: one of its own, {@code client-<pid>-<6 hex digits>}, so that clients not given
     * an id do not share one extent limit.
     */
    public Builder clientId(String id) {
      this.clientId = Objects.requireNonNull(id);
      return this;
    }

    /** Refuse to talk to a master of another pool (empty: accept any). */
    public Builder poolId(String id) {
      this.poolId = Objects.requireNonNull(id);
      return this;
    }

    /**
     * Extra attempts after a failure of the data path (node lost, replica unreadable, put raced a
     * node death).
     */
    public Builder retries(int n) {
      if (n < 0) {
        throw new IllegalArgumentException("retries must be >= 0, got " + n);
      }
      this.retries = n;
      return this;
    }

    /** Deadline of one network exchange (a request with its reply and payload). */
    public Builder timeout(Duration t) {
      this.timeout = positive(t, "timeout");
      return this;
    }

    /** Longest one operation may take with its retries, including waiting out a master failover. */
    public Builder operationTimeout(Duration t) {
      this.operationTimeout = positive(t, "operation timeout");
      return this;
    }

    /**
     * The version announced in handshakes; only for compatibility tests that impersonate another
     * release.
     */
    public Builder advertisedVersion(VersionInfo v) {
      this.advertisedVersion = Objects.requireNonNull(v);
      return this;
    }

    private static Duration positive(Duration t, String what) {
      if (t.isNegative() || t.isZero()) {
        throw new IllegalArgumentException(what + " must be positive, got " + t);
      }
      return t;
    }

    public ClientConfig build() {
      return new ClientConfig(this);
    }
  }
}
