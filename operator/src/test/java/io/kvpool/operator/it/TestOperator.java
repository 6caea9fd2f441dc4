package io.kvpool.operator.it;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.javaoperatorsdk.operator.Operator;
import io.javaoperatorsdk.operator.api.monitoring.Metrics;
import io.javaoperatorsdk.operator.processing.Controller;
import io.javaoperatorsdk.operator.processing.event.source.informer.InformerEventSource;
import io.javaoperatorsdk.operator.processing.retry.GenericRetry;
import io.javaoperatorsdk.operator.processing.retry.GradualRetry;
import io.kvpool.operator.admin.HttpPoolAdminClient;
import io.kvpool.operator.admin.MasterAddressResolver;
import io.kvpool.operator.pool.KvCachePoolReconciler;
import io.kvpool.operator.pool.PoolOperatorSettings;
import io.kvpool.operator.transferengine.TransferEngineReconciler;
import io.kvpool.testkube.RealKubeApiServer;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The operator's two reconcilers in a plain Java Operator SDK {@link Operator} in the test JVM,
 * against the real API server, limited to one namespace so test classes sharing the server do not
 * see each other's pools. Same classes and annotations as the Quarkus application; only the wiring
 * (CDI there) differs, and the retry intervals of the pool controller are shortened (its unlimited
 * attempts are kept) so that a test can watch more failed attempts than the SDK's default retry
 * allows without waiting minutes.
 */
final class TestOperator implements AutoCloseable {
  static final Duration STATUS_INTERVAL = Duration.ofSeconds(1);

  private final Operator operator;
  private final Map<String, AtomicInteger> failures;

  private TestOperator(Operator operator, Map<String, AtomicInteger> failures) {
    this.operator = operator;
    this.failures = failures;
  }

  static TestOperator start(String namespace, MasterAddressResolver resolver) {
    KubernetesClient client = RealKubeApiServer.newClient();
    Map<String, AtomicInteger> failures = new ConcurrentHashMap<>();
    Metrics countFailures =
        new Metrics() {
          @Override
          public void failedReconciliation(
              HasMetadata resource, Exception exception, Map<String, Object> metadata) {
            failures
                .computeIfAbsent(resource.getMetadata().getName(), name -> new AtomicInteger())
                .incrementAndGet();
          }
        };
    Operator operator =
        new Operator(
            o ->
                o.withKubernetesClient(client)
                    .withCloseClientOnStop(true)
                    .withMetrics(countFailures)
                    .withReconciliationTerminationTimeout(Duration.ofSeconds(5)));
    PoolOperatorSettings settings =
        new PoolOperatorSettings(STATUS_INTERVAL, Duration.ofSeconds(2));
    GradualRetry production = KvCachePoolReconciler.class.getAnnotation(GradualRetry.class);
    GenericRetry quickRetry =
        new GenericRetry()
            .setMaxAttempts(production.maxAttempts())
            .setInitialInterval(200)
            .setIntervalMultiplier(1.5)
            .setMaxInterval(1_000);
    operator.register(
        new KvCachePoolReconciler(
            new HttpPoolAdminClient(settings.adminTimeout()),
            resolver,
            Clock.systemUTC(),
            settings),
        c -> c.settingNamespace(namespace).withRetry(quickRetry));
    operator.register(
        new TransferEngineReconciler(Clock.systemUTC()), c -> c.settingNamespace(namespace));
    operator.start();
    return new TestOperator(operator, failures);
  }

  /** Reconciliations of the named pool (or engine) that ended in an exception so far. */
  int failedReconciliations(String name) {
    AtomicInteger count = failures.get(name);
    return count == null ? 0 : count.get();
  }

  /**
   * The informers the pool controller watches the cluster with (its own primary informer excluded).
   */
  List<InformerEventSource<?, ?>> poolInformers() {
    Controller<?> controller =
        (Controller<?>) operator.getRegisteredController(KvCachePoolReconciler.NAME).orElseThrow();
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
