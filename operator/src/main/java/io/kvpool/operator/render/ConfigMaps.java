package io.kvpool.operator.render;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.kvpool.api.v1alpha1.KvCachePool;
import io.kvpool.operator.common.PoolObjectMeta;
import io.kvpool.operator.transferengine.TransportSettings;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * The pool's two ConfigMaps.
 *
 * <ul>
 *   <li>{@code <pool>-config}: the data-plane settings of the pool, mounted into master and storage
 *       pods at /etc/kvpool (one file per key; keys are environment-variable names so a pod may
 *       also envFrom it). Deliberately leaves out the storage replica count: scaling must not touch
 *       this object. The processes read it at start, except the eviction settings the master
 *       follows while running ({@link #LIVE_KEYS}); the pod templates carry a hash of the keys each
 *       component reads at start, so changing one rolls that component's pods through the rollout
 *       planner instead of leaving them on stale settings. Transport settings are in the storage
 *       pods' environment, so a TransferEngine change rolls the storage nodes only.
 *   <li>{@code <pool>-client}: what an inference pod needs to use the pool ({@code envFrom} it):
 *       every master's RPC endpoint (clients follow the leader among them), the leader's admin
 *       address, the release it should speak, the transfer settings, and where a subscriber finds
 *       the KV events ({@link PoolKvEvents}).
 * </ul>
 */
public final class ConfigMaps {
  /**
   * Keys masters read at start: a change restarts the masters (their template carries a hash of
   * these).
   */
  public static final Set<String> MASTER_KEYS =
      Stream.concat(
              Stream.of(
                  "KVPOOL_POOL_ID",
                  "KVPOOL_BIND_HOST",
                  "KVPOOL_LEASE_TTL",
                  "KVPOOL_NODE_TTL",
                  "KVPOOL_MASTER_REPLICAS",
                  "KVPOOL_MASTER_PORT",
                  "KVPOOL_MASTER_ADMIN_PORT",
                  "KVPOOL_LEADER_LEASE",
                  "KVPOOL_PLACEMENT_RAMP"),
              PoolKvEvents.MASTER_KEYS.stream())
          .collect(Collectors.toUnmodifiableSet());

  /** Keys storage nodes read at start: a change restarts the storage nodes. */
  public static final Set<String> STORAGE_KEYS =
      Set.of(
          "KVPOOL_POOL_ID",
          "KVPOOL_BIND_HOST",
          "KVPOOL_MASTER_ADDRESS",
          "KVPOOL_STORAGE_PORT",
          "KVPOOL_STORAGE_ADMIN_PORT",
          "KVPOOL_MEMORY_PER_NODE",
          "KVPOOL_SEGMENTS",
          "KVPOOL_HUGE_PAGES");

  /** Keys the master re-reads while it runs: a change restarts nothing. */
  public static final Set<String> LIVE_KEYS = Set.of("KVPOOL_HIGH_WATERMARK", "KVPOOL_EVICT_RATIO");

  private ConfigMaps() {}

  /** {@code <pool>-config}. */
  public static ConfigMap pool(KvCachePool pool) {
    DataPlaneSettings settings = DataPlaneSettings.of(pool);
    Map<String, String> data = new LinkedHashMap<>();
    // Only keys a data-plane main reads (data-plane/README.md lists them; ConfigContractTest checks
    // it).
    data.put("KVPOOL_POOL_ID", settings.poolId());
    data.put("KVPOOL_BIND_HOST", "0.0.0.0");
    data.put("KVPOOL_LEASE_TTL", settings.leaseTtl());
    data.put("KVPOOL_NODE_TTL", settings.nodeTtl());
    data.put("KVPOOL_HIGH_WATERMARK", Double.toString(settings.highWatermark()));
    data.put("KVPOOL_EVICT_RATIO", Double.toString(settings.evictRatio()));
    data.put("KVPOOL_MASTER_REPLICAS", Integer.toString(settings.masterReplicas()));
    data.put("KVPOOL_MASTER_PORT", Integer.toString(settings.masterPort()));
    data.put("KVPOOL_MASTER_ADMIN_PORT", Integer.toString(settings.masterAdminPort()));
    data.put("KVPOOL_LEADER_LEASE", PoolNames.leaderLease(pool));
    if (!settings.placementRamp()) {
      // only when off: the masters' default, so a pool that keeps it rolls nothing
      data.put("KVPOOL_PLACEMENT_RAMP", "off");
    }
    data.put(
        "KVPOOL_MASTER_ADDRESS",
        PoolNames.masterEndpoints(pool, settings.masterReplicas(), settings.masterPort()));
    data.put("KVPOOL_STORAGE_PORT", Integer.toString(settings.storagePort()));
    data.put("KVPOOL_STORAGE_ADMIN_PORT", Integer.toString(settings.storageAdminPort()));
    data.put("KVPOOL_MEMORY_PER_NODE", Long.toString(settings.memoryPerNodeBytes()));
    data.put("KVPOOL_SEGMENTS", Integer.toString(settings.segments()));
    data.put("KVPOOL_HUGE_PAGES", settings.hugePagesFlag());
    data.putAll(PoolKvEvents.of(pool).masterConfig());
    return new ConfigMapBuilder()
        .withMetadata(PoolObjectMeta.of(pool, PoolNames.poolConfig(pool)))
        .withData(data)
        .build();
  }

  /** {@code <pool>-client} at the release of the spec. */
  public static ConfigMap client(KvCachePool pool, TransportSettings transport) {
    return client(pool, transport, PoolRollout.ofSpec(pool));
  }

  /**
   * {@code <pool>-client} with the release the rollout renders (what clients meet once it is done).
   */
  public static ConfigMap client(
      KvCachePool pool, TransportSettings transport, PoolRollout rollout) {
    DataPlaneSettings settings = DataPlaneSettings.of(pool).rendered(rollout);
    Map<String, String> data = new LinkedHashMap<>();
    data.put("KVPOOL_POOL_ID", settings.poolId());
    data.put(
        "KVPOOL_MASTER_ADDRESS",
        PoolNames.masterEndpoints(pool, settings.masterReplicas(), settings.masterPort()));
    data.put(
        "KVPOOL_MASTER_ADMIN_ADDRESS",
        PoolNames.leaderServiceAddress(pool, settings.masterAdminPort()));
    data.put("KVPOOL_RELEASE", settings.version());
    data.put("KVPOOL_OBJECT_REPLICAS", Integer.toString(settings.objectReplicas()));
    data.put("KVPOOL_LEASE_TTL", settings.leaseTtl());
    PoolSecurity security = PoolSecurity.of(pool);
    if (security.authentication()) {
      // the Secret whose client-key clients present as KVPOOL_CLIENT_KEY (a secretKeyRef); never
      // the key itself
      data.put("KVPOOL_CLIENT_SECRET", PoolNames.clientKeySecret(pool));
    }
    if (security.tls()) {
      data.put("KVPOOL_TLS_SECRET", security.tlsSecretName()); // clients trust its ca.crt
    }
    data.put("KVPOOL_CLIENT_LABEL", PoolSecurity.CLIENT_LABEL + "=" + pool.getMetadata().getName());
    data.putAll(transportEntries(transport));
    data.putAll(PoolKvEvents.of(pool).subscriberConfig(pool));
    return new ConfigMapBuilder()
        .withMetadata(PoolObjectMeta.of(pool, PoolNames.clientConfig(pool)))
        .withData(data)
        .build();
  }

  /** The transfer settings clients see in the client ConfigMap. */
  static Map<String, String> transportEntries(TransportSettings transport) {
    Map<String, String> data = new LinkedHashMap<>();
    data.put("KVPOOL_TRANSFER_ENGINE", transport.engineName());
    data.put("KVPOOL_TRANSPORT_PROTOCOL", transport.protocolName());
    data.put("KVPOOL_TRANSPORT_PORT", Integer.toString(transport.port()));
    data.put("KVPOOL_TRANSPORT_HOST_NETWORK", Boolean.toString(transport.hostNetwork()));
    data.put("KVPOOL_BUFFER_POOL_SIZE", Long.toString(transport.bufferPoolBytes()));
    data.put("KVPOOL_BUFFERS", Integer.toString(transport.buffers()));
    transport
        .devices()
        .ifPresent(
            devices -> {
              data.put("KVPOOL_DEVICE_RESOURCE", devices.resourceName());
              data.put("KVPOOL_DEVICE_COUNT", Integer.toString(devices.count()));
              data.put("KVPOOL_VISIBLE_DEVICES_ENV", devices.visibleDevicesEnv());
            });
    return data;
  }
}
