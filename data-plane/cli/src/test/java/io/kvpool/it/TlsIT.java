package io.kvpool.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kvpool.cli.LocalSecrets;
import io.kvpool.client.ClientConfig;
import io.kvpool.client.KvPoolClient;
import io.kvpool.client.KvPoolException;
import io.kvpool.protocol.TlsContext;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A pool whose every connection is TLS 1.3 (master ↔ nodes, node ↔ node copies, clients), with a CA
 * and a certificate made by openssl as a cluster's certificate manager would: values round-trip
 * byte-exact with 2 replicas, a plaintext client and a client trusting another CA are refused.
 */
class TlsIT {
  private static final Duration TIMEOUT = Duration.ofSeconds(10);
  private static final Path TLS = LocalSecrets.tls();
  private static final Path OTHER_CA = LocalSecrets.tls();

  @RegisterExtension
  final LocalPoolExtension pool =
      new LocalPoolExtension(
          b ->
              b.storageNodes(2)
                  .memoryPerNode("64MiB")
                  .masterOption("--tls-dir", TLS.toString())
                  .storageOption("--tls-dir", TLS.toString()));

  private KvPoolClient client(TlsContext tls) {
    return KvPoolClient.connect(
        ClientConfig.builder()
            .master(pool.pool().masterAddress())
            .clientId("it-tls")
            .tls(tls)
            .timeout(TIMEOUT)
            .operationTimeout(TIMEOUT)
            .build());
  }

  @Test
  void everyConnectionIsTlsAndPlaintextOrStrangersAreRefused() {
    SplittableRandom random = new SplittableRandom(9);
    try (KvPoolClient client = client(TlsContext.trusting(TLS.resolve("ca.crt")))) {
      for (int i = 0; i < 20; i++) {
        ByteBuffer value = Values.random(1 + random.nextInt(2 << 20), random);
        client.put("tls/" + i, value, 2);
        assertThat(Values.crc(client.get("tls/" + i))).isEqualTo(Values.crc(value));
      }
    }
    assertThatThrownBy(() -> client(null).exists("tls/0")).isInstanceOf(KvPoolException.class);
    assertThatThrownBy(
            () -> client(TlsContext.trusting(OTHER_CA.resolve("ca.crt"))).exists("tls/0"))
        .isInstanceOf(KvPoolException.class);
    assertThat(pool.pool().exitedProcesses()).isEmpty();
  }
}
