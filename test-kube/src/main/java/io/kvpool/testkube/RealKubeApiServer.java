package io.kvpool.testkube;

import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.List;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * JUnit 5 extension giving tests a real kube-apiserver + etcd (never a mock):
 * {@code @ExtendWith(RealKubeApiServer.class)} and a {@link KubernetesClient} parameter, or the
 * static {@link #client()}.
 *
 * <p>One server is started per test JVM, on first use, from the binaries of the Kubernetes release
 * pinned in {@code e2e/cluster/kube-version} (built by {@code e2e/cluster/kube-binaries.sh};
 * nothing is downloaded), with the project's CRDs from {@code crds/} installed and Established. It
 * stops when JUnit finishes the run, or at JVM exit when used without the extension. Tests share
 * it, so each test uses its own namespace or uniquely named objects.
 */
public final class RealKubeApiServer implements BeforeAllCallback, ParameterResolver {

  private static final ExtensionContext.Namespace NAMESPACE =
      ExtensionContext.Namespace.create(RealKubeApiServer.class);

  private static RunningApiServer running;
  private static KubeTestSetupException startFailure;

  /** The shared client of the running server (started if needed); do not close it. */
  public static KubernetesClient client() {
    return server().client();
  }

  /**
   * A kubeconfig for the running server, e.g. for a second process or a separately configured
   * client.
   */
  public static String kubeconfigYaml() {
    return server().kubeconfigYaml();
  }

  /** A new client of its own (e.g. one per simulated pod); the caller closes it. */
  public static KubernetesClient newClient() {
    return RunningApiServer.newClient(kubeconfigYaml());
  }

  /** Names of the project CRDs installed from {@code crds/} when the server started. */
  public static List<String> projectCrds() {
    return server().projectCrds();
  }

  @Override
  public void beforeAll(ExtensionContext context) {
    RunningApiServer server = server();
    // The root store is closed when the whole test run ends, after the last test class that needs
    // the server.
    context
        .getRoot()
        .getStore(NAMESPACE)
        .getOrComputeIfAbsent(ServerStopper.class, key -> new ServerStopper(server));
  }

  @Override
  public boolean supportsParameter(
      ParameterContext parameterContext, ExtensionContext extensionContext) {
    return parameterContext.getParameter().getType() == KubernetesClient.class;
  }

  @Override
  public Object resolveParameter(
      ParameterContext parameterContext, ExtensionContext extensionContext) {
    return client();
  }

  private static synchronized RunningApiServer server() {
    if (startFailure != null) {
      // A start that failed all its attempts (ApiServerLaunch) is not tried again by every later
      // test class.
      throw startFailure;
    }
    if (running == null) {
      try {
        running = RunningApiServer.start(RepositoryRoot.find());
      } catch (KubeTestSetupException e) {
        startFailure = e;
        throw e;
      }
      RunningApiServer started = running;
      Runtime.getRuntime().addShutdownHook(new Thread(started::stop, "kube-apiserver-stop"));
    }
    return running;
  }

  private record ServerStopper(RunningApiServer server) implements AutoCloseable {
    @Override
    public void close() {
      server.stop();
    }
  }
}
