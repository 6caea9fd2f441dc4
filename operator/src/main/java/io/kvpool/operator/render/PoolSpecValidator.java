package io.kvpool.operator.render;

import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceRequirements;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.kvpool.api.v1alpha1.ApiLimits;
import io.kvpool.api.v1alpha1.KvCachePool;
import io.kvpool.api.v1alpha1.KvCachePoolSpec;
import io.kvpool.api.v1alpha1.TransferEngine;
import io.kvpool.api.v1alpha1.TransferProtocol;
import io.kvpool.api.v1alpha1.UpgradeSpec;
import io.kvpool.operator.common.ByteQuantity;
import io.kvpool.operator.common.DataPlaneDurations;
import io.kvpool.operator.common.InvalidSpecException;
import io.kvpool.operator.common.PoolLabels;
import io.kvpool.operator.transferengine.TransportSettings;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * Checks a pool's spec before anything is created from it. Mostly what the CRD schema and CEL rules
 * cannot: rules that need another object (the referenced TransferEngine, the running StatefulSet)
 * or arithmetic the schema has no budget for. It also repeats the schema's bounds on names,
 * versions, images, durations and quantities, because an object stored under an older, looser
 * schema keeps its values until it is next written. An empty result means valid; each problem is
 * one sentence naming the field. Reading the spec never throws.
 */
public final class PoolSpecValidator {
  /**
   * The smallest segment worth having: one largest KV-cache value (16 MiB, DESIGN.md) must fit in a
   * segment.
   */
  public static final long MIN_SEGMENT_BYTES = ApiLimits.MIN_SEGMENT_BYTES;

  private static final Pattern POOL_NAME = Pattern.compile(ApiLimits.POOL_NAME_PATTERN);
  private static final Pattern VERSION = Pattern.compile(ApiLimits.VERSION_PATTERN);
  private static final Pattern IMAGE = Pattern.compile(ApiLimits.IMAGE_PATTERN);

  private PoolSpecValidator() {}

  /**
   * @param engine the TransferEngine named by spec.transferEngineRef, when it exists
   * @param liveMaster the master StatefulSet as it runs now, when it exists
   */
  public static List<String> validate(
      KvCachePool pool, Optional<TransferEngine> engine, Optional<StatefulSet> liveMaster) {
    List<String> problems = new ArrayList<>();
    checkName(pool.getMetadata().getName(), problems);
    KvCachePoolSpec spec = pool.getSpec();
    if (spec == null) {
      problems.add("spec is missing; set at least spec.version and spec.storage.memoryPerNode");
      return problems;
    }
    checkVersion(spec.getVersion(), problems);
    checkImage(spec.getImage(), problems);
    checkDurations(spec, problems);
    DataPlaneSettings settings;
    try {
      settings = DataPlaneSettings.of(pool);
      checkMasterMemory(MasterResources.of(settings).resources(), problems);
      StorageResources.memoryLimitBytes(settings);
    } catch (InvalidSpecException e) {
      problems.add(e.getMessage());
      return problems;
    }
    Optional<TransportSettings> transport = checkTransferEngine(pool, engine, problems);
    checkSegments(settings, problems);
    problems.addAll(DiskTierCheck.problems(pool));
    if (settings.objectReplicas() > settings.storageReplicas()) {
      problems.add(
          "spec.objectReplicas ("
              + settings.objectReplicas()
              + ") exceeds spec.storage.replicas ("
              + settings.storageReplicas()
              + "); every replica needs its own storage node");
    }
    transport.ifPresent(t -> checkPorts(settings, t, problems));
    liveMaster.ifPresent(sts -> checkImageFollowsVersion(settings, sts, problems));
    return problems;
  }

  private static void checkName(String name, List<String> problems) {
    if (name == null
        || name.length() > ApiLimits.MAX_POOL_NAME
        || !POOL_NAME.matcher(name).matches()) {
      problems.add(
          "metadata.name '"
              + name
              + "' cannot name the pool's objects: use at most "
              + ApiLimits.MAX_POOL_NAME
              + " lowercase letters, digits and '-', starting with a letter and ending with a"
              + " letter or digit (recreate the pool under such a name)");
    }
  }

