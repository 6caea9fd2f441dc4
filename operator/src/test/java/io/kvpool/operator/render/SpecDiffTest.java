package io.kvpool.operator.render;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.kvpool.api.v1alpha1.AutoscalingSpec;
import io.kvpool.api.v1alpha1.AutoscalingTargets;
import io.kvpool.api.v1alpha1.ComputeResources;
import io.kvpool.api.v1alpha1.DiskEmptyDir;
import io.kvpool.api.v1alpha1.DiskHostPath;
import io.kvpool.api.v1alpha1.DiskTierSpec;
import io.kvpool.api.v1alpha1.DiskVolumeClaim;
import io.kvpool.api.v1alpha1.EventsSpec;
import io.kvpool.api.v1alpha1.HugePages;
import io.kvpool.api.v1alpha1.ImagePullPolicy;
import io.kvpool.api.v1alpha1.KvCachePool;
import io.kvpool.api.v1alpha1.KvCachePoolSpec;
import io.kvpool.api.v1alpha1.NetworkPolicySpec;
import io.kvpool.api.v1alpha1.ScaleDownBehavior;
import io.kvpool.api.v1alpha1.ScaleUpBehavior;
import io.kvpool.api.v1alpha1.SchedulingSpec;
import io.kvpool.api.v1alpha1.SecuritySpec;
import io.kvpool.api.v1alpha1.SpecDiff;
import io.kvpool.api.v1alpha1.SpecDiff.Impact;
import io.kvpool.api.v1alpha1.TransferEngine;
import io.kvpool.api.v1alpha1.UpgradeFailurePolicy;
import io.kvpool.api.v1alpha1.UpgradeSpec;
import io.kvpool.api.v1alpha1.WarmRestartSpec;
import io.kvpool.operator.TestPools;
import io.kvpool.operator.common.PoolLabels;
import io.kvpool.operator.transferengine.TransportSettings;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Consumer;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.Test;

/**
 * Every {@link SpecDiff}-annotated field of the pool spec, changed alone on a defaulted pool: what
 * the operator renders must have exactly the declared impact. Both data-plane StatefulSets are
 * {@code OnDelete} and a pod is replaced when its {@value PoolLabels#TEMPLATE_ANNOTATION} differs
 * from its StatefulSet's, so a restart shows as a changed template hash; a scale as changed storage
 * replicas; a live change as changed live keys of the pool ConfigMap or a changed NetworkPolicy; an
 * upgrade as both hashes plus the release or image the StatefulSets record.
 */
class SpecDiffTest {
  private static final String NAMESPACE = "ns";
  private static final String POOL = "p";
  private static final String OPERATOR_NAMESPACE = "kvpool-system";
  private static final String API_PACKAGE = KvCachePoolSpec.class.getPackageName();

  /**
   * The TransferEngines a pool may reference. "fast" differs from the plain-TCP defaults (its
   * port): an engine equal to them renders the same pods, so referencing it restarts nothing,
   * rightly.
   */
  private static final Map<String, TransferEngine> ENGINES = Map.of("fast", engine(50070));

  /** A change of one field to another valid value, on a pool first prepared by {@code given}. */
  private record Mutation(Consumer<KvCachePool> given, Consumer<KvCachePool> change) {}

  private static Mutation change(Consumer<KvCachePool> change) {
    return new Mutation(pool -> {}, change);
  }

  /** Field path → how to change it. Must name exactly the annotated fields. */
  private static final Map<String, Mutation> MUTATIONS = mutations();

