package io.kvpool.operator.rollout;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.kvpool.api.v1alpha1.KvCachePool;
import io.kvpool.operator.admin.PoolAdminClient;
import io.kvpool.operator.admin.PoolAdminException;
import io.kvpool.operator.common.KubernetesEventRecorder;
import io.kvpool.operator.common.PoolEvent;
import io.kvpool.operator.common.PoolEventReason;
import io.kvpool.operator.common.PoolLabels;
import io.kvpool.operator.common.StatusMessage;
import io.kvpool.operator.rollout.RolloutPlan.Action;
import java.net.URI;
import java.util.Collection;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Carries out the one action a rollout plan names, each with an Event saying why: a drain or a
 * step-down at the leader's admin API (with the pool's admin token), a pod deleted (only the very
 * pod the plan looked at: same UID and resource version, so a stale cache never deletes its
 * replacement), a drained surplus pod marked for removal. Also keeps the image check pods: creates
 * the one the release gate waits for, deletes those no longer needed.
 */
public final class RolloutExecutor {
  private static final Logger LOG = LoggerFactory.getLogger(RolloutExecutor.class);

  private final KubernetesClient client;
  private final PoolAdminClient admin;
  private final KubernetesEventRecorder events;

  public RolloutExecutor(KubernetesClient client, PoolAdminClient admin) {
    this.client = client;
    this.admin = admin;
    this.events = new KubernetesEventRecorder(client);
  }

  /**
   * What happened: the action taken and the Event announcing it (published by the caller, after the
   * status' own), or why it failed (the next reconciliation plans again).
   */
  public record Outcome(Action acted, PoolEvent event, String failure) {
    static Outcome none() {
      return new Outcome(null, null, null);
    }
  }

  /**
   * Carries out {@code action} on {@code pool}.
   *
   * @param pods the pool's pods as the plan saw them, by name
   * @param adminBase where the leader's admin API is
   * @param adminToken the pool's admin token (empty without keys)
   */
  public Outcome execute(
      KvCachePool pool,
      Action action,
      Map<String, Pod> pods,
      Optional<URI> adminBase,
      String adminToken) {
    String name = pool.getMetadata().getName();
    PoolEvent event;
    try {
      if (action instanceof RolloutPlan.Drain d) {
        admin.drain(
            adminBase.orElseThrow(() -> new PoolAdminException("no leader address", null)),
            d.pod(),
            adminToken);
        event = new PoolEvent(PoolEventReason.DrainingStorageNode, d.describe());
      } else if (action instanceof RolloutPlan.StepDown s) {
        admin.stepDown(
            adminBase.orElseThrow(() -> new PoolAdminException("no leader address", null)),
            adminToken);
        event = new PoolEvent(PoolEventReason.LeaderSteppingDown, s.describe());
      } else if (action instanceof RolloutPlan.Replace r) {
        if (!delete(pods.get(r.pod()))) {
          return Outcome.none(); // already replaced: the next plan sees the new pod
        }
        event = new PoolEvent(PoolEventReason.ReplacingPod, r.describe());
      } else if (action instanceof RolloutPlan.MarkDrained m) {
        markDrained(pods.get(m.pod()));
        event = new PoolEvent(PoolEventReason.StorageNodeRemoved, m.describe());
      } else {
        return Outcome.none();
      }
      LOG.info(
          "event=rollout_step pool={} action={} pod={}",
          name,
          action.getClass().getSimpleName(),
          action.pod());
      return new Outcome(action, event, null);
    } catch (PoolAdminException e) {
      return new Outcome(null, null, "could not " + verb(action) + ": " + e.getMessage());
    } catch (KubernetesClientException e) {
      if (e.getCode() == 409 || e.getCode() == 404) {
        return Outcome.none(); // the pod changed meanwhile: plan again from what is there now
      }
      return new Outcome(null, null, "could not " + verb(action) + ": " + e.getMessage());
    }
  }

