package io.kvpool.testkube.kubelet;

import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.PodSpecBuilder;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.apps.StatefulSetStatus;
import io.fabric8.kubernetes.api.model.apps.StatefulSetStatusBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the StatefulSet controller of kube-controller-manager does, for the test kubelet's
 * namespace: pods {@code <name>-0..N-1} from the template (hostname and subdomain set, owned by the
 * StatefulSet, labelled with their revision), surplus pods deleted highest ordinal first, {@code
 * RollingUpdate} replacing one outdated ready pod at a time from the highest ordinal ({@code
 * OnDelete}: only pods someone deleted are recreated, with the current template), and the status
 * counts the operator reads.
 */
final class StatefulSetPods {
  static final String REVISION_LABEL = "controller-revision-hash";
  private static final Logger LOG = LoggerFactory.getLogger(StatefulSetPods.class);

  private final KubernetesClient client;
  private final String namespace;

  StatefulSetPods(KubernetesClient client, String namespace) {
    this.client = client;
    this.namespace = namespace;
  }

  void sync(StatefulSet sts, List<Pod> allPods) {
    String name = sts.getMetadata().getName();
    String revision = revision(sts);
    int replicas = sts.getSpec().getReplicas() == null ? 1 : sts.getSpec().getReplicas();
    Map<Integer, Pod> owned = new HashMap<>();
    for (Pod p : allPods) {
      Integer ordinal = ordinal(name, p);
      if (ordinal != null && ownedBy(p, sts)) {
        owned.put(ordinal, p);
      }
    }
    boolean ordered =
        "OrderedReady".equals(sts.getSpec().getPodManagementPolicy())
            || sts.getSpec().getPodManagementPolicy() == null;
    for (int i = 0; i < replicas; i++) {
      if (!owned.containsKey(i)) {
        if (ordered && !allReadyBelow(owned, i)) {
          break;
        }
        create(sts, i, revision);
      }
    }
    owned.entrySet().stream()
        .filter(e -> e.getKey() >= replicas && !terminating(e.getValue()))
        .sorted(Map.Entry.<Integer, Pod>comparingByKey().reversed())
        .forEach(e -> delete(e.getValue(), "scale-down"));
    boolean rolling =
        sts.getSpec().getUpdateStrategy() == null
            || !"OnDelete".equals(sts.getSpec().getUpdateStrategy().getType());
    if (rolling && allReadyBelow(owned, replicas)) {
      for (int i = replicas - 1; i >= 0; i--) {
        if (!revision.equals(owned.get(i).getMetadata().getLabels().get(REVISION_LABEL))) {
          delete(owned.get(i), "rolling update to revision " + revision);
          break;
        }
      }
    }
    writeStatus(sts, owned, replicas, revision);
  }

  private void writeStatus(
      StatefulSet sts, Map<Integer, Pod> owned, int replicas, String revision) {
    int existing = 0;
    int ready = 0;
    int updated = 0;
    StatefulSetStatus old = sts.getStatus() == null ? new StatefulSetStatus() : sts.getStatus();
    String current = old.getCurrentRevision() == null ? revision : old.getCurrentRevision();
    int currentCount = 0;
    for (Map.Entry<Integer, Pod> e : owned.entrySet()) {
      Pod p = e.getValue();
      if (e.getKey() >= replicas || terminating(p)) {
        continue;
      }
      existing++;
      String podRevision = p.getMetadata().getLabels().get(REVISION_LABEL);
      if (ready(p)) {
        ready++;
      }
      if (revision.equals(podRevision)) {
        updated++;
      }
      if (current.equals(podRevision)) {
        currentCount++;
      }
    }
    // as the real controller (completeRollingUpdate): the current revision advances only under
    // RollingUpdate, once
    // every pod is updated and ready; an OnDelete StatefulSet keeps reporting its first revision as
    // current
    boolean rolling =
        sts.getSpec().getUpdateStrategy() == null
            || !"OnDelete".equals(sts.getSpec().getUpdateStrategy().getType());
    if ((old.getCurrentRevision() == null || rolling && ready >= replicas) && updated >= replicas) {
      current = revision;
      currentCount = updated;
    }
    StatefulSetStatus status =
        new StatefulSetStatusBuilder()
            .withObservedGeneration(sts.getMetadata().getGeneration())
            .withReplicas(existing)
            .withReadyReplicas(ready)
            .withAvailableReplicas(ready)
            .withUpdatedReplicas(updated)
            .withCurrentReplicas(currentCount)
            .withCurrentRevision(current)
            .withUpdateRevision(revision)
            .build();
    if (status.equals(sts.getStatus())) {
      return;
    }
    sts.setStatus(status);
    try {
      client.apps().statefulSets().inNamespace(namespace).resource(sts).updateStatus();
    } catch (KubernetesClientException e) {
      if (e.getCode() != 409 && e.getCode() != 404) {
        throw e;
      }
      // changed meanwhile: the next pass writes it again
    }
  }