  private static Map<String, Mutation> mutations() {
    Map<String, Mutation> m = new LinkedHashMap<>();
    // A running pool's validator also wants spec.version changed with spec.image; rendering is
    // tested field by field.
    m.put("spec.version", change(p -> p.getSpec().setVersion("0.1.1")));
    m.put(
        "spec.image",
        change(p -> p.getSpec().setImage("registry.example.com/kvpool/data-plane:0.1.0")));
    m.put(
        "spec.imagePullPolicy",
        change(p -> p.getSpec().setImagePullPolicy(ImagePullPolicy.Always)));

    m.put("spec.master.replicas", change(p -> p.getSpec().getMaster().setReplicas(3)));
    m.put("spec.master.port", change(p -> p.getSpec().getMaster().setPort(50061)));
    m.put("spec.master.adminPort", change(p -> p.getSpec().getMaster().setAdminPort(8090)));
    m.put(
        "spec.master.resources",
        change(
            p ->
                p.getSpec()
                    .getMaster()
                    .setResources(
                        ComputeResources.of(
                            Map.of("cpu", new Quantity("500m")),
                            Map.of("memory", new Quantity("2Gi"))))));
    m.put(
        "spec.master.placementRamp", change(p -> p.getSpec().getMaster().setPlacementRamp(false)));
    m.put(
        "spec.master.scheduling",
        change(
            p ->
                p.getSpec()
                    .getMaster()
                    .setScheduling(scheduling(Map.of("kvpool.io/role", "master")))));

    m.put("spec.storage.replicas", change(p -> p.getSpec().getStorage().setReplicas(4)));
    m.put(
        "spec.storage.memoryPerNode",
        change(p -> p.getSpec().getStorage().setMemoryPerNode(new Quantity("512Mi"))));
    m.put("spec.storage.segments", change(p -> p.getSpec().getStorage().setSegments(2)));
    m.put(
        "spec.storage.hugePages",
        change(p -> p.getSpec().getStorage().setHugePages(HugePages.EXPLICIT)));
    m.put("spec.storage.port", change(p -> p.getSpec().getStorage().setPort(50062)));
    m.put("spec.storage.adminPort", change(p -> p.getSpec().getStorage().setAdminPort(8091)));
    m.put(
        "spec.storage.resources",
        change(
            p ->
                p.getSpec()
                    .getStorage()
                    .setResources(ComputeResources.of(Map.of("cpu", new Quantity("2")), null))));
    m.put(
        "spec.storage.warmRestart.enabled",
        change(p -> p.getSpec().getStorage().getWarmRestart().setEnabled(true)));
    // The folder is mounted only while warm restarts are on; off, no pod uses it and changing it
    // restarts nothing.
    m.put(
        "spec.storage.warmRestart.hostPath",
        new Mutation(
            p -> p.getSpec().getStorage().getWarmRestart().setEnabled(true),
            p -> p.getSpec().getStorage().getWarmRestart().setHostPath("/dev/shm/kvpool-b")));
    // The disk tier: its size, files and volume reach the storage pods' env and volumes.
    m.put("spec.storage.disk.size", new Mutation(p -> disk(p, "1Gi"), p -> disk(p, "2Gi")));
    m.put(
        "spec.storage.disk.fileSize",
        new Mutation(
            p -> disk(p, "1Gi"),
            p -> p.getSpec().getStorage().getDisk().setFileSize(new Quantity("32Mi"))));
    m.put(
        "spec.storage.disk.emptyDir.sizeLimit",
        new Mutation(
            p -> disk(p, "1Gi").setEmptyDir(new DiskEmptyDir()),
            p ->
                p.getSpec()
                    .getStorage()
                    .getDisk()
                    .getEmptyDir()
                    .setSizeLimit(new Quantity("2Gi"))));
    m.put(
        "spec.storage.disk.hostPath.path",
        new Mutation(
            p -> disk(p, "1Gi").setHostPath(hostPath("/mnt/a")),
            p -> p.getSpec().getStorage().getDisk().getHostPath().setPath("/mnt/b")));
    // NONE: the schema refuses a change of a stored pool's claim; the pods do not change.
    m.put(
        "spec.storage.disk.volumeClaim.storageClassName",
        new Mutation(
            p -> disk(p, "1Gi").setVolumeClaim(new DiskVolumeClaim()),
            p -> p.getSpec().getStorage().getDisk().getVolumeClaim().setStorageClassName("ssd")));
    m.put(
        "spec.storage.disk.volumeClaim.size",
        new Mutation(
            p -> disk(p, "1Gi").setVolumeClaim(new DiskVolumeClaim()),
            p -> p.getSpec().getStorage().getDisk().getVolumeClaim().setSize(new Quantity("4Gi"))));

    // NONE; the client ConfigMap changes (KVPOOL_OBJECT_REPLICAS): clients write that many copies.
    m.put("spec.objectReplicas", change(p -> p.getSpec().setObjectReplicas(3)));
    m.put("spec.leaseTtl", change(p -> p.getSpec().setLeaseTtl("3s")));
    m.put("spec.nodeTtl", change(p -> p.getSpec().setNodeTtl("20s")));

    m.put(
        "spec.eviction.highWatermark",
        change(p -> p.getSpec().getEviction().setHighWatermark(0.8)));
    m.put("spec.eviction.evictRatio", change(p -> p.getSpec().getEviction().setEvictRatio(0.2)));

    // NONE: read by the rollout planner and the version policy only; nothing rendered changes.
    m.put("spec.upgrade.paused", change(p -> p.getSpec().getUpgrade().setPaused(true)));
    m.put("spec.upgrade.stepTimeout", change(p -> p.getSpec().getUpgrade().setStepTimeout("20m")));
    m.put(
        "spec.upgrade.onFailure",
        change(p -> p.getSpec().getUpgrade().setOnFailure(UpgradeFailurePolicy.Rollback)));
    m.put(
        "spec.upgrade.allowDowngrade",
        change(p -> p.getSpec().getUpgrade().setAllowDowngrade(true)));

    // NONE: read by the autoscaler only; it writes spec.storage.replicas, whose impact is SCALE.
    m.put("spec.storage.autoscaling.enabled", change(p -> autoscaling(p).setEnabled(true)));
    m.put("spec.storage.autoscaling.minReplicas", change(p -> autoscaling(p).setMinReplicas(2)));
    m.put("spec.storage.autoscaling.maxReplicas", change(p -> autoscaling(p).setMaxReplicas(6)));
    m.put(
        "spec.storage.autoscaling.targets.fullnessPercent",
        change(p -> targets(p).setFullnessPercent(70)));
    m.put(
        "spec.storage.autoscaling.targets.capacityMissesPerSecond",
        change(p -> targets(p).setCapacityMissesPerSecond(2.5)));
    m.put(
        "spec.storage.autoscaling.scaleUp.stabilizationWindowSeconds",
        change(p -> scaleUp(p).setStabilizationWindowSeconds(30)));
    m.put("spec.storage.autoscaling.scaleUp.maxStep", change(p -> scaleUp(p).setMaxStep(2)));
    m.put(
        "spec.storage.autoscaling.scaleDown.stabilizationWindowSeconds",
        change(p -> scaleDown(p).setStabilizationWindowSeconds(600)));
    m.put("spec.storage.autoscaling.scaleDown.maxStep", change(p -> scaleDown(p).setMaxStep(2)));

    m.put("spec.transferEngineRef", change(p -> TestPools.withEngine(p, "fast")));
    m.put(
        "spec.scheduling",
        change(p -> p.getSpec().setScheduling(scheduling(Map.of("kvpool.io/role", "storage")))));

    m.put(
        "spec.security.authentication",
        change(p -> p.getSpec().getSecurity().setAuthentication(false)));
    m.put(
        "spec.security.tlsSecretName",
        change(p -> p.getSpec().getSecurity().setTlsSecretName("p-tls")));
    m.put(
        "spec.security.networkPolicy.enabled",
        change(p -> p.getSpec().getSecurity().getNetworkPolicy().setEnabled(false)));
    m.put(
        "spec.security.networkPolicy.monitoringNamespace",
        change(
            p ->
                p.getSpec().getSecurity().getNetworkPolicy().setMonitoringNamespace("monitoring")));
    m.put(
        "spec.security.networkPolicy.clientsFromAllNamespaces",
        change(
            p -> p.getSpec().getSecurity().getNetworkPolicy().setClientsFromAllNamespaces(true)));
    m.put("spec.events.enabled", change(p -> p.getSpec().getEvents().setEnabled(true)));
    // with events off nothing of them is rendered: each setting is changed on a pool that publishes
    Consumer<KvCachePool> publishing = p -> p.getSpec().getEvents().setEnabled(true);
    m.put("spec.events.port", new Mutation(publishing, p -> p.getSpec().getEvents().setPort(6557)));
    m.put(
        "spec.events.replayPort",
        new Mutation(publishing, p -> p.getSpec().getEvents().setReplayPort(6558)));
    m.put(
        "spec.events.medium",
        new Mutation(publishing, p -> p.getSpec().getEvents().setMedium("cpu")));
    m.put(
        "spec.events.model",
        new Mutation(publishing, p -> p.getSpec().getEvents().setModel("Qwen/Qwen3-8B")));
    return m;
  }

