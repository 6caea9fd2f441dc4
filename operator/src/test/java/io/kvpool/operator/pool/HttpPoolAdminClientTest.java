package io.kvpool.operator.pool;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The real HTTP client against a real loopback HTTP server serving canned /status documents. */
class HttpPoolAdminClientTest {
  private HttpServer server;

  private URI serve(int code, String body) throws IOException {
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext("/status", exchange -> {
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
  void readsTheFiguresOfTheLeader() throws Exception {
    URI base = serve(200, """
        {"poolId":"p","role":"LEADER","viewNumber":7,"releaseVersion":"0.1.0","protocolVersion":"1.0",
         "nodes":[{"id":"a","state":"ALIVE"},{"id":"b","state":"DEAD"}],
         "capacityBytes":2147483648,"usedBytes":1073741824,"objectCount":42}""");

    MasterStatus status = new HttpPoolAdminClient(Duration.ofSeconds(2)).status(base);

    assertThat(status.poolId()).isEqualTo("p");
    assertThat(status.role()).isEqualTo("LEADER");
    assertThat(status.viewNumber()).isEqualTo(7);
    assertThat(status.releaseVersion()).isEqualTo("0.1.0");
    assertThat(status.nodes()).isEqualTo(2);
    assertThat(status.aliveNodes()).isEqualTo(1);
    assertThat(status.capacityBytes()).isEqualTo(2L << 30);
    assertThat(status.usedBytes()).isEqualTo(1L << 30);
    assertThat(status.objectCount()).isEqualTo(42);
  }

  @Test
  void aNonOkAnswerIsAnErrorNamingTheAddressAndCode() throws Exception {
    URI base = serve(503, "recovering");

    assertThatThrownBy(() -> new HttpPoolAdminClient(Duration.ofSeconds(2)).status(base))
        .isInstanceOf(PoolAdminException.class)
        .hasMessageContaining(base + "/status").hasMessageContaining("HTTP 503").hasMessageContaining("recovering");
  }

  @Test
  void aClosedPortIsUnreachable() throws Exception {
    int port;
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      port = socket.getLocalPort();
    }
    URI base = URI.create("http://127.0.0.1:" + port);

    assertThatThrownBy(() -> new HttpPoolAdminClient(Duration.ofSeconds(2)).status(base))
        .isInstanceOf(PoolAdminException.class).hasMessageContaining("unreachable");
  }

  @Test
  void garbageIsAnError() throws Exception {
    URI base = serve(200, "<html>not json</html>");

    assertThatThrownBy(() -> new HttpPoolAdminClient(Duration.ofSeconds(2)).status(base))
        .isInstanceOf(PoolAdminException.class).hasMessageContaining("no JSON");
  }
}