  private void create(StatefulSet sts, int ordinal, String revision) {
    String name = sts.getMetadata().getName() + "-" + ordinal;
    var template = sts.getSpec().getTemplate();
    Map<String, String> labels =
        new LinkedHashMap<>(
            template.getMetadata().getLabels() == null
                ? Map.of()
                : template.getMetadata().getLabels());
    labels.put("statefulset.kubernetes.io/pod-name", name);
    labels.put("apps.kubernetes.io/pod-index", Integer.toString(ordinal));
    labels.put(REVISION_LABEL, revision);
    Pod pod =
        new PodBuilder()
            .withMetadata(
                new ObjectMetaBuilder()
                    .withName(name)
                    .withNamespace(namespace)
                    .withLabels(labels)
                    .withAnnotations(template.getMetadata().getAnnotations())
                    .withOwnerReferences(
                        new OwnerReferenceBuilder()
                            .withApiVersion("apps/v1")
                            .withKind("StatefulSet")
                            .withName(sts.getMetadata().getName())
                            .withUid(sts.getMetadata().getUid())
                            .withController(true)
                            .withBlockOwnerDeletion(true)
                            .build())
                    .build())
            .withSpec(
                new PodSpecBuilder(template.getSpec())
                    .withHostname(name)
                    .withSubdomain(sts.getSpec().getServiceName())
                    .build())
            .build();
    try {
      client.pods().inNamespace(namespace).resource(pod).create();
      LOG.info("event=pod_created pod={} revision={}", name, revision);
    } catch (KubernetesClientException e) {
      if (e.getCode() != 409) {
        throw e;
      }
    }
  }

  private void delete(Pod pod, String why) {
    LOG.info("event=pod_deleted pod={} reason=\"{}\"", pod.getMetadata().getName(), why);
    client.pods().inNamespace(namespace).resource(pod).delete();
  }

  private static boolean allReadyBelow(Map<Integer, Pod> owned, int n) {
    for (int i = 0; i < n; i++) {
      Pod p = owned.get(i);
      if (p == null || terminating(p) || !ready(p)) {
        return false;
      }
    }
    return true;
  }

  static boolean terminating(Pod p) {
    return p.getMetadata().getDeletionTimestamp() != null;
  }

  static boolean ready(Pod p) {
    if (p.getStatus() == null || p.getStatus().getConditions() == null) {
      return false;
    }
    for (PodCondition c : p.getStatus().getConditions()) {
      if ("Ready".equals(c.getType())) {
        return "True".equals(c.getStatus());
      }
    }
    return false;
  }

  private static boolean ownedBy(Pod p, StatefulSet sts) {
    return p.getMetadata().getOwnerReferences() != null
        && p.getMetadata().getOwnerReferences().stream()
            .anyMatch(r -> Objects.equals(r.getUid(), sts.getMetadata().getUid()));
  }

  private static Integer ordinal(String stsName, Pod p) {
    String name = p.getMetadata().getName();
    if (!name.startsWith(stsName + "-")) {
      return null;
    }
    String rest = name.substring(stsName.length() + 1);
    return rest.chars().allMatch(Character::isDigit) && !rest.isEmpty()
        ? Integer.valueOf(rest)
        : null;
  }

  /** A hash of the pod template, as the controller names a ControllerRevision. */
  static String revision(StatefulSet sts) {
    try {
      byte[] digest =
          MessageDigest.getInstance("SHA-256")
              .digest(
                  Serialization.asJson(sts.getSpec().getTemplate())
                      .getBytes(StandardCharsets.UTF_8));
      return sts.getMetadata().getName() + "-" + HexFormat.of().formatHex(digest, 0, 5);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