  private static AutoscalingSpec autoscaling(KvCachePool p) {
    if (p.getSpec().getStorage().getAutoscaling() == null) {
      p.getSpec().getStorage().setAutoscaling(new AutoscalingSpec());
    }
    return p.getSpec().getStorage().getAutoscaling();
  }

  private static AutoscalingTargets targets(KvCachePool p) {
    if (autoscaling(p).getTargets() == null) {
      autoscaling(p).setTargets(new AutoscalingTargets());
    }
    return autoscaling(p).getTargets();
  }

  private static ScaleUpBehavior scaleUp(KvCachePool p) {
    if (autoscaling(p).getScaleUp() == null) {
      autoscaling(p).setScaleUp(new ScaleUpBehavior());
    }
    return autoscaling(p).getScaleUp();
  }

  private static ScaleDownBehavior scaleDown(KvCachePool p) {
    if (autoscaling(p).getScaleDown() == null) {
      autoscaling(p).setScaleDown(new ScaleDownBehavior());
    }
    return autoscaling(p).getScaleDown();
  }

  @Test
  void everyAnnotatedFieldHasAMutationAndNoMore() {
    Map<String, Impact> declared = declaredImpacts();

    assertThat(declared).as("annotated fields found by reflection").isNotEmpty();
    Set<String> missing = new TreeSet<>(declared.keySet());
    missing.removeAll(MUTATIONS.keySet());
    Set<String> stale = new TreeSet<>(MUTATIONS.keySet());
    stale.removeAll(declared.keySet());
    SoftAssertions softly = new SoftAssertions();
    softly
        .assertThat(missing)
        .as(
            "@SpecDiff fields without a mutation in SpecDiffTest.MUTATIONS (add how to change each to another valid"
                + " value)")
        .isEmpty();
    softly
        .assertThat(stale)
        .as("mutations in SpecDiffTest.MUTATIONS of no @SpecDiff field")
        .isEmpty();
    softly.assertAll();
  }

