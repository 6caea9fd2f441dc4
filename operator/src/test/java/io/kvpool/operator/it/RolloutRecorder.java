package io.kvpool.operator.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Records, in the order they happen, which of a pool's pods were deleted (by UID: a pod deleted
 * twice shows twice) and the rollout Events the operator published about the pool, through watches
 * of the real API server.
 */
final class RolloutRecorder implements AutoCloseable {
  private final List<String> deleted = new ArrayList<>();
  private final Set<String> deletedUids = new LinkedHashSet<>();
  private final List<Event> events = new ArrayList<>();
  private final Watch pods;
  private final Watch eventWatch;

  RolloutRecorder(KubernetesClient client, String namespace, String pool) {
    pods =
        client
            .pods()
            .inNamespace(namespace)
            .withLabel("app.kubernetes.io/instance", pool)
            .watch(
                new Watcher<>() {
                  @Override
                  public void eventReceived(Action action, Pod pod) {
                    boolean deleting =
                        pod.getMetadata().getDeletionTimestamp() != null
                            || action == Action.DELETED;
                    if (deleting
                        && pod.getMetadata().getName().matches(".*-(master|storage)-[0-9]+")) {
                      synchronized (RolloutRecorder.this) {
                        if (deletedUids.add(pod.getMetadata().getUid())) {
                          deleted.add(pod.getMetadata().getName());
                        }
                      }
                    }
                  }

                  @Override
                  public void onClose(WatcherException cause) {}
                });
    eventWatch =
        client
            .v1()
            .events()
            .inNamespace(namespace)
            .watch(
                new Watcher<>() {
                  @Override
                  public void eventReceived(Action action, Event event) {
                    if (action == Action.ADDED
                        && pool.equals(event.getInvolvedObject().getName())) {
                      synchronized (RolloutRecorder.this) {
                        events.add(event);
                      }
                    }
                  }

                  @Override
                  public void onClose(WatcherException cause) {}
                });
  }

  /** Pod names in the order of their deletion. */
  synchronized List<String> deletedPods() {
    return List.copyOf(deleted);
  }

  /** "Reason: message" of every Event published since the recorder started, in arrival order. */
  synchronized List<String> events() {
    return events.stream().map(e -> e.getReason() + ": " + e.getMessage()).toList();
  }

  /**
   * Waits until an Event whose "Reason: message" starts with {@code prefix} has arrived. The
   * operator patches a transition's status first and publishes its Events after, and they reach
   * this watch later still: a test that has just seen the status must wait for the Event, not look
   * once.
   */
  void awaitEvent(String prefix, Duration timeout) {
    await()
        .atMost(timeout)
        .untilAsserted(
            () ->
                assertThat(events()).as("events of the pool").anyMatch(e -> e.startsWith(prefix)));
  }

  /**
   * "Reason pod" of the events with one of {@code reasons}, naming the pod their message starts
   * with or names.
   */
  synchronized List<String> events(Set<String> reasons) {
    return events.stream()
        .filter(e -> reasons.contains(e.getReason()))
        .map(e -> e.getReason() + ": " + e.getMessage())
        .toList();
  }

  @Override
  public void close() {
    pods.close();
    eventWatch.close();
  }
}
