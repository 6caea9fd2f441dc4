package io.kvpool.master;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvpool.protocol.Release;
import io.kvpool.security.PoolSecrets;
import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.net.InetSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A node the master cannot reach does not hold every REMOVE for the push timeout: once a push to it
 * failed, pushes to it are skipped (its heartbeat carries the releases) for the quiet period.
 */
class ReleasePusherTest {
  @Test
  void aNodeWhosePushFailedIsSkippedUntilItsQuietPeriodEnds() throws Exception {
    int port;
    try (ServerSocketChannel s =
        ServerSocketChannel.open().bind(new InetSocketAddress("127.0.0.1", 0))) {
      port =
          ((InetSocketAddress) s.getLocalAddress())
              .getPort(); // closed again: connections are refused
    }
    Counter pushes =
        Counter.builder()
            .name("pushes_total")
            .labelNames("outcome")
            .register(new PrometheusRegistry());
    Map<String, List<Release>> toGoneNode =
        Map.of("127.0.0.1:" + port, List.of(new Release("k", 1, true)));
    try (ReleasePusher pusher =
        new ReleasePusher("p", PoolSecrets.none(), pushes, Duration.ofMinutes(1))) {
      pusher.push(toGoneNode, 1);
      assertThat(pushes.labelValues("failed").get()).isEqualTo(1);
      for (int i = 0; i < 3; i++) {
        pusher.push(toGoneNode, 1);
      }
      assertThat(pushes.labelValues("skipped").get()).isEqualTo(3);
      assertThat(pushes.labelValues("failed").get()).as("not tried again").isEqualTo(1);
    }
  }
}