  @Test
  void everySpecFieldDeclaresItsImpact() {
    List<String> undeclared = new ArrayList<>();
    walk(KvCachePoolSpec.class, "spec", new LinkedHashMap<>(), undeclared);

    assertThat(undeclared)
        .as("spec fields that are neither a nested spec nor annotated with @SpecDiff")
        .isEmpty();
  }

  @Test
  void whatIsRenderedHasExactlyTheDeclaredImpact() {
    SoftAssertions softly = new SoftAssertions();
    declaredImpacts()
        .forEach(
            (path, declared) -> {
              Mutation mutation = MUTATIONS.get(path);
              if (mutation == null) {
                return; // reported by everyAnnotatedFieldHasAMutationAndNoMore
              }
              KvCachePool before = defaulted();
              mutation.given().accept(before);
              KvCachePool after = defaulted();
              mutation.given().accept(after);
              mutation.change().accept(after);

              // valid as the operator checks a spec (no running StatefulSet given, so spec.image
              // may change alone)
              softly
                  .assertThat(PoolSpecValidator.validate(after, engineOf(after), Optional.empty()))
                  .as("%s: the changed pool must be valid", path)
                  .isEmpty();
              List<String> otherChanges = changedFieldsOtherThan(path, before, after);
              if (!Objects.equals(read(before, path), read(after, path))
                  && otherChanges.isEmpty()) {
                Changes changes = Changes.between(render(before), render(after));
                if (!changes.matches(declared)) {
                  softly.fail(
                      "%s is declared %s, but what the operator renders changed: %s",
                      path, declared, changes);
                }
              } else {
                softly.fail(
                    "%s: the mutation must change exactly that field (it changed %s)",
                    path, otherChanges.isEmpty() ? "nothing" : otherChanges);
              }
            });
    softly.assertAll();
  }

