package io.kvpool.e2e.cluster;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.kvpool.admin.AdminJson;
import io.kvpool.admin.MasterStatus;
import io.kvpool.api.v1alpha1.AutoscalingSpec;
import io.kvpool.api.v1alpha1.AutoscalingStatus;
import io.kvpool.api.v1alpha1.AutoscalingTargets;
import io.kvpool.api.v1alpha1.CacheSignalsStatus;
import io.kvpool.api.v1alpha1.ComputeResources;
import io.kvpool.api.v1alpha1.HugePages;
import io.kvpool.api.v1alpha1.ImagePullPolicy;
import io.kvpool.api.v1alpha1.KvCachePool;
import io.kvpool.api.v1alpha1.KvCachePoolSpec;
import io.kvpool.api.v1alpha1.KvCachePoolStatus;
import io.kvpool.api.v1alpha1.MasterSpec;
import io.kvpool.api.v1alpha1.ScaleDownBehavior;
import io.kvpool.api.v1alpha1.ScaleUpBehavior;
import io.kvpool.api.v1alpha1.ScalingDecision;
import io.kvpool.api.v1alpha1.StorageSpec;
import java.io.IOException;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * Pools as the suite creates them (small: 2 cores run everything), and what it reads back from
 * them.
 */
public final class Pools {
  /** The admin port of masters (the CRD default); the suite leaves it alone. */
  static final int MASTER_ADMIN_PORT = 8080;

  private Pools() {}

  /** A TCP pool with small nodes and small CPU requests, running the given image tag. */
  public static KvCachePool pool(
      String name,
      String version,
      int masters,
      int storageNodes,
      String memoryPerNode,
      int objectReplicas) {
    KvCachePoolSpec spec = new KvCachePoolSpec();
    spec.setVersion(version);
    spec.setImagePullPolicy(ImagePullPolicy.IfNotPresent);
    MasterSpec master = new MasterSpec();
    master.setReplicas(masters);
    master.setResources(cpu("100m"));
    spec.setMaster(master);
    StorageSpec storage = new StorageSpec();
    storage.setReplicas(storageNodes);
    storage.setMemoryPerNode(new Quantity(memoryPerNode));
    storage.setHugePages(HugePages.NONE);
    storage.setResources(cpu("100m"));
    spec.setStorage(storage);
    spec.setObjectReplicas(objectReplicas);
    KvCachePool pool = new KvCachePool();
    pool.setMetadata(new ObjectMetaBuilder().withName(name).build());
    pool.setSpec(spec);
    return pool;
  }

  /**
   * Turns spec.storage.autoscaling on: {@code min} to {@code max} storage nodes, the fullness
   * target, and each direction's stabilization window (seconds) and step.
   */
  public static KvCachePool autoscaled(
      KvCachePool pool,
      int min,
      int max,
      int fullnessPercent,
      int upWindow,
      int upStep,
      int downWindow,
      int downStep) {
    AutoscalingSpec autoscaling = new AutoscalingSpec();
    autoscaling.setEnabled(true);
    autoscaling.setMinReplicas(min);
    autoscaling.setMaxReplicas(max);
    AutoscalingTargets targets = new AutoscalingTargets();
    targets.setFullnessPercent(fullnessPercent);
    autoscaling.setTargets(targets);
    ScaleUpBehavior up = new ScaleUpBehavior();
    up.setStabilizationWindowSeconds(upWindow);
    up.setMaxStep(upStep);
    autoscaling.setScaleUp(up);
    ScaleDownBehavior down = new ScaleDownBehavior();
    down.setStabilizationWindowSeconds(downWindow);
    down.setMaxStep(downStep);
    autoscaling.setScaleDown(down);
    pool.getSpec().getStorage().setAutoscaling(autoscaling);
    return pool;
  }

  /** spec.storage.replicas, what an autoscaler writes. */
  public static int storageReplicas(KvCachePool pool) {
    return pool.getSpec().getStorage().getReplicas() == null
        ? StorageSpec.DEFAULT_REPLICAS
        : pool.getSpec().getStorage().getReplicas();
  }

  /** status.autoscaling's scalings, newest first; empty when there are none. */
  public static List<ScalingDecision> recentScaling(KvCachePool pool) {
    AutoscalingStatus a =
        pool == null || pool.getStatus() == null ? null : pool.getStatus().getAutoscaling();
    return a == null || a.getRecentScaling() == null ? List.of() : a.getRecentScaling();
  }

  /** A one-line picture of a pool's replica count, cache signals and last autoscaling decision. */
  public static String describeAutoscaling(KvCachePool pool) {
    if (pool == null || pool.getStatus() == null) {
      return describe(pool);
    }
    CacheSignalsStatus signals = pool.getStatus().getCacheSignals();
    AutoscalingStatus a = pool.getStatus().getAutoscaling();
    return "spec.storage.replicas="
        + storageReplicas(pool)
        + " storage="
        + pool.getStatus().getStorage()
        + " phase="
        + pool.getStatus().getPhase()
        + " fullness="
        + (signals == null
            ? null
            : signals.getFullnessPercent()
                + "% evicted="
                + signals.getEvictedBytesPerSecond()
                + "B/s")
        + " last decision: "
        + (a == null || a.getLastDecision() == null ? "none" : decision(a.getLastDecision()));
  }

