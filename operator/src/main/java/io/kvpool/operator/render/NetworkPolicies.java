package io.kvpool.operator.render;

import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.LabelSelectorBuilder;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyBuilder;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyIngressRule;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyIngressRuleBuilder;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyPeer;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyPeerBuilder;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyPort;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyPortBuilder;
import io.kvpool.api.v1alpha1.KvCachePool;
import io.kvpool.operator.common.PoolLabels;
import io.kvpool.operator.common.PoolObjectMeta;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * {@code <pool>}: who reaches the pool's pods. Every port from the pool's own pods (masters,
 * storage nodes and their copies); the RPC ports from pods labelled {@code kvpool.io/client:
 * <pool>} (the pool's namespace, or every namespace when asked); with KV events on, the events'
 * ports from pods labelled {@code kvpool.io/events-subscriber: <pool>} (likewise); the admin ports
 * from the operator's namespace (status, drain, step-down) and the monitoring namespace when one is
 * named. Anything else is dropped by a CNI that enforces NetworkPolicies.
 */
public final class NetworkPolicies {
  private NetworkPolicies() {}

  /** The policy of {@code pool}, letting the operator in from {@code operatorNamespace}. */
  public static NetworkPolicy of(KvCachePool pool, String operatorNamespace) {
    DataPlaneSettings settings = DataPlaneSettings.of(pool);
    PoolSecurity security = PoolSecurity.of(pool);
    String name = pool.getMetadata().getName();
    List<NetworkPolicyPort> rpc = ports(settings.masterPort(), settings.storagePort());
    List<NetworkPolicyPort> admin = ports(settings.masterAdminPort(), settings.storageAdminPort());
    List<NetworkPolicyIngressRule> rules = new ArrayList<>();
    rules.add(
        new NetworkPolicyIngressRuleBuilder()
            .withFrom(pods(Map.of(PoolLabels.INSTANCE, name, PoolLabels.NAME, PoolLabels.APP)))
            .build());
    NetworkPolicyPeer clients = labelled(PoolSecurity.CLIENT_LABEL, name, security);
    rules.add(new NetworkPolicyIngressRuleBuilder().withFrom(clients).withPorts(rpc).build());
    PoolKvEvents events = PoolKvEvents.of(pool);
    if (events.enabled()) {
      rules.add(
          new NetworkPolicyIngressRuleBuilder()
              .withFrom(labelled(PoolKvEvents.SUBSCRIBER_LABEL, name, security))
              .withPorts(ports(events.port(), events.replayPort()))
              .build());
    }
    List<NetworkPolicyPeer> watchers = new ArrayList<>();
    if (operatorNamespace != null && !operatorNamespace.isBlank()) {
      watchers.add(namespace(operatorNamespace));
    }
    if (security.monitoringNamespace() != null && !security.monitoringNamespace().isBlank()) {
      watchers.add(namespace(security.monitoringNamespace()));
    }
    if (!watchers.isEmpty()) {
      rules.add(new NetworkPolicyIngressRuleBuilder().withFrom(watchers).withPorts(admin).build());
    }
    return new NetworkPolicyBuilder()
        .withMetadata(PoolObjectMeta.of(pool, name))
        .withNewSpec()
        .withPodSelector(labels(Map.of(PoolLabels.INSTANCE, name, PoolLabels.NAME, PoolLabels.APP)))
        .withPolicyTypes("Ingress")
        .withIngress(rules)
        .endSpec()
        .build();
  }

  /**
   * Pods labelled {@code label: <pool>} in the pool's namespace, or in every namespace when asked.
   */
  private static NetworkPolicyPeer labelled(String label, String pool, PoolSecurity security) {
    return security.clientsFromAllNamespaces()
        ? new NetworkPolicyPeerBuilder()
            .withPodSelector(labels(Map.of(label, pool)))
            .withNamespaceSelector(new LabelSelector())
            .build()
        : pods(Map.of(label, pool));
  }

  private static List<NetworkPolicyPort> ports(int... numbers) {
    List<NetworkPolicyPort> ports = new ArrayList<>();
    for (int n : numbers) {
      ports.add(
          new NetworkPolicyPortBuilder().withProtocol("TCP").withPort(new IntOrString(n)).build());
    }
    return ports;
  }

  private static NetworkPolicyPeer pods(Map<String, String> labels) {
    return new NetworkPolicyPeerBuilder().withPodSelector(labels(labels)).build();
  }

  private static NetworkPolicyPeer namespace(String name) {
    return new NetworkPolicyPeerBuilder()
        .withNamespaceSelector(labels(Map.of("kubernetes.io/metadata.name", name)))
        .build();
  }

  private static LabelSelector labels(Map<String, String> labels) {
    return new LabelSelectorBuilder().withMatchLabels(new java.util.TreeMap<>(labels)).build();
  }
}