  /**
   * The engine's own spec is not a pool field, but the README promises it rolls the storage nodes
   * only.
   */
  @Test
  void aChangeOfTheReferencedEngineRestartsTheStorageNodesOnly() {
    KvCachePool pool = TestPools.withEngine(defaulted(), "fast");

    Changes changes =
        Changes.between(render(pool, ENGINES), render(pool, Map.of("fast", engine(50080))));

    assertThat(changes.matches(Impact.RESTART_STORAGE)).as("%s", changes).isTrue();
  }

  // ---- the annotated fields

  /** Every annotated field reachable from the spec, by path, in declaration order. */
  static Map<String, Impact> declaredImpacts() {
    Map<String, Impact> impacts = new LinkedHashMap<>();
    walk(KvCachePoolSpec.class, "spec", impacts, new ArrayList<>());
    return impacts;
  }

  /**
   * Annotated fields are leaves; unannotated fields holding a class of the API package are nested
   * specs.
   */
  private static void walk(
      Class<?> type, String prefix, Map<String, Impact> impacts, List<String> undeclared) {
    for (Field field : type.getDeclaredFields()) {
      if (Modifier.isStatic(field.getModifiers()) || field.isSynthetic()) {
        continue;
      }
      String path = prefix + "." + field.getName();
      SpecDiff diff = field.getAnnotation(SpecDiff.class);
      if (diff != null) {
        impacts.put(path, diff.value());
      } else if (isNestedSpec(field.getType())) {
        walk(field.getType(), path, impacts, undeclared);
      } else {
        undeclared.add(path);
      }
    }
  }

  private static boolean isNestedSpec(Class<?> type) {
    return type.getPackageName().equals(API_PACKAGE) && !type.isEnum() && !type.isPrimitive();
  }

  /** The value at {@code path} ("spec.storage.port"), null when a block on the way is absent. */
  private static Object read(KvCachePool pool, String path) {
    Object value = pool.getSpec();
    for (String name : path.substring("spec.".length()).split("\\.")) {
      if (value == null) {
        return null;
      }
      try {
        Field field = value.getClass().getDeclaredField(name);
        field.setAccessible(true);
        value = field.get(value);
      } catch (ReflectiveOperationException e) {
        throw new IllegalStateException("cannot read " + path + " at " + name, e);
      }
    }
    return value;
  }

  private static List<String> changedFieldsOtherThan(
      String path, KvCachePool before, KvCachePool after) {
    return declaredImpacts().keySet().stream()
        .filter(other -> !other.equals(path))
        .filter(other -> !Objects.equals(read(before, other), read(after, other)))
        .toList();
  }

  // ---- the pools

