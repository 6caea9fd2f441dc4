package io.kvpool.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.ServerSocket;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

class FreePortsTest {
  @Test
  void noPortIsHandedOutTwiceAndEachCanBeBound() throws IOException {
    Set<Integer> ports = new HashSet<>();
    for (int i = 0; i < 200; i++) {
      assertThat(ports.add(FreePorts.take())).as("port handed out twice").isTrue();
    }
    int last = FreePorts.take();
    try (ServerSocket s = new ServerSocket(last)) {
      assertThat(s.getLocalPort()).isEqualTo(last);
    }
  }
}
