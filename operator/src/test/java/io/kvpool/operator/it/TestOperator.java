package io.kvpool.operator.it;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.javaoperatorsdk.operator.Operator;
import io.javaoperatorsdk.operator.processing.Controller;
import io.javaoperatorsdk.operator.processing.event.source.informer.InformerEventSource;
import io.kvpool.operator.pool.HttpPoolAdminClient;
import io.kvpool.operator.pool.KvCachePoolReconciler;
import io.kvpool.operator.pool.MasterAddressResolver;
import io.kvpool.operator.pool.PoolOperatorSettings;
import io.kvpool.operator.transferengine.TransferEngineReconciler;
import io.kvpool.testkube.RealKubeApiServer;
import java.time.Clock;
import java.time.Duration;
import java.util.List;

/**
 * The operator's two reconcilers in a plain Java Operator SDK {@link Operator} in the test JVM, against the
 * real API server, limited to one namespace so test classes sharing the server do not see each other's pools.
 * Same classes and annotations as the Quarkus application; only the wiring (CDI there) differs.
 */
final class TestOperator implements AutoCloseable {
  static final Duration STATUS_INTERVAL = Duration.ofSeconds(1);

  private final Operator operator;

  private TestOperator(Operator operator) {
    this.operator = operator;
  }

  static TestOperator start(String namespace, MasterAddressResolver resolver) {
    KubernetesClient client = RealKubeApiServer.newClient();
    Operator operator = new Operator(o -> o.withKubernetesClient(client)
        .withCloseClientOnStop(true)
        .withReconciliationTerminationTimeout(Duration.ofSeconds(5)));
    PoolOperatorSettings settings = new PoolOperatorSettings(STATUS_INTERVAL, Duration.ofSeconds(2));
    operator.register(new KvCachePoolReconciler(new HttpPoolAdminClient(settings.adminTimeout()), resolver,
        Clock.systemUTC(), settings), c -> c.settingNamespace(namespace));
    operator.register(new TransferEngineReconciler(Clock.systemUTC()), c -> c.settingNamespace(namespace));
    operator.start();
    return new TestOperator(operator);
  }

  /** The informers the pool controller watches the cluster with (its own primary informer excluded). */
  List<InformerEventSource<?, ?>> poolInformers() {
    Controller<?> controller = (Controller<?>) operator.getRegisteredController(KvCachePoolReconciler.NAME)
        .orElseThrow();
    return controller.getEventSourceManager().allEventSources().stream()
        .filter(InformerEventSource.class::isInstance)
        .<InformerEventSource<?, ?>>map(InformerEventSource.class::cast)
        .toList();
  }

  @Override
  public void close() {
    operator.stop();
  }
}