  private static void checkVersion(String version, List<String> problems) {
    if (version == null) {
      problems.add("spec.version is missing; set the data-plane release, e.g. 1.2.0");
    } else if (version.length() > ApiLimits.MAX_VERSION
        || !VERSION.matcher(version).matches()
        || !Character.isLetterOrDigit(version.charAt(version.length() - 1))) {
      problems.add(
          "spec.version '"
              + version
              + "' is not a release the pods can be labelled with: use a semantic"
              + " version such as 1.2.0 or 1.3.0-rc.1, without +build metadata, at most "
              + ApiLimits.MAX_VERSION
              + " characters");
    }
  }

  private static void checkImage(String image, List<String> problems) {
    if (image != null
        && !image.isEmpty()
        && (image.length() > ApiLimits.MAX_IMAGE || !IMAGE.matcher(image).matches())) {
      problems.add(
          "spec.image '"
              + image
              + "' is not an image reference; write it like"
              + " registry.example.com/kvpool/data-plane:1.2.0, without spaces");
    }
  }

  private static void checkDurations(KvCachePoolSpec spec, List<String> problems) {
    Optional<Duration> lease =
        duration(
            "spec.leaseTtl",
            spec.getLeaseTtl(),
            KvCachePoolSpec.DEFAULT_LEASE_TTL,
            Duration.ofSeconds(1),
            Duration.ofMinutes(10),
            problems);
    Optional<Duration> node =
        duration(
            "spec.nodeTtl",
            spec.getNodeTtl(),
            KvCachePoolSpec.DEFAULT_NODE_TTL,
            Duration.ofSeconds(3),
            Duration.ofMinutes(10),
            problems);
    if (lease.isPresent() && node.isPresent() && lease.get().compareTo(node.get()) > 0) {
      problems.add(
          "spec.leaseTtl ("
              + spec.getLeaseTtl()
              + ") exceeds spec.nodeTtl ("
              + spec.getNodeTtl()
              + "); a read lease must not outlive the time after which a silent storage node is declared dead");
    }
    String stepTimeout = spec.getUpgrade() == null ? null : spec.getUpgrade().getStepTimeout();
    duration(
        "spec.upgrade.stepTimeout",
        stepTimeout,
        UpgradeSpec.DEFAULT_STEP_TIMEOUT,
        Duration.ofSeconds(10),
        Duration.ofHours(24),
        problems);
  }

  private static Optional<Duration> duration(
      String field,
      String value,
      String fallback,
      Duration min,
      Duration max,
      List<String> problems) {
    String text = value == null ? fallback : value;
    Optional<Duration> parsed = DataPlaneDurations.parse(text);
    if (parsed.isEmpty()) {
      problems.add(
          field
              + " '"
              + text
              + "' is not a duration the data plane reads; write whole ms, s or m, e.g. "
              + fallback);
      return Optional.empty();
    }
    if (parsed.get().compareTo(min) < 0 || parsed.get().compareTo(max) > 0) {
      problems.add(
          field
              + " ("
              + text
              + ") must be between "
              + DataPlaneDurations.format(min)
              + " and "
              + DataPlaneDurations.format(max));
      return Optional.empty();
    }
    return parsed;
  }

  private static void checkMasterMemory(ResourceRequirements master, List<String> problems) {
    for (Map.Entry<String, Map<String, Quantity>> side :
        new TreeMap<>(Map.of("limits", master.getLimits(), "requests", master.getRequests()))
            .entrySet()) {
      String field = MasterResources.FIELD + "." + side.getKey() + ".memory";
      Quantity memory = side.getValue().get("memory");
      if (memory != null && ByteQuantity.bytes(field, memory) < JvmMemory.MIN_BUDGET_BYTES) {
        problems.add(field + " (" + memory + ") is below 256Mi, the least a master's JVM runs in");
      }
    }
  }

