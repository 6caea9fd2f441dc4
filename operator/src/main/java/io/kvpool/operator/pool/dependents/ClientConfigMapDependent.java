package io.kvpool.operator.pool.dependents;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.CRUDKubernetesDependentResource;
import io.kvpool.api.v1alpha1.KvCachePool;
import io.kvpool.operator.common.PoolObjectMeta;
import io.kvpool.operator.pool.DataPlaneSettings;
import io.kvpool.operator.pool.PoolNames;
import io.kvpool.operator.pool.PoolRollout;
import io.kvpool.operator.pool.PoolSecurity;
import io.kvpool.operator.pool.PoolTransport;
import io.kvpool.operator.transferengine.TransportSettings;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * {@code <pool>-client}: what an inference pod needs to use the pool ({@code envFrom} it): every master's RPC
 * endpoint (clients follow the leader among them), the leader's admin address, the release it should speak, and the transfer settings.
 * Reads ConfigMaps through the pool ConfigMap dependent's informer.
 */
public class ClientConfigMapDependent extends CRUDKubernetesDependentResource<ConfigMap, KvCachePool> {

  public ClientConfigMapDependent() {
    super(ConfigMap.class);
  }

  @Override
  protected ConfigMap desired(KvCachePool pool, Context<KvCachePool> context) {
    return desired(pool, PoolTransport.of(pool, context), PoolRollout.of(pool, context));
  }

  public static ConfigMap desired(KvCachePool pool, TransportSettings transport) {
    return desired(pool, transport, PoolRollout.ofSpec(pool));
  }

  /** With the release the rollout renders (what clients meet once it is done). */
  public static ConfigMap desired(KvCachePool pool, TransportSettings transport, PoolRollout rollout) {
    DataPlaneSettings settings = DataPlaneSettings.of(pool).rendered(rollout);
    Map<String, String> data = new LinkedHashMap<>();
    data.put("KVPOOL_POOL_ID", settings.poolId());
    data.put("KVPOOL_MASTER_ADDRESS", PoolNames.masterEndpoints(pool, settings.masterReplicas(),
        settings.masterPort()));
    data.put("KVPOOL_MASTER_ADMIN_ADDRESS", PoolNames.leaderServiceAddress(pool, settings.masterAdminPort()));
    data.put("KVPOOL_RELEASE", settings.version());
    data.put("KVPOOL_OBJECT_REPLICAS", Integer.toString(settings.objectReplicas()));
    data.put("KVPOOL_LEASE_TTL", settings.leaseTtl());
    PoolSecurity security = PoolSecurity.of(pool);
    if (security.authentication()) {
      // the Secret whose client-key clients present as KVPOOL_CLIENT_KEY (a secretKeyRef); never the key itself
      data.put("KVPOOL_CLIENT_SECRET", PoolNames.clientKeySecret(pool));
    }
    if (security.tls()) {
      data.put("KVPOOL_TLS_SECRET", security.tlsSecretName()); // clients trust its ca.crt
    }
    data.put("KVPOOL_CLIENT_LABEL", PoolSecurity.CLIENT_LABEL + "=" + pool.getMetadata().getName());
    data.putAll(PoolConfigMapDependent.transportEntries(transport));
    return new ConfigMapBuilder()
        .withMetadata(PoolObjectMeta.of(pool, PoolNames.clientConfig(pool)))
        .withData(data)
        .build();
  }
}