  /**
   * One status.autoscaling entry: time, action, reason, counts, the signals it decided on, and its
   * message.
   */
  public static String decision(ScalingDecision d) {
    return d.getTime()
        + " "
        + d.getAction()
        + " "
        + d.getReason()
        + " "
        + d.getFromReplicas()
        + " -> "
        + d.getToReplicas()
        + " (fullness "
        + d.getFullnessPercent()
        + "%, evicted "
        + d.getEvictedBytesPerSecond()
        + " B/s, capacity misses "
        + d.getCapacityMissesPerSecond()
        + "/s): "
        + d.getMessage();
  }

  private static ComputeResources cpu(String request) {
    ComputeResources r = new ComputeResources();
    r.setRequests(java.util.Map.of("cpu", new Quantity(request)));
    return r;
  }

  public static KvCachePool get(KubernetesClient client, String namespace, String name) {
    return client.resources(KvCachePool.class).inNamespace(namespace).withName(name).get();
  }

  public static Optional<Condition> condition(KvCachePool pool, String type) {
    if (pool == null || pool.getStatus() == null || pool.getStatus().getConditions() == null) {
      return Optional.empty();
    }
    return pool.getStatus().getConditions().stream()
        .filter(c -> type.equals(c.getType()))
        .findFirst();
  }

  /** Ready=True for the pool's current generation. */
  public static boolean ready(KvCachePool pool) {
    return condition(pool, "Ready").filter(c -> "True".equals(c.getStatus())).isPresent()
        && pool.getStatus().getObservedGeneration() != null
        && pool.getStatus().getObservedGeneration().equals(pool.getMetadata().getGeneration());
  }

  /** A one-line picture of a pool's status for logs and timeouts. */
  public static String describe(KvCachePool pool) {
    if (pool == null) {
      return "no pool";
    }
    KvCachePoolStatus s = pool.getStatus();
    if (s == null) {
      return pool.getMetadata().getName() + ": no status yet";
    }
    return pool.getMetadata().getName()
        + ": phase="
        + s.getPhase()
        + " leader="
        + s.getLeader()
        + " masters="
        + s.getMasters()
        + " storage="
        + s.getStorage()
        + " capacity="
        + s.getCapacity()
        + " used="
        + s.getUsed()
        + " objects="
        + s.getObjectCount()
        + " message="
        + s.getMessage()
        + " conditions="
        + (s.getConditions() == null
            ? "[]"
            : s.getConditions().stream()
                .map(
                    c ->
                        c.getType()
                            + "="
                            + c.getStatus()
                            + "("
                            + c.getReason()
                            + ": "
                            + c.getMessage()
                            + ")")
                .toList());
  }

  public static List<Pod> pods(
      KubernetesClient client, String namespace, String pool, String component) {
    return client
        .pods()
        .inNamespace(namespace)
        .withLabel("app.kubernetes.io/instance", pool)
        .withLabel("app.kubernetes.io/component", component)
        .list()
        .getItems()
        .stream()
        .sorted(Comparator.comparing(p -> p.getMetadata().getName()))
        .toList();
  }

  /**
   * A master's {@code GET /status}, read through the API server's pod proxy (no port-forward, no
   * shell in the image).
   */
  public static MasterStatus masterStatus(KubernetesClient client, String namespace, String pod) {
    String url =
        client.getMasterUrl().toString().replaceAll("/$", "")
            + "/api/v1/namespaces/"
            + namespace
            + "/pods/"
            + pod
            + ":"
            + MASTER_ADMIN_PORT
            + "/proxy/status";
    String json = client.raw(url);
    if (json == null) {
      throw new IllegalStateException("no /status from " + namespace + "/" + pod);
    }
    try {
      return AdminJson.read(json, MasterStatus.class);
    } catch (IOException e) {
      throw new IllegalStateException("unreadable /status from " + pod + ": " + json, e);
    }
  }

  /** A master pod that answered {@code /status}, and what it said. */
  public record Answer(String pod, MasterStatus status) {}

  /** The status of the master that leads and serves, asked of every master pod. */
  public static Optional<MasterStatus> servingLeader(
      KubernetesClient client, String namespace, String pool) {
    return servingLeaderPod(client, namespace, pool).map(Answer::status);
  }

  /** The master pod that leads and serves, and its status, asked of every master pod. */
  public static Optional<Answer> servingLeaderPod(
      KubernetesClient client, String namespace, String pool) {
    for (Pod pod : pods(client, namespace, pool, "master")) {
      if (pod.getMetadata().getDeletionTimestamp() != null) {
        // terminating: it leads no new view, and a proxied request to it can hang for the client's
        // whole timeout,
        // which would be counted as failover time
        continue;
      }
      try {
        MasterStatus status = masterStatus(client, namespace, pod.getMetadata().getName());
        if (status.serving()) {
          return Optional.of(new Answer(pod.getMetadata().getName(), status));
        }
      } catch (RuntimeException notAnswering) {
        // a master that is starting or gone
      }
    }
    return Optional.empty();
  }
}