  private static Optional<TransportSettings> checkTransferEngine(
      KvCachePool pool, Optional<TransferEngine> engine, List<String> problems) {
    if (pool.getSpec().getTransferEngineRef() == null) {
      return Optional.of(TransportSettings.PLAIN_TCP);
    }
    String name = pool.getSpec().getTransferEngineRef().getName();
    if (engine.isEmpty()) {
      problems.add(
          "spec.transferEngineRef.name: TransferEngine '"
              + name
              + "' does not exist in namespace '"
              + pool.getMetadata().getNamespace()
              + "'; create it or remove the reference to use plain TCP");
      return Optional.empty();
    }
    TransportSettings transport;
    try {
      transport = TransportSettings.of(engine.get());
    } catch (InvalidSpecException e) {
      problems.add(e.getMessage());
      return Optional.empty();
    }
    if (TransportSettings.needsDevices(transport.protocol()) && transport.devices().isEmpty()) {
      problems.add(
          "TransferEngine '"
              + name
              + "' uses protocol "
              + transport.protocolName()
              + " but declares no spec.devices (resourceName and count); add the device-plugin resource to it");
    }
    if (transport.protocol() == TransferProtocol.TCP && transport.devices().isPresent()) {
      problems.add(
          "TransferEngine '"
              + name
              + "' uses protocol tcp but declares spec.devices; the storage pods"
              + " would request devices they never use: remove spec.devices or set protocol ascend");
    }
    return Optional.of(transport);
  }

  private static void checkSegments(DataPlaneSettings settings, List<String> problems) {
    if (settings.memoryPerNodeBytes() <= 0) {
      problems.add("spec.storage.memoryPerNode must be positive, e.g. 4Gi");
      return;
    }
    if (settings.segmentBytes() < MIN_SEGMENT_BYTES) {
      problems.add(
          "spec.storage.memoryPerNode ("
              + ByteQuantity.display(settings.memoryPerNodeBytes())
              + ") split into "
              + settings.segments()
              + " segment(s) gives "
              + ByteQuantity.display(settings.segmentBytes())
              + " per segment, below the minimum segment of "
              + ByteQuantity.display(MIN_SEGMENT_BYTES)
              + "; raise memoryPerNode or lower segments");
    }
  }

  /** The storage container binds its RPC, admin and transfer ports: they must differ. */
  private static void checkPorts(
      DataPlaneSettings settings, TransportSettings transport, List<String> problems) {
    if (transport == TransportSettings.PLAIN_TCP
        && settings.storagePort() != transport.port()
        && settings.storageAdminPort() != transport.port()) {
      return;
    }
    String engine =
        transport.engineName().isEmpty()
            ? "the default transport"
            : "TransferEngine '" + transport.engineName() + "'";
    if (settings.storagePort() == transport.port()) {
      problems.add(
          "spec.storage.port ("
              + settings.storagePort()
              + ") equals spec.port of "
              + engine
              + "; a storage pod binds both, so change one of them");
    }
    if (settings.storageAdminPort() == transport.port()) {
      problems.add(
          "spec.storage.adminPort ("
              + settings.storageAdminPort()
              + ") equals spec.port of "
              + engine
              + "; a storage pod binds both, so change one of them");
    }
  }

  /** An image swap under the same release would bypass the version gate of upgrades. */
  private static void checkImageFollowsVersion(
      DataPlaneSettings settings, StatefulSet live, List<String> problems) {
    Map<String, String> annotations = live.getMetadata().getAnnotations();
    if (annotations == null) {
      return;
    }
    String liveVersion = annotations.get(PoolLabels.RELEASE_ANNOTATION);
    String liveImage = annotations.get(PoolLabels.IMAGE_ANNOTATION);
    if (liveVersion == null || liveImage == null) {
      return;
    }
    if (liveVersion.equals(settings.version()) && !liveImage.equals(settings.image())) {
      problems.add(
          "spec.image changed from "
              + liveImage
              + " to "
              + settings.image()
              + " while spec.version stayed "
              + liveVersion
              + "; change spec.version together with the image so the change goes through the"
              + " upgrade rules, or restore the image");
    }
  }
}