  /**
   * {@link TestPools#defaultedPool} with also the defaults it leaves out (pull policy, upgrade,
   * warm restarts, security), as the API server returns a pool written with only the required
   * fields.
   */
  private static KvCachePool defaulted() {
    KvCachePool pool = TestPools.defaultedPool(NAMESPACE, POOL);
    KvCachePoolSpec spec = pool.getSpec();
    spec.setImagePullPolicy(ImagePullPolicy.IfNotPresent);
    UpgradeSpec upgrade = new UpgradeSpec();
    upgrade.setPaused(false);
    upgrade.setStepTimeout("10m");
    upgrade.setOnFailure(UpgradeFailurePolicy.Pause);
    upgrade.setAllowDowngrade(false);
    spec.setUpgrade(upgrade);
    WarmRestartSpec warm = new WarmRestartSpec();
    warm.setEnabled(false);
    warm.setHostPath("/dev/shm/kvpool");
    spec.getStorage().setWarmRestart(warm);
    SecuritySpec security = new SecuritySpec();
    security.setAuthentication(true);
    NetworkPolicySpec networkPolicy = new NetworkPolicySpec();
    networkPolicy.setEnabled(true);
    networkPolicy.setClientsFromAllNamespaces(false);
    security.setNetworkPolicy(networkPolicy);
    spec.setSecurity(security);
    EventsSpec events = new EventsSpec();
    events.setEnabled(false);
    events.setPort(EventsSpec.DEFAULT_PORT);
    events.setReplayPort(EventsSpec.DEFAULT_REPLAY_PORT);
    spec.setEvents(events);
    return pool;
  }

  private static DiskTierSpec disk(KvCachePool pool, String size) {
    DiskTierSpec disk = pool.getSpec().getStorage().getDisk();
    if (disk == null) {
      disk = new DiskTierSpec();
      pool.getSpec().getStorage().setDisk(disk);
    }
    disk.setSize(new Quantity(size));
    return disk;
  }

  private static DiskHostPath hostPath(String path) {
    DiskHostPath hostPath = new DiskHostPath();
    hostPath.setPath(path);
    return hostPath;
  }

  private static SchedulingSpec scheduling(Map<String, String> nodeSelector) {
    SchedulingSpec scheduling = new SchedulingSpec();
    scheduling.setNodeSelector(nodeSelector);
    return scheduling;
  }

  private static TransferEngine engine(int port) {
    TransferEngine engine = TestPools.tcpEngine(NAMESPACE, "fast");
    engine.getSpec().setPort(port);
    return engine;
  }

  // ---- what the operator renders

  /** The objects a spec change can reach, as the dependents render them from the spec. */
  private record Rendered(
      StatefulSet master,
      StatefulSet storage,
      Map<String, String> poolConfig,
      Map<String, String> clientConfig,
      Optional<NetworkPolicy> networkPolicy) {}

  private static Rendered render(KvCachePool pool) {
    return render(pool, ENGINES);
  }

  private static Optional<TransferEngine> engineOf(KvCachePool pool) {
    return Optional.ofNullable(pool.getSpec().getTransferEngineRef())
        .map(ref -> ENGINES.get(ref.getName()));
  }

  private static Rendered render(KvCachePool pool, Map<String, TransferEngine> engines) {
    TransportSettings transport =
        pool.getSpec().getTransferEngineRef() == null
            ? TransportSettings.PLAIN_TCP
            : TransportSettings.of(engines.get(pool.getSpec().getTransferEngineRef().getName()));
    // The NetworkPolicy exists only while enabled (the workflow's NetworkPolicyOn precondition).
    Optional<NetworkPolicy> networkPolicy =
        PoolSecurity.of(pool).networkPolicy()
            ? Optional.of(NetworkPolicies.of(pool, OPERATOR_NAMESPACE))
            : Optional.empty();
    return new Rendered(
        StatefulSets.master(pool),
        StatefulSets.storage(pool, transport),
        ConfigMaps.pool(pool).getData(),
        ConfigMaps.client(pool, transport).getData(),
        networkPolicy);
  }

