package io.kvpool.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kvpool.client.ClientConfig;
import io.kvpool.client.KvPoolClient;
import io.kvpool.client.KvPoolException;
import io.kvpool.protocol.TlsContext;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A pool whose every connection is TLS 1.3 (master ↔ nodes, node ↔ node copies, clients), with a CA
 * and a certificate made by openssl as a cluster's certificate manager would: values round-trip
 * byte-exact with 2 replicas, a plaintext client and a client trusting another CA are refused.
 */
class TlsIT {
  private static final Duration TIMEOUT = Duration.ofSeconds(10);
  private static final Path TLS = certificates("pool");
  private static final Path OTHER_CA = certificates("other");

  @RegisterExtension
  final LocalPoolExtension pool =
      new LocalPoolExtension(
          b ->
              b.storageNodes(2)
                  .memoryPerNode("64MiB")
                  .masterOption("--tls-dir", TLS.toString())
                  .storageOption("--tls-dir", TLS.toString()));

  /**
   * A CA and a server certificate (PKCS#8 key) signed by it, in a folder laid out like a TLS
   * Secret.
   */
  private static Path certificates(String name) {
    try {
      Path dir = Files.createTempDirectory("kvpool-it-tls-" + name);
      openssl(
          dir,
          "req",
          "-x509",
          "-newkey",
          "ec",
          "-pkeyopt",
          "ec_paramgen_curve:P-256",
          "-nodes",
          "-days",
          "2",
          "-subj",
          "/CN=kvpool-" + name + "-ca",
          "-keyout",
          "ca.key",
          "-out",
          "ca.crt");
      openssl(
          dir,
          "req",
          "-newkey",
          "ec",
          "-pkeyopt",
          "ec_paramgen_curve:P-256",
          "-nodes",
          "-subj",
          "/CN=kvpool-" + name,
          "-keyout",
          "tls.key",
          "-out",
          "tls.csr");
      openssl(
          dir,
          "x509",
          "-req",
          "-in",
          "tls.csr",
          "-CA",
          "ca.crt",
          "-CAkey",
          "ca.key",
          "-CAcreateserial",
          "-days",
          "2",
          "-out",
          "tls.crt");
      return dir;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static void openssl(Path dir, String... args) throws IOException {
    List<String> command = new java.util.ArrayList<>(List.of("openssl"));
    command.addAll(List.of(args));
    Process p =
        new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes());
    try {
      if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
        throw new IOException("openssl " + String.join(" ", args) + " failed: " + out);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException(e);
    }
  }

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