  /**
   * Creates the check pod of {@code image} when missing; an Event says so. Returns why the pod
   * could not be created (the API server refused it: RBAC, Pod Security admission, a quota), else
   * empty.
   */
  public Optional<String> ensureImageCheck(
      KvCachePool pool, String image, String pullPolicy, Collection<Pod> pods) {
    String podName = ImageCheck.podName(pool, image);
    if (pods.stream().anyMatch(p -> p.getMetadata().getName().equals(podName))) {
      return Optional.empty();
    }
    try {
      client
          .pods()
          .inNamespace(pool.getMetadata().getNamespace())
          .resource(ImageCheck.pod(pool, image, pullPolicy))
          .create();
      events.record(
          pool,
          PoolEventReason.ImageCheckStarted.type(),
          PoolEventReason.ImageCheckStarted.name(),
          "checking what image "
              + image
              + " declares (release, protocol, inventory format) in pod "
              + podName
              + " before any pod is replaced");
    } catch (KubernetesClientException e) {
      if (e.getCode() != 409) {
        LOG.warn(
            "event=image_check_not_created pool={} image={} error=\"{}\"",
            pool.getMetadata().getName(),
            image,
            e.getMessage());
        return Optional.of(
            "could not create pod "
                + podName
                + " to check image "
                + image
                + ": "
                + StatusMessage.bound(
                    e.getStatus() != null && e.getStatus().getMessage() != null
                        ? e.getStatus().getMessage()
                        : e.getMessage()));
      }
    }
    return Optional.empty();
  }

  /** Deletes the check pods of images not in {@code needed}. */
  public void removeImageChecks(KvCachePool pool, Collection<Pod> checkPods, Set<String> needed) {
    for (Pod p : checkPods) {
      if (ImageCheck.imageOf(p).map(needed::contains).orElse(false)) {
        continue;
      }
      try {
        client
            .pods()
            .inNamespace(pool.getMetadata().getNamespace())
            .withName(p.getMetadata().getName())
            .delete();
      } catch (KubernetesClientException e) {
        LOG.debug(
            "event=image_check_not_deleted pod={} error=\"{}\"",
            p.getMetadata().getName(),
            e.getMessage());
      }
    }
  }

  /**
   * Deletes exactly the pod observed; false when it is already gone or another pod has its name
   * now.
   */
  private boolean delete(Pod observed) {
    if (observed == null) {
      return false;
    }
    String ns = observed.getMetadata().getNamespace();
    Pod fresh = client.pods().inNamespace(ns).withName(observed.getMetadata().getName()).get();
    if (fresh == null
        || !fresh.getMetadata().getUid().equals(observed.getMetadata().getUid())
        || fresh.getMetadata().getDeletionTimestamp() != null) {
      return false;
    }
    client
        .pods()
        .inNamespace(ns)
        .resource(fresh)
        .lockResourceVersion(fresh.getMetadata().getResourceVersion())
        .delete();
    return true;
  }

  private void markDrained(Pod observed) {
    if (observed == null) {
      return; // gone already: the StatefulSet may shrink
    }
    client
        .pods()
        .inNamespace(observed.getMetadata().getNamespace())
        .withName(observed.getMetadata().getName())
        .edit(
            p -> {
              if (!p.getMetadata().getUid().equals(observed.getMetadata().getUid())) {
                throw new KubernetesClientException(
                    "pod " + p.getMetadata().getName() + " was replaced", 409, null);
              }
              p.getMetadata().getAnnotations().put(PoolLabels.DRAINED_ANNOTATION, "true");
              return p;
            });
  }

  private static String verb(Action action) {
    if (action instanceof RolloutPlan.Drain d) {
      return "drain " + d.pod() + " at the leader";
    }
    if (action instanceof RolloutPlan.StepDown s) {
      return "ask leader " + s.pod() + " to step down";
    }
    return action.getClass().getSimpleName().toLowerCase() + " " + action.pod();
  }
}
