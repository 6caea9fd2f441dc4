package io.kvpool.e2e.cluster;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * What a pool's rollout did to its data-plane pods, seen through an informer (which re-lists after
 * a dropped watch): each pod that started terminating (by UID, in order) and each pod that was not
 * there at the start becoming Ready. From that sequence: which pods were replaced, in which order,
 * and whether one was replaced before the previous replacement was ready again ({@link
 * #oneAtATimeProblem}).
 */
final class RolloutWatch implements AutoCloseable {
  /** A pod starting to terminate ({@code deleting}) or a new pod becoming Ready. */
  record Transition(Instant at, String pod, String uid, boolean deleting) {
    @Override
    public String toString() {
      return at + " " + pod + (deleting ? " deleting" : " ready") + " (uid " + uid + ")";
    }
  }

  private final Pattern dataPlanePod;
  private final Set<String> initialUids = new HashSet<>();
  private final Set<String> deletingUids = new LinkedHashSet<>();
  private final Set<String> readyUids = new LinkedHashSet<>();
  private final List<Transition> transitions = new ArrayList<>();
  private final SharedIndexInformer<Pod> informer;

  RolloutWatch(KubernetesClient client, String namespace, String pool) {
    dataPlanePod = Pattern.compile(Pattern.quote(pool) + "-(master|storage)-[0-9]+");
    client
        .pods()
        .inNamespace(namespace)
        .withLabel("app.kubernetes.io/instance", pool)
        .list()
        .getItems()
        .forEach(p -> initialUids.add(p.getMetadata().getUid()));
    informer =
        client
            .pods()
            .inNamespace(namespace)
            .withLabel("app.kubernetes.io/instance", pool)
            .inform(
                new ResourceEventHandler<>() {
                  @Override
                  public void onAdd(Pod pod) {
                    see(pod, false);
                  }

                  @Override
                  public void onUpdate(Pod before, Pod pod) {
                    see(pod, false);
                  }

                  @Override
                  public void onDelete(Pod pod, boolean finalStateUnknown) {
                    see(pod, true);
                  }
                },
                Duration.ofMinutes(1).toMillis());
  }

  private synchronized void see(Pod pod, boolean gone) {
    String name = pod.getMetadata().getName();
    String uid = pod.getMetadata().getUid();
    if (!dataPlanePod.matcher(name).matches()) {
      return;
    }
    if (gone || pod.getMetadata().getDeletionTimestamp() != null) {
      if (deletingUids.add(uid)) {
        transitions.add(new Transition(Instant.now(), name, uid, true));
      }
    } else if (!initialUids.contains(uid) && ready(pod) && readyUids.add(uid)) {
      transitions.add(new Transition(Instant.now(), name, uid, false));
    }
  }

  static boolean ready(Pod pod) {
    return pod.getStatus() != null
        && pod.getStatus().getConditions() != null
        && pod.getStatus().getConditions().stream()
            .anyMatch(c -> "Ready".equals(c.getType()) && "True".equals(c.getStatus()));
  }

  synchronized List<Transition> transitions() {
    return List.copyOf(transitions);
  }

  /**
   * Names of the pods that were deleted, in the order they started terminating (a pod deleted twice
   * shows twice).
   */
  synchronized List<String> deleted() {
    return transitions.stream().filter(Transition::deleting).map(Transition::pod).toList();
  }

  /**
   * Null when every deletion came after the pod deleted before it was back and Ready, and every
   * deleted pod came back; else what broke that.
   */
  synchronized String oneAtATimeProblem() {
    Set<String> away = new LinkedHashSet<>();
    for (Transition t : transitions) {
      if (t.deleting()) {
        if (!away.isEmpty()) {
          return t.pod()
              + " was deleted at "
              + t.at()
              + " while "
              + away
              + " was not Ready again; transitions: "
              + transitions;
        }
        away.add(t.pod());
      } else {
        away.remove(t.pod());
      }
    }
    return away.isEmpty() ? null : away + " did not come back Ready; transitions: " + transitions;
  }

  @Override
  public void close() {
    informer.close();
  }

  /**
   * The Events published about {@code pool} since {@code since} (Events carry seconds: one second
   * earlier counts), oldest first.
   */
  static List<Event> events(KubernetesClient client, String namespace, String pool, Instant since) {
    Instant from = since.minusSeconds(1);
    return client
        .v1()
        .events()
        .inNamespace(namespace)
        .withField("involvedObject.name", pool)
        .list()
        .getItems()
        .stream()
        .filter(
            e ->
                e.getMetadata().getCreationTimestamp() != null
                    && !Instant.parse(e.getMetadata().getCreationTimestamp()).isBefore(from))
        .sorted(
            Comparator.comparing((Event e) -> Instant.parse(e.getMetadata().getCreationTimestamp()))
                .thenComparing(RolloutWatch::resourceVersion))
        .toList();
  }

  /** The order the API server stored them in, within one second (one etcd: revisions grow). */
  private static long resourceVersion(Event e) {
    try {
      return Long.parseLong(e.getMetadata().getResourceVersion());
    } catch (NumberFormatException notANumber) {
      return 0;
    }
  }

  /** "Reason: message" of each Event. */
  static List<String> lines(List<Event> events) {
    return events.stream().map(e -> e.getReason() + ": " + e.getMessage()).toList();
  }
}
