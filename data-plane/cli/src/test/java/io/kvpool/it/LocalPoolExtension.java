package io.kvpool.it;

import io.kvpool.cli.AdminApi;
import io.kvpool.cli.LocalPool;
import io.kvpool.cli.LocalPoolConfig;
import io.kvpool.client.ClientConfig;
import io.kvpool.client.KvPoolClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Starts a real local pool (master and storage nodes as separate JVMs, through the same {@link
 * LocalPool} the {@code kvpool} command uses) before each test and stops every process after it.
 * When a test fails, the last lines of every process log are printed next to the failure.
 */
public final class LocalPoolExtension implements BeforeEachCallback, AfterEachCallback {

  private static final int LOG_TAIL_LINES = 60;

  private final UnaryOperator<LocalPoolConfig.Builder> settings;
  private final List<KvPoolClient> clients = new ArrayList<>();
  private LocalPool pool;

  public LocalPoolExtension(UnaryOperator<LocalPoolConfig.Builder> settings) {
    this.settings = settings;
  }

  @Override
  public void beforeEach(ExtensionContext context) {
    String name = context.getRequiredTestClass().getSimpleName();
    pool = settings.apply(LocalPool.builder().poolId("it-" + name.toLowerCase())).start();
  }

  @Override
  public void afterEach(ExtensionContext context) {
    try {
      clients.forEach(KvPoolClient::close);
      clients.clear();
      if (context.getExecutionException().isPresent()) {
        System.err.println(
            "===== "
                + context.getDisplayName()
                + " failed; process logs in "
                + pool.logDir()
                + ", exited: "
                + pool.exitedProcesses()
                + " =====");
        System.err.println(pool.logTails(LOG_TAIL_LINES));
      }
    } finally {
      pool.close();
    }
  }

  public LocalPool pool() {
    return pool;
  }

  public AdminApi masterAdmin() {
    return new AdminApi(pool.adminAddress());
  }

  /** A client of this pool, closed after the test. */
  public KvPoolClient newClient(String clientId) {
    KvPoolClient client =
        KvPoolClient.connect(
            ClientConfig.builder()
                .master(pool.masterAddress())
                .clientId(clientId)
                .timeout(Duration.ofSeconds(30))
                .build());
    clients.add(client);
    return client;
  }
}
