package io.kvpool.operator.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.kvpool.api.v1alpha1.BufferPoolSpec;
import io.kvpool.api.v1alpha1.KvCachePool;
import io.kvpool.api.v1alpha1.KvCachePoolStatus;
import io.kvpool.api.v1alpha1.TransferEngine;
import io.kvpool.api.v1alpha1.TransferEngineStatus;
import io.kvpool.api.v1alpha1.TransferProtocol;
import io.kvpool.operator.TestPools;
import io.kvpool.operator.common.Conditions;
import io.kvpool.testkube.RealKubeApiServer;
import java.time.Duration;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The preflight against the real API server: an engine breaking a blocking rule is reported on the
 * engine and on its pool before anything is created, and fixing it lets the pool be created; an
 * engine asking for rdma is told that values still move over TCP.
 */
@ExtendWith(RealKubeApiServer.class)
class PreflightTest {
  private static final String NS = "pool-preflight";
  private static final Duration TIMEOUT = Duration.ofSeconds(60);

  @RegisterExtension static final OperatorNamespace pools = new OperatorNamespace(NS);

  private static KubernetesClient client;
  private static PoolObjects objects;

  @BeforeAll
  static void startOperator(KubernetesClient kubernetes) {
    client = kubernetes;
    pools.startWithFakeMasters(kubernetes);
    objects = new PoolObjects(client, NS);
  }

  private static TransferEngineStatus engineStatus(String name) {
    return client.resources(TransferEngine.class).inNamespace(NS).withName(name).get().getStatus();
  }

  private static KvCachePoolStatus poolStatus(String name) {
    return client.resources(KvCachePool.class).inNamespace(NS).withName(name).get().getStatus();
  }

  private static Condition condition(java.util.List<Condition> conditions, String type) {
    return Conditions.find(conditions, type)
        .orElseThrow(() -> new AssertionError("no " + type + " in " + conditions));
  }

  @Test
  void aMisalignedAscendEngineIsReportedBeforeAnyPodAndFixingItCreatesThePool() {
    TransferEngine engine = TestPools.ascendEngine(NS, "npu", "huawei.com/Ascend910", 1);
    BufferPoolSpec buffers = new BufferPoolSpec();
    buffers.setSize(new Quantity("256Mi"));
    buffers.setBuffers(3);
    engine.getSpec().setBufferPool(buffers);
    client.resource(engine).create();
    client.resource(TestPools.withEngine(TestPools.pool(NS, "npu-pool"), "npu")).create();

    await()
        .atMost(TIMEOUT)
        .untilAsserted(
            () -> {
              TransferEngineStatus e = engineStatus("npu");
              assertThat(e).isNotNull();
              Condition valid = condition(e.getConditions(), "ConfigValid");
              assertThat(valid.getStatus()).isEqualTo("False");
              assertThat(valid.getReason())
                  .as("the first finding: no node in this cluster advertises the device")
                  .isEqualTo("DeviceResourceNotAdvertised");
              assertThat(valid.getMessage()).contains("BufferMisaligned");
              assertThat(e.getDataTransport()).isEqualTo("tcp");
              assertThat(condition(e.getConditions(), "TransportAvailable").getReason())
                  .isEqualTo("AscendTransportNotImplemented");
              KvCachePoolStatus p = poolStatus("npu-pool");
              assertThat(p).isNotNull();
              assertThat(condition(p.getConditions(), "ConfigValid").getMessage())
                  .contains("BufferMisaligned");
              assertThat(condition(p.getConditions(), "Degraded").getReason())
                  .isEqualTo("InvalidSpec");
              assertThat(condition(p.getConditions(), "Degraded").getMessage())
                  .contains("TransferEngine npu fails preflight rule BufferMisaligned");
            });
    assertThat(objects.existing("npu-pool"))
        .as("nothing created for a pool whose engine fails preflight")
        .isEmpty();

    client
        .resources(TransferEngine.class)
        .inNamespace(NS)
        .withName("npu")
        .edit(
            e -> {
              e.getSpec().getBufferPool().setBuffers(8);
              return e;
            });
    await().atMost(TIMEOUT).until(() -> objects.allExist("npu-pool"));
    await()
        .atMost(TIMEOUT)
        .untilAsserted(
            () ->
                assertThat(
                        condition(poolStatus("npu-pool").getConditions(), "ConfigValid")
                            .getReason())
                    .as("not blocking: pods are created and wait for a device plugin")
                    .isEqualTo("DeviceResourceNotAdvertised"));
  }

  @Test
  void anRdmaEngineIsToldThatValuesMoveOverTcp() {
    TransferEngine engine = TestPools.tcpEngine(NS, "fast");
    engine.getSpec().setProtocol(TransferProtocol.RDMA);
    client.resource(engine).create();
    await()
        .atMost(TIMEOUT)
        .untilAsserted(
            () -> {
              TransferEngineStatus e = engineStatus("fast");
              assertThat(e).isNotNull();
              assertThat(e.getDataTransport()).isEqualTo("tcp");
              Condition transport = condition(e.getConditions(), "TransportAvailable");
              assertThat(transport.getStatus()).isEqualTo("False");
              assertThat(transport.getReason()).isEqualTo("RdmaNotImplemented");
              assertThat(transport.getMessage()).contains("TCP sockets");
              assertThat(condition(e.getConditions(), "ConfigValid").getStatus()).isEqualTo("True");
            });
  }
}
