package io.kvpool.operator.pool;

import io.fabric8.kubernetes.api.model.StatusCause;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.kvpool.api.v1alpha1.KvCachePool;
import io.kvpool.api.v1alpha1.TransferEngine;
import io.kvpool.operator.common.PoolLabels.Component;
import io.kvpool.operator.render.RenderedFields;
import io.kvpool.operator.render.StatefulSets;
import io.kvpool.operator.transferengine.TransportSettings;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Asks the API server, with a server-side dry run, whether the two StatefulSets a spec renders are
 * valid, before any object of the pool is created or changed. They carry what the user passes
 * through unchecked by the CRD schema (node selectors, tolerations, affinity, spread constraints,
 * resource names), and a StatefulSet refused after the ConfigMaps, RBAC and Services were written
 * would leave the pool half created. A refusal becomes InvalidSpec problems naming the pool's own
 * fields ({@link RenderedFields}). The dry run applies as the dependents' own field manager, so the
 * server merges exactly as the real apply will (another manager would keep the fields the
 * dependents own, e.g. a renamed port next to its new value). The verdict is kept per pool until
 * its generation or its TransferEngine changes: two extra API calls per spec change, not per
 * reconciliation.
 */
public final class StatefulSetDryRun {
  private final Map<String, Verdict> verdicts = new ConcurrentHashMap<>();

  private record Verdict(String key, List<String> problems) {}

  /**
   * Problems of the rendered StatefulSets; empty when the API server accepts both.
   *
   * @throws KubernetesClientException when the dry run itself fails (unreachable, forbidden): not
   *     the spec's fault
   */
  public List<String> problems(
      KubernetesClient client,
      String fieldManager,
      KvCachePool pool,
      TransportSettings transport,
      Optional<TransferEngine> engine) {
    String poolKey = pool.getMetadata().getNamespace() + "/" + pool.getMetadata().getName();
    String key =
        pool.getMetadata().getUid()
            + "/"
            + pool.getMetadata().getGeneration()
            + "/"
            + engine
                .map(e -> e.getMetadata().getUid() + "/" + e.getMetadata().getResourceVersion())
                .orElse("-");
    Verdict known = verdicts.get(poolKey);
    if (known != null && known.key().equals(key)) {
      return known.problems();
    }
    List<String> problems = new ArrayList<>();
    problems.addAll(dryRun(client, fieldManager, Component.MASTER, StatefulSets.master(pool)));
    problems.addAll(
        dryRun(client, fieldManager, Component.STORAGE, StatefulSets.storage(pool, transport)));
    verdicts.put(poolKey, new Verdict(key, List.copyOf(problems)));
    return problems;
  }

  /** Forgets the verdict of a pool, e.g. after it was deleted. */
  public void forget(KvCachePool pool) {
    verdicts.remove(pool.getMetadata().getNamespace() + "/" + pool.getMetadata().getName());
  }

  private static List<String> dryRun(
      KubernetesClient client, String fieldManager, Component component, StatefulSet desired) {
    try {
      client
          .resource(desired)
          .dryRun()
          .fieldManager(fieldManager)
          .forceConflicts()
          .serverSideApply();
      return List.of();
    } catch (KubernetesClientException e) {
      if (e.getCode() != 422 && e.getCode() != 400) {
        throw e;
      }
      return refusal(component, e);
    }
  }

  static List<String> refusal(Component component, KubernetesClientException e) {
    List<StatusCause> causes =
        e.getStatus() == null
                || e.getStatus().getDetails() == null
                || e.getStatus().getDetails().getCauses() == null
            ? List.of()
            : e.getStatus().getDetails().getCauses();
    if (causes.isEmpty()) {
      String said = e.getStatus() == null ? e.getMessage() : e.getStatus().getMessage();
      return List.of(
          "the API server refuses the "
              + component.label()
              + " StatefulSet this spec renders: "
              + said);
    }
    return causes.stream()
        .map(
            cause ->
                RenderedFields.poolField(component, cause.getField()) + ": " + cause.getMessage())
        .distinct()
        .toList();
  }
}
