package io.kvpool.operator.pool;

import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.kvpool.api.v1alpha1.KvCachePool;
import io.kvpool.api.v1alpha1.TransferEngine;
import io.kvpool.operator.common.ByteQuantity;
import io.kvpool.operator.common.PoolLabels;
import io.kvpool.operator.transferengine.TransportSettings;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Checks what the CRD schema and CEL rules cannot: rules that need another object (the referenced
 * TransferEngine, the running StatefulSet) or arithmetic across fields. An empty result means valid.
 */
public final class PoolSpecValidator {
  /**
   * The smallest segment worth having: one largest KV-cache value (16 MiB, DESIGN.md) must fit in a
   * segment, else puts of large blocks can never be placed on the node.
   */
  public static final long MIN_SEGMENT_BYTES = 16L << 20;

  private PoolSpecValidator() {
  }

  /**
   * @param engine the TransferEngine named by spec.transferEngineRef, when it exists
   * @param liveMaster the master StatefulSet as it runs now, when it exists
   */
  public static List<String> validate(KvCachePool pool, Optional<TransferEngine> engine,
      Optional<StatefulSet> liveMaster) {
    List<String> problems = new ArrayList<>();
    DataPlaneSettings settings;
    try {
      settings = DataPlaneSettings.of(pool);
    } catch (RuntimeException e) {
      problems.add(e.getMessage());
      return problems;
    }
    checkTransferEngine(pool, engine, problems);
    checkSegments(settings, problems);
    if (settings.objectReplicas() > settings.storageReplicas()) {
      problems.add("spec.objectReplicas (" + settings.objectReplicas() + ") exceeds spec.storage.replicas ("
          + settings.storageReplicas() + "); every replica needs its own storage node");
    }
    liveMaster.ifPresent(sts -> checkImageFollowsVersion(settings, sts, problems));
    return problems;
  }

  private static void checkTransferEngine(KvCachePool pool, Optional<TransferEngine> engine, List<String> problems) {
    if (pool.getSpec().getTransferEngineRef() == null) {
      return;
    }
    String name = pool.getSpec().getTransferEngineRef().getName();
    if (engine.isEmpty()) {
      problems.add("spec.transferEngineRef.name: TransferEngine '" + name + "' does not exist in namespace '"
          + pool.getMetadata().getNamespace() + "'; create it or remove the reference to use plain TCP");
      return;
    }
    TransportSettings transport = TransportSettings.of(engine.get());
    if (TransportSettings.needsDevices(transport.protocol()) && transport.devices().isEmpty()) {
      problems.add("TransferEngine '" + name + "' uses protocol " + transport.protocolName()
          + " but declares no spec.devices (resourceName and count); add the device-plugin resource to it");
    }
  }

  private static void checkSegments(DataPlaneSettings settings, List<String> problems) {
    if (settings.memoryPerNodeBytes() <= 0) {
      problems.add("spec.storage.memoryPerNode must be positive, e.g. 4Gi");
      return;
    }
    if (settings.segmentBytes() < MIN_SEGMENT_BYTES) {
      problems.add("spec.storage.memoryPerNode (" + ByteQuantity.display(settings.memoryPerNodeBytes())
          + ") split into " + settings.segments() + " segment(s) gives "
          + ByteQuantity.display(settings.segmentBytes()) + " per segment, below the minimum segment of "
          + ByteQuantity.display(MIN_SEGMENT_BYTES) + "; raise memoryPerNode or lower segments");
    }
  }

  /** An image swap under the same release would bypass the version gate of upgrades. */
  private static void checkImageFollowsVersion(DataPlaneSettings settings, StatefulSet live, List<String> problems) {
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
      problems.add("spec.image changed from " + liveImage + " to " + settings.image() + " while spec.version stayed "
          + liveVersion + "; change spec.version together with the image so the change goes through the"
          + " upgrade rules, or restore the image");
    }
  }
}
