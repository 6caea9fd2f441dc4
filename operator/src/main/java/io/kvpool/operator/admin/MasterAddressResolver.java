package io.kvpool.operator.admin;

import io.kvpool.api.v1alpha1.KvCachePool;
import io.kvpool.api.v1alpha1.MasterSpec;
import java.net.URI;

/**
 * Where the operator finds a pool's leading master admin API. In the cluster that is the leader
 * Service; an operator running outside the cluster (dev mode) or a test plugs in another
 * resolution.
 */
@FunctionalInterface
public interface MasterAddressResolver {
  /** The leader Service, for an in-cluster operator. */
  String LEADER_SERVICE_TEMPLATE = "http://{pool}-master.{namespace}.svc:{adminPort}";

  URI adminBase(KvCachePool pool);

  /**
   * Fills {@code {pool}}, {@code {namespace}} and {@code {adminPort}} of a URL template, e.g. the
   * default {@value #LEADER_SERVICE_TEMPLATE}, or {@code http://127.0.0.1:{adminPort}} behind a
   * kubectl port-forward.
   */
  static MasterAddressResolver fromTemplate(String template) {
    if (!template.startsWith("http://") && !template.startsWith("https://")) {
      throw new IllegalArgumentException(
          "kvpool.operator.master-admin-url '"
              + template
              + "' must be an http(s) URL"
              + " template such as "
              + LEADER_SERVICE_TEMPLATE);
    }
    return pool ->
        URI.create(
            template
                .replace("{pool}", pool.getMetadata().getName())
                .replace("{namespace}", pool.getMetadata().getNamespace())
                .replace("{adminPort}", Integer.toString(adminPort(pool))));
  }

  /** spec.master.adminPort or its default; readable whatever else the spec holds. */
  static int adminPort(KvCachePool pool) {
    var master = pool.getSpec() == null ? null : pool.getSpec().getMaster();
    return master == null || master.getAdminPort() == null
        ? MasterSpec.DEFAULT_ADMIN_PORT
        : master.getAdminPort();
  }
}
