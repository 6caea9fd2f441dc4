package io.kvpool.operator.render;

import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeBuilder;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.api.model.VolumeMountBuilder;
import io.kvpool.api.v1alpha1.KvCachePool;
import java.util.ArrayList;
import java.util.List;

/**
 * How a pool's secrets reach its masters and storage nodes: the keys Secret and the TLS Secret as
 * read-only volumes (files readable by the pods' group only), and the environment naming their
 * folders ({@code KVPOOL_SECRET_DIR}, {@code KVPOOL_TLS_DIR}). A rotated key reaches the files
 * within the kubelet's sync period; the data plane re-reads them without a restart.
 */
public final class SecretMounts {
  private static final String KEYS_VOLUME = "pool-keys";
  private static final String TLS_VOLUME = "pool-tls";
  private static final int GROUP_READ_ONLY = 0440;

  private SecretMounts() {}

  public static List<EnvVar> env(PoolSecurity security) {
    List<EnvVar> env = new ArrayList<>();
    if (security.authentication()) {
      env.add(new EnvVar("KVPOOL_SECRET_DIR", PoolSecurity.KEYS_DIR, null));
    }
    if (security.tls()) {
      env.add(new EnvVar("KVPOOL_TLS_DIR", PoolSecurity.TLS_DIR, null));
    }
    return env;
  }

  public static List<VolumeMount> mounts(PoolSecurity security) {
    List<VolumeMount> mounts = new ArrayList<>();
    if (security.authentication()) {
      mounts.add(
          new VolumeMountBuilder()
              .withName(KEYS_VOLUME)
              .withMountPath(PoolSecurity.KEYS_DIR)
              .withReadOnly(true)
              .build());
    }
    if (security.tls()) {
      mounts.add(
          new VolumeMountBuilder()
              .withName(TLS_VOLUME)
              .withMountPath(PoolSecurity.TLS_DIR)
              .withReadOnly(true)
              .build());
    }
    return mounts;
  }

  public static List<Volume> volumes(KvCachePool pool, PoolSecurity security) {
    List<Volume> volumes = new ArrayList<>();
    if (security.authentication()) {
      volumes.add(
          new VolumeBuilder()
              .withName(KEYS_VOLUME)
              .withNewSecret()
              .withSecretName(PoolNames.keysSecret(pool))
              .withDefaultMode(GROUP_READ_ONLY)
              .endSecret()
              .build());
    }
    if (security.tls()) {
      volumes.add(
          new VolumeBuilder()
              .withName(TLS_VOLUME)
              .withNewSecret()
              .withSecretName(security.tlsSecretName())
              .withDefaultMode(GROUP_READ_ONLY)
              .endSecret()
              .build());
    }
    return volumes;
  }
}
