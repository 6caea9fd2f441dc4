package io.kvpool.operator.it;

import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.kvpool.admin.AdminJson;
import io.kvpool.api.v1alpha1.KvCachePool;
import io.kvpool.api.v1alpha1.KvCachePoolStatus;
import io.kvpool.common.HostPort;
import io.kvpool.operator.render.PoolKeys;
import io.kvpool.testkube.kubelet.ContainerImage;
import io.kvpool.testkube.kubelet.DataPlaneImage;
import io.kvpool.testkube.kubelet.ProcessKubelet;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.TestWatcher;

/**
 * A namespace whose pools run exactly as the operator deploys them, without a cluster: the operator
 * reconciles against the real API server and the test kubelet runs the pods it renders as real
 * processes (each in its own network namespace, configured only by what the operator mounts and
 * sets). Register it as a static extension and start it in {@code @BeforeAll} with the API server's
 * client; it stops both after the class, and when a test fails it prints every pool's status and
 * events and every pod's state and log.
 */
final class PoolPods implements AfterAllCallback, TestWatcher {
  static final int CLIENT_PORT = 50051;
  static final int MASTER_ADMIN_PORT = 8080;
  static final int STORAGE_ADMIN_PORT = 8081;

  private final String namespace;
  private KubernetesClient client;
  private ProcessKubelet kubelet;
  private TestOperator operator;

  PoolPods(String namespace) {
    this.namespace = namespace;
  }

  /**
   * Creates the namespace and starts the test kubelet and the operator, whose admin calls go to the
   * pod each pool's elected master labelled leader, as the {@code <pool>-master} Service selects it
   * in a cluster.
   */
  void start(KubernetesClient kubernetes) {
    start(kubernetes, Map.ofEntries(DataPlaneImage.tagged("0.1.0")));
  }

  /** As {@link #start(KubernetesClient)}, with {@code images} for the pods to run. */
  void start(KubernetesClient kubernetes, Map<String, ContainerImage> images) {
    client = kubernetes;
    client
        .resource(
            new NamespaceBuilder().withNewMetadata().withName(namespace).endMetadata().build())
        .serverSideApply();
    kubelet = ProcessKubelet.start(client, namespace, images);
    operator = startOperator();
  }

  private TestOperator startOperator() {
    return TestOperator.start(namespace, pool -> adminBase(pool.getMetadata().getName()));
  }

  /** Stops the operator, runs {@code meanwhile}, then starts the operator again. */
  void restartOperator(Runnable meanwhile) {
    operator.close();
    meanwhile.run();
    operator = startOperator();
  }

  private URI adminBase(String pool) {
    return leaderPod(pool)
        .map(p -> URI.create("http://" + p.getStatus().getPodIP() + ":" + MASTER_ADMIN_PORT))
        .orElse(
            URI.create("http://" + pool + "-master." + namespace + ".svc:" + MASTER_ADMIN_PORT));
  }

  ProcessKubelet kubelet() {
    return kubelet;
  }

  String podIp(String pod) {
    return kubelet.podIp(pod);
  }

  /** The client endpoint of a master pod. */
  HostPort masterEndpoint(String pod) {
    return new HostPort(podIp(pod), CLIENT_PORT);
  }

  /** The pool's status as the operator wrote it; null before it wrote one. */
  KvCachePoolStatus status(String pool) {
    KvCachePool p = client.resources(KvCachePool.class).inNamespace(namespace).withName(pool).get();
    return p == null ? null : p.getStatus();
  }

  /** The pods the pool's masters labelled leader (one, when the election is settled). */
  List<Pod> leaderPods(String pool) {
    return client
        .pods()
        .inNamespace(namespace)
        .withLabel("app.kubernetes.io/instance", pool)
        .withLabel("kvpool.io/role", "leader")
        .list()
        .getItems();
  }

  /** The running pod labelled leader, if any. */
  Optional<Pod> leaderPod(String pool) {
    return leaderPods(pool).stream()
        .filter(p -> p.getStatus() != null && p.getStatus().getPodIP() != null)
        .findFirst();
  }

  /**
   * What an inference pod does to authenticate: the client key from the Secret the pool's client
   * ConfigMap names.
   */
  String clientKey(String pool) {
    String secret =
        client
            .configMaps()
            .inNamespace(namespace)
            .withName(pool + "-client")
            .get()
            .getData()
            .get("KVPOOL_CLIENT_SECRET");
    return PoolKeys.decode(client.secrets().inNamespace(namespace).withName(secret).get().getData())
        .get("client-key");
  }

  /** The {@code /status} a pod's admin server answers on {@code port}, read as {@code type}. */
  <T> T adminStatus(String pod, int port, Class<T> type) throws Exception {
    HttpResponse<String> r =
        HttpClient.newHttpClient()
            .send(
                HttpRequest.newBuilder(URI.create("http://" + podIp(pod) + ":" + port + "/status"))
                    .timeout(Duration.ofSeconds(10))
                    .build(),
                HttpResponse.BodyHandlers.ofString());
    return AdminJson.read(r.body(), type);
  }

  @Override
  public void testFailed(ExtensionContext context, Throwable cause) {
    System.out.println("===== " + context.getDisplayName() + " failed");
    if (client != null) {
      for (KvCachePool pool :
          client.resources(KvCachePool.class).inNamespace(namespace).list().getItems()) {
        String name = pool.getMetadata().getName();
        System.out.println("pool " + name + " status: " + pool.getStatus());
        new PoolEvents(client, namespace)
            .about(name)
            .forEach(e -> System.out.println("event " + e.getReason() + ": " + e.getMessage()));
      }
    }
    if (kubelet != null) {
      System.out.println(kubelet.diagnostics());
    }
  }

  @Override
  public void afterAll(ExtensionContext context) {
    if (operator != null) {
      operator.close();
    }
    if (kubelet != null) {
      kubelet.close();
    }
  }
}
