package io.kvpool.operator.it;

import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.ServiceAccountBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.kvpool.operator.admin.MasterAddressResolver;
import java.net.URI;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A namespace whose pools the operator reconciles against the real API server, with no pod ever
 * running: the test plays the StatefulSet controller and the kubelet where it needs them. Register
 * it as a static extension and start it in {@code @BeforeAll} with the API server's client; it
 * stops the operator (and the fake masters) after the class.
 */
final class OperatorNamespace implements AfterAllCallback {
  private final String namespace;
  private final Map<String, FakeMaster> masters = new ConcurrentHashMap<>();
  private MasterAddressResolver resolver;
  private TestOperator operator;

  OperatorNamespace(String namespace) {
    this.namespace = namespace;
  }

  /**
   * Creates the namespace and starts the operator with no master to answer: every admin call fails
   * fast on a closed loopback port.
   */
  void startWithoutMasters(KubernetesClient client) {
    createNamespace(client);
    start(pool -> URI.create("http://127.0.0.1:1"));
  }

  /**
   * Creates the namespace, with the default ServiceAccount the storage pods run under (no
   * controller-manager creates it here), and starts the operator with each pool's leader played by
   * its {@link #master}.
   */
  void startWithFakeMasters(KubernetesClient client) {
    createNamespace(client);
    client
        .resource(
            new ServiceAccountBuilder()
                .withNewMetadata()
                .withName("default")
                .withNamespace(namespace)
                .endMetadata()
                .build())
        .serverSideApply();
    start(pool -> master(pool.getMetadata().getName()).adminBase());
  }

  private void createNamespace(KubernetesClient client) {
    client
        .resource(
            new NamespaceBuilder().withNewMetadata().withName(namespace).endMetadata().build())
        .serverSideApply();
  }

  private void start(MasterAddressResolver masterAddresses) {
    resolver = masterAddresses;
    operator = TestOperator.start(namespace, resolver);
  }

  /** The fake master serving as the pool's leader, started on first use. */
  FakeMaster master(String pool) {
    return masters.computeIfAbsent(pool, FakeMaster::start);
  }

  TestOperator operator() {
    return operator;
  }

  void restartOperator() {
    operator.close();
    operator = TestOperator.start(namespace, resolver);
  }

  @Override
  public void afterAll(ExtensionContext context) {
    if (operator != null) {
      operator.close();
    }
    masters.values().forEach(FakeMaster::close);
  }
}
