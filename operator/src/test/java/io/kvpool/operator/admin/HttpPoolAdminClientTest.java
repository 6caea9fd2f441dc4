package io.kvpool.operator.admin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpServer;
import io.kvpool.admin.AdminJson;
import io.kvpool.admin.MasterStatus;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The real HTTP client against a loopback HTTP server serving documents of the shared admin-api
 * type.
 */
class HttpPoolAdminClientTest {
  private HttpServer server;

  private URI serve(int code, String body) throws IOException {
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext(
        "/status",
        exchange -> {
          byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
          exchange.sendResponseHeaders(code, bytes.length);
          exchange.getResponseBody().write(bytes);
          exchange.close();
        });
    server.start();
    return URI.create("http://127.0.0.1:" + server.getAddress().getPort());
  }

  @AfterEach
  void stop() {
    if (server != null) {
      server.stop(0);
    }
  }

  @Test
  void readsTheDocumentTheMasterWrites() throws Exception {
    MasterStatus written =
        new MasterStatus(
            AdminJson.API_VERSION,
            "p",
            "LEADER",
            "SERVING",
            7,
            new MasterStatus.Leader("p-master-1", "10.0.0.7:50051", "10.0.0.7:8080"),
            "0.1.0",
            "2.0",
            new MasterStatus.Recovery(false, 12, List.of("node-2")),
            List.of(
                new MasterStatus.NodeStatus(
                    "a", "10.0.0.1:50052", "ALIVE", 1L << 30, 1L << 29, 3, "0.1.0", "2.0", 10),
                new MasterStatus.NodeStatus(
                    "b", "10.0.0.2:50052", "DEAD", 1L << 30, 1L << 29, 0, "0.1.0", "2.0", 9000)),
            2L << 30,
            1L << 30,
            42,
            null,
            null,
            null);
    URI base = serve(200, AdminJson.write(written));

    MasterStatus status = new HttpPoolAdminClient(Duration.ofSeconds(2)).status(base);

    assertThat(status).isEqualTo(written);
    assertThat(status.aliveNodes()).isEqualTo(1);
    assertThat(status.leader().pod()).isEqualTo("p-master-1");
  }

  @Test
  void drainAndStepDownArePostsWithTheAdminTokenAndARefusalCarriesTheLeadersReason()
      throws Exception {
    List<String> seen = new java.util.ArrayList<>();
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext(
        "/",
        exchange -> {
          seen.add(
              exchange.getRequestMethod()
                  + " "
                  + exchange.getRequestURI()
                  + " "
                  + exchange.getRequestHeaders().getFirst("Authorization"));
          boolean refuse = exchange.getRequestURI().getPath().contains("full");
          byte[] bytes =
              (refuse ? "cannot drain node full: its 9 bytes do not fit" : "ok")
                  .getBytes(StandardCharsets.UTF_8);
          exchange.sendResponseHeaders(refuse ? 409 : 200, bytes.length);
          exchange.getResponseBody().write(bytes);
          exchange.close();
        });
    server.start();
    URI base = URI.create("http://127.0.0.1:" + server.getAddress().getPort());
    HttpPoolAdminClient client = new HttpPoolAdminClient(Duration.ofSeconds(2));

    client.drain(base, "p-storage-3", "secret");
    client.stepDown(base, "secret");
    client.stepDown(base, "");
    assertThatThrownBy(() -> client.drain(base, "full", "secret"))
        .isInstanceOf(PoolAdminException.class)
        .hasMessageContaining("HTTP 409")
        .hasMessageContaining("do not fit");

    assertThat(seen)
        .containsExactly(
            "POST /nodes/p-storage-3/drain Bearer secret",
            "POST /step-down Bearer secret",
            "POST /step-down null",
            "POST /nodes/full/drain Bearer secret");
  }

  @Test
  void aDocumentOfAnotherVersionIsRefusedNamingIt() throws Exception {
    URI base = serve(200, "{\"apiVersion\":\"kvpool.io/admin/v2\",\"poolId\":\"p\"}");

    assertThatThrownBy(() -> new HttpPoolAdminClient(Duration.ofSeconds(2)).status(base))
        .isInstanceOf(PoolAdminException.class)
        .hasMessageContaining("kvpool.io/admin/v2");
  }

  @Test
  void aNonOkAnswerIsAnErrorNamingTheAddressAndCode() throws Exception {
    URI base = serve(503, "recovering");

    assertThatThrownBy(() -> new HttpPoolAdminClient(Duration.ofSeconds(2)).status(base))
        .isInstanceOf(PoolAdminException.class)
        .hasMessageContaining(base + "/status")
        .hasMessageContaining("HTTP 503")
        .hasMessageContaining("recovering");
  }

  @Test
  void aClosedPortIsUnreachable() throws Exception {
    int port;
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      port = socket.getLocalPort();
    }
    URI base = URI.create("http://127.0.0.1:" + port);

    assertThatThrownBy(() -> new HttpPoolAdminClient(Duration.ofSeconds(2)).status(base))
        .isInstanceOf(PoolAdminException.class)
        .hasMessageContaining("unreachable");
  }

  @Test
  void garbageIsAnError() throws Exception {
    URI base = serve(200, "<html>not json</html>");

    assertThatThrownBy(() -> new HttpPoolAdminClient(Duration.ofSeconds(2)).status(base))
        .isInstanceOf(PoolAdminException.class)
        .hasMessageContaining("no usable status document");
  }
}
