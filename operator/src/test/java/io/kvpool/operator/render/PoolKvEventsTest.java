package io.kvpool.operator.render;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyIngressRule;
import io.kvpool.api.v1alpha1.EventsSpec;
import io.kvpool.api.v1alpha1.KvCachePool;
import io.kvpool.operator.TestPools;
import io.kvpool.operator.transferengine.TransportSettings;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * What {@code spec.events} renders: nothing while off; flags, ports, endpoints and a rule when on.
 */
class PoolKvEventsTest {

  @Test
  void eventsOffRenderNothing() {
    KvCachePool pool = TestPools.defaultedPool("ns", "p");

    assertThat(ConfigMaps.pool(pool).getData()).doesNotContainKeys("KVPOOL_EVENTS_PORT");
    assertThat(ConfigMaps.client(pool, TransportSettings.PLAIN_TCP).getData())
        .doesNotContainKeys("KVPOOL_EVENTS_ENDPOINT");
    assertThat(masterContainer(pool).getPorts()).extracting("name").containsExactly("rpc", "admin");
    assertThat(Services.masterLeader(pool).getSpec().getPorts())
        .extracting("name")
        .containsExactly("rpc", "admin");
    assertThat(subscriberRules(NetworkPolicies.of(pool, "kvpool-system"))).isEmpty();
  }

  @Test
  void eventsOnRenderTheMasterFlagsItsPortsTheEndpointsAndTheSubscriberRule() {
    KvCachePool pool = publishing(TestPools.defaultedPool("ns", "p"));
    pool.getSpec().getEvents().setMedium("cpu");
    pool.getSpec().getEvents().setModel("Qwen/Qwen3-8B");

    assertThat(ConfigMaps.pool(pool).getData())
        .containsEntry("KVPOOL_EVENTS_PORT", "5557")
        .containsEntry("KVPOOL_EVENTS_REPLAY_PORT", "5558")
        .containsEntry("KVPOOL_EVENTS_MEDIUM", "cpu")
        .containsEntry("KVPOOL_EVENTS_MODEL", "Qwen/Qwen3-8B");
    assertThat(ConfigMaps.client(pool, TransportSettings.PLAIN_TCP).getData())
        .containsEntry("KVPOOL_EVENTS_ENDPOINT", "tcp://p-master.ns.svc:5557")
        .containsEntry("KVPOOL_EVENTS_REPLAY_ENDPOINT", "tcp://p-master.ns.svc:5558")
        .containsEntry("KVPOOL_EVENTS_TOPIC", "kv@pool:p@Qwen/Qwen3-8B")
        .containsEntry("KVPOOL_EVENTS_LABEL", "kvpool.io/events-subscriber=p");
    assertThat(masterContainer(pool).getPorts())
        .extracting(p -> p.getName() + ":" + p.getContainerPort())
        .containsExactly("rpc:50051", "admin:8080", "events:5557", "events-replay:5558");
    assertThat(Services.masterLeader(pool).getSpec().getPorts())
        .extracting(p -> p.getName() + ":" + p.getPort() + "->" + p.getTargetPort().getStrVal())
        .containsExactly(
            "rpc:50051->rpc",
            "admin:8080->admin",
            "events:5557->events",
            "events-replay:5558->events-replay");
    // the storage nodes and the peer Service are untouched: only the leader publishes
    assertThat(Services.masterPeers(pool).getSpec().getPorts()).hasSize(2);

    List<NetworkPolicyIngressRule> rules = subscriberRules(NetworkPolicies.of(pool, "ops"));
    assertThat(rules).singleElement();
    NetworkPolicyIngressRule rule = rules.get(0);
    assertThat(rule.getPorts())
        .extracting(p -> p.getPort().getIntVal())
        .containsExactly(5557, 5558);
    assertThat(rule.getFrom())
        .singleElement()
        .satisfies(
            peer -> {
              assertThat(peer.getPodSelector().getMatchLabels())
                  .isEqualTo(Map.of("kvpool.io/events-subscriber", "p"));
              assertThat(peer.getNamespaceSelector()).isNull();
            });
    // a client label does not admit to the events' ports, nor a subscriber to the RPC ports
    assertThat(NetworkPolicies.of(pool, "ops").getSpec().getIngress())
        .filteredOn(r -> r.getPorts() != null && !r.getPorts().isEmpty())
        .filteredOn(r -> !r.equals(rule))
        .allSatisfy(
            r ->
                assertThat(r.getPorts())
                    .extracting(p -> p.getPort().getIntVal())
                    .doesNotContain(5557, 5558));
  }

  @Test
  void subscribersOfEveryNamespaceWhenClientsOfEveryNamespaceAre() {
    KvCachePool pool = publishing(TestPools.defaultedPool("ns", "p"));
    pool.getSpec().setSecurity(new io.kvpool.api.v1alpha1.SecuritySpec());
    pool.getSpec().getSecurity().setNetworkPolicy(new io.kvpool.api.v1alpha1.NetworkPolicySpec());
    pool.getSpec().getSecurity().getNetworkPolicy().setClientsFromAllNamespaces(true);

    assertThat(subscriberRules(NetworkPolicies.of(pool, "ops")))
        .singleElement()
        .satisfies(r -> assertThat(r.getFrom().get(0).getNamespaceSelector()).isNotNull());
  }

  @Test
  void theMediumIsLeftToTheMasterUnlessGiven() {
    KvCachePool pool = publishing(TestPools.defaultedPool("ns", "p"));

    assertThat(ConfigMaps.pool(pool).getData())
        .doesNotContainKeys("KVPOOL_EVENTS_MEDIUM", "KVPOOL_EVENTS_MODEL");
    assertThat(ConfigMaps.client(pool, TransportSettings.PLAIN_TCP).getData())
        .containsEntry("KVPOOL_EVENTS_TOPIC", "kv@pool:p@");
  }

  @Test
  void aChangedEventSettingChangesTheMastersConfigHash() {
    KvCachePool before = publishing(TestPools.defaultedPool("ns", "p"));
    KvCachePool after = publishing(TestPools.defaultedPool("ns", "p"));
    after.getSpec().getEvents().setModel("m");

    assertThat(configHash(after)).isNotEqualTo(configHash(before));
  }

  static KvCachePool publishing(KvCachePool pool) {
    EventsSpec events = new EventsSpec();
    events.setEnabled(true);
    pool.getSpec().setEvents(events);
    return pool;
  }

  private static String configHash(KvCachePool pool) {
    return StatefulSets.master(pool)
        .getSpec()
        .getTemplate()
        .getMetadata()
        .getAnnotations()
        .get(io.kvpool.operator.common.PoolLabels.CONFIG_ANNOTATION);
  }

  private static Container masterContainer(KvCachePool pool) {
    return StatefulSets.master(pool).getSpec().getTemplate().getSpec().getContainers().get(0);
  }

  private static List<NetworkPolicyIngressRule> subscriberRules(NetworkPolicy policy) {
    return policy.getSpec().getIngress().stream()
        .filter(r -> r.getFrom() != null)
        .filter(
            r ->
                r.getFrom().stream()
                    .anyMatch(
                        p ->
                            p.getPodSelector() != null
                                && p.getPodSelector().getMatchLabels() != null
                                && p.getPodSelector()
                                    .getMatchLabels()
                                    .containsKey(PoolKvEvents.SUBSCRIBER_LABEL)))
        .toList();
  }
}
