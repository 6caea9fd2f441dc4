package io.kvpool.rpc;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvpool.common.HostPort;
import io.kvpool.common.VersionInfo;
import io.kvpool.protocol.Handshake;
import io.kvpool.protocol.IdleConnections;
import io.kvpool.protocol.Opcode;
import io.kvpool.protocol.Role;
import io.kvpool.protocol.RpcConnection;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Connections kept for reuse, against a real server: one in step is reused, a broken one never is,
 * and idle ones past their time are closed by the sweep without any further call.
 */
class IdleConnectionsTest {
  private static final Duration GENEROUS = Duration.ofSeconds(30);

  private final AtomicInteger opened = new AtomicInteger();
  private RpcServer server;
  private HostPort endpoint;

  private void start() throws IOException {
    server =
        LoopbackServers.start(
            "peer",
            Role.MASTER,
            (session, frame) -> {
              frame.reader().finish();
              session.reply(frame, null);
            },
            ServerLimits.DEFAULTS,
            new PrometheusRegistry());
    endpoint = server.endpoint();
  }

  @AfterEach
  void stop() throws IOException {
    if (server != null) {
      server.close();
    }
  }

  private RpcConnection open() throws IOException {
    opened.incrementAndGet();
    return RpcConnection.open(
        endpoint, new Handshake(VersionInfo.CURRENT, Role.CLIENT, "pool", "c"), GENEROUS);
  }

  private static void ping(RpcConnection c) throws IOException {
    try (RpcConnection.Deadline d = c.deadline(GENEROUS)) {
      c.call(Opcode.PING, null);
    }
  }

  @Test
  void aConnectionInStepIsReusedAndABrokenOneIsNot() throws Exception {
    start();
    try (IdleConnections pool = new IdleConnections(2, GENEROUS)) {
      for (int i = 0; i < 20; i++) {
        RpcConnection c = pool.borrow("peer", this::open);
        ping(c);
        pool.release("peer", c);
      }
      assertThat(opened).as("one connection for 20 sequential calls").hasValue(1);
      RpcConnection c = pool.borrow("peer", this::open);
      c.markBroken();
      pool.release("peer", c);
      assertThat(pool.idleCount()).isZero();
      RpcConnection fresh = pool.borrow("peer", this::open);
      assertThat(fresh).isNotSameAs(c);
      assertThat(opened).hasValue(2);
      pool.release("peer", fresh);
    }
  }

  @Test
  void idleConnectionsPastTheirTimeAreClosedWithoutAnotherCall() throws Exception {
    start();
    try (IdleConnections pool = new IdleConnections(4, Duration.ofMillis(200))) {
      RpcConnection a = pool.borrow("peer", this::open);
      RpcConnection b = pool.borrow("peer", this::open);
      pool.release("peer", a);
      pool.release("peer", b);
      assertThat(pool.idleCount()).isEqualTo(2);
      long deadline = System.nanoTime() + GENEROUS.toNanos();
      while (pool.idleCount() > 0 && System.nanoTime() < deadline) {
        Thread.sleep(20);
      }
      assertThat(pool.idleCount()).as("swept after 200 ms idle").isZero();
      assertThat(a.isUsable()).isFalse();
      assertThat(b.isUsable()).isFalse();
    }
  }
}
