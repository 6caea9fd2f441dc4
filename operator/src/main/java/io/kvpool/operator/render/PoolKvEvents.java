package io.kvpool.operator.render;

import io.fabric8.kubernetes.api.model.ContainerPort;
import io.fabric8.kubernetes.api.model.ServicePort;
import io.kvpool.api.v1alpha1.EventsSpec;
import io.kvpool.api.v1alpha1.KvCachePool;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * The pool's KV events (docs/events.md), from {@code spec.events} (the CRD defaults mirrored, as in
 * {@link DataPlaneSettings}): the masters' event flags in the pool ConfigMap, their two named ports
 * on the master pods and the {@code <pool>-master} Service, the endpoints and topic subscribers
 * find in the client ConfigMap, and the label that lets a subscriber through the NetworkPolicy.
 * Nothing of it is rendered while events are off.
 *
 * @param medium the medium events name, null for the master's default ({@code pool:<pool>})
 * @param model the model in the topic, empty by default
 */
public record PoolKvEvents(boolean enabled, int port, int replayPort, String medium, String model) {
  /** Named ports of the master pods and the leader Service (at most 15 characters). */
  public static final String PORT_NAME = "events";

  public static final String REPLAY_PORT_NAME = "events-replay";

  /**
   * The label that lets a pod reach the events' ports through the pool's NetworkPolicy: {@code
   * kvpool.io/events-subscriber: <pool>} (a router subscribes, it does not put or get).
   */
  public static final String SUBSCRIBER_LABEL = "kvpool.io/events-subscriber";

  /** The pool ConfigMap keys of the events, read by the masters at start. */
  public static final Set<String> MASTER_KEYS =
      Set.of(
          "KVPOOL_EVENTS_PORT",
          "KVPOOL_EVENTS_REPLAY_PORT",
          "KVPOOL_EVENTS_MEDIUM",
          "KVPOOL_EVENTS_MODEL");

  public static PoolKvEvents of(KvCachePool pool) {
    EventsSpec e =
        pool.getSpec().getEvents() == null ? new EventsSpec() : pool.getSpec().getEvents();
    return new PoolKvEvents(
        Objects.requireNonNullElse(e.getEnabled(), EventsSpec.DEFAULT_ENABLED),
        Objects.requireNonNullElse(e.getPort(), EventsSpec.DEFAULT_PORT),
        Objects.requireNonNullElse(e.getReplayPort(), EventsSpec.DEFAULT_REPLAY_PORT),
        e.getMedium() == null || e.getMedium().isBlank() ? null : e.getMedium(),
        Objects.requireNonNullElse(e.getModel(), ""));
  }

  /** The masters' event settings for the pool ConfigMap; empty while events are off. */
  public Map<String, String> masterConfig() {
    Map<String, String> data = new LinkedHashMap<>();
    if (enabled) {
      data.put("KVPOOL_EVENTS_PORT", Integer.toString(port));
      data.put("KVPOOL_EVENTS_REPLAY_PORT", Integer.toString(replayPort));
      if (medium != null) {
        data.put("KVPOOL_EVENTS_MEDIUM", medium);
      }
      if (!model.isEmpty()) {
        data.put("KVPOOL_EVENTS_MODEL", model);
      }
    }
    return data;
  }

  /**
   * What a subscriber needs, for the client ConfigMap: both endpoints through the leader Service,
   * the topic and its own label; empty while events are off.
   */
  public Map<String, String> subscriberConfig(KvCachePool pool) {
    Map<String, String> data = new LinkedHashMap<>();
    if (enabled) {
      data.put("KVPOOL_EVENTS_ENDPOINT", "tcp://" + PoolNames.leaderServiceAddress(pool, port));
      data.put(
          "KVPOOL_EVENTS_REPLAY_ENDPOINT",
          "tcp://" + PoolNames.leaderServiceAddress(pool, replayPort));
      data.put("KVPOOL_EVENTS_TOPIC", topic(pool));
      data.put("KVPOOL_EVENTS_LABEL", SUBSCRIBER_LABEL + "=" + pool.getMetadata().getName());
    }
    return data;
  }

  /** The topic of every batch, as the master builds it: {@code kv@pool:<pool>@<model>}. */
  public String topic(KvCachePool pool) {
    return "kv@pool:" + pool.getMetadata().getName() + "@" + model;
  }

  public List<ContainerPort> containerPorts() {
    return enabled
        ? List.of(
            DataPlanePorts.containerPort(PORT_NAME, port),
            DataPlanePorts.containerPort(REPLAY_PORT_NAME, replayPort))
        : List.of();
  }

  public List<ServicePort> servicePorts() {
    return enabled
        ? List.of(
            DataPlanePorts.servicePort(PORT_NAME, port),
            DataPlanePorts.servicePort(REPLAY_PORT_NAME, replayPort))
        : List.of();
  }
}