  /** What differs between two renderings. */
  private record Changes(
      boolean masterTemplate,
      boolean storageTemplate,
      boolean release,
      String storageReplicas,
      Set<String> startKeys,
      Set<String> liveKeys,
      Set<String> clientKeys,
      boolean networkPolicy) {

    static Changes between(Rendered before, Rendered after) {
      Integer replicasBefore = before.storage().getSpec().getReplicas();
      Integer replicasAfter = after.storage().getSpec().getReplicas();
      Set<String> changedPoolKeys = changedKeys(before.poolConfig(), after.poolConfig());
      Set<String> liveKeys = new TreeSet<>(changedPoolKeys);
      liveKeys.retainAll(ConfigMaps.LIVE_KEYS);
      Set<String> startKeys = new TreeSet<>(changedPoolKeys);
      startKeys.removeAll(ConfigMaps.LIVE_KEYS);
      return new Changes(
          !templateHash(before.master()).equals(templateHash(after.master())),
          !templateHash(before.storage()).equals(templateHash(after.storage())),
          !releaseAndImage(before).equals(releaseAndImage(after)),
          Objects.equals(replicasBefore, replicasAfter)
              ? null
              : replicasBefore + " -> " + replicasAfter,
          startKeys,
          liveKeys,
          changedKeys(before.clientConfig(), after.clientConfig()),
          !before.networkPolicy().equals(after.networkPolicy()));
    }

    /** The impact these changes have on a running pool, or null when they are no single impact. */
    Impact impact() {
      if (storageReplicas != null && (masterTemplate || storageTemplate)) {
        return null;
      }
      if (masterTemplate && storageTemplate) {
        return release ? Impact.UPGRADE : Impact.RESTART_ALL;
      }
      if (release) {
        return null; // a new release that does not replace every pod
      }
      if (storageTemplate) {
        return Impact.RESTART_STORAGE;
      }
      if (masterTemplate) {
        return Impact.RESTART_MASTERS;
      }
      if (!startKeys.isEmpty()) {
        return null; // settings read at start changed, but no pod is replaced: they would go stale
      }
      if (storageReplicas != null) {
        return Impact.SCALE;
      }
      return liveKeys.isEmpty() && !networkPolicy ? Impact.NONE : Impact.LIVE;
    }

    boolean matches(Impact declared) {
      return impact() == declared;
    }

    @Override
    public String toString() {
      List<String> parts = new ArrayList<>();
      if (masterTemplate) {
        parts.add("master template hash");
      }
      if (storageTemplate) {
        parts.add("storage template hash");
      }
      if (release) {
        parts.add("release/image of the StatefulSets");
      }
      if (storageReplicas != null) {
        parts.add("storage replicas " + storageReplicas);
      }
      if (!startKeys.isEmpty()) {
        parts.add("pool ConfigMap keys read at start " + startKeys);
      }
      if (!liveKeys.isEmpty()) {
        parts.add("pool ConfigMap live keys " + liveKeys);
      }
      if (networkPolicy) {
        parts.add("NetworkPolicy");
      }
      if (!clientKeys.isEmpty()) {
        parts.add("client ConfigMap keys " + clientKeys);
      }
      return (parts.isEmpty() ? "nothing" : String.join(", ", parts))
          + " (impact: "
          + (impact() == null ? "none of the declared kinds" : impact())
          + ")";
    }

    private static String templateHash(StatefulSet sts) {
      return sts.getSpec()
          .getTemplate()
          .getMetadata()
          .getAnnotations()
          .get(PoolLabels.TEMPLATE_ANNOTATION);
    }

    private static List<String> releaseAndImage(Rendered rendered) {
      List<String> values = new ArrayList<>();
      for (StatefulSet sts : List.of(rendered.master(), rendered.storage())) {
        values.add(sts.getMetadata().getAnnotations().get(PoolLabels.RELEASE_ANNOTATION));
        values.add(sts.getMetadata().getAnnotations().get(PoolLabels.IMAGE_ANNOTATION));
      }
      return values;
    }

    private static Set<String> changedKeys(Map<String, String> before, Map<String, String> after) {
      Set<String> keys = new TreeSet<>(before.keySet());
      keys.addAll(after.keySet());
      keys.removeIf(key -> Objects.equals(before.get(key), after.get(key)));
      return keys;
    }
  }
}
