package io.kvpool.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kvpool.protocol.PoolKey;
import io.kvpool.protocol.Role;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * PROTOCOL.md, "Key material": a key file is read as bytes, less leading and trailing ASCII
 * whitespace, never decoded as text — so every key the operator, {@code kvpool local} or an
 * administrator writes has one meaning, the same in the Java servers, the Java client and the
 * Python client.
 */
class PoolSecretsTest {
  @TempDir Path dir;

  private static byte[] concat(byte[]... parts) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (byte[] p : parts) {
      out.writeBytes(p);
    }
    return out.toByteArray();
  }

  /** The key id PROTOCOL.md defines, computed here from the bytes the key must be. */
  private static byte[] documentedId(byte[] key) throws Exception {
    MessageDigest d = MessageDigest.getInstance("SHA-256");
    d.update("kvpool-key-id".getBytes(StandardCharsets.US_ASCII));
    return Arrays.copyOf(d.digest(key), 8);
  }

  @Test
  void aKeyFileIsItsBytesLessAsciiWhitespaceAroundThem() throws Exception {
    // not UTF-8 (0xff), and a control byte (0x1c) that Java's String.strip() would take for
    // whitespace
    byte[] key =
        concat(
            "binary-key-0123456789abcdef-".getBytes(StandardCharsets.US_ASCII),
            new byte[] {(byte) 0xff, 0x00, (byte) 0xc3, 0x1c});
    Files.write(
        dir.resolve("client-key"),
        concat(
            " \t\n\u000b\f\r".getBytes(StandardCharsets.US_ASCII),
            key,
            "\r\n".getBytes(StandardCharsets.US_ASCII)));

    PoolSecrets secrets = PoolSecrets.fromDirectory(dir.toString());

    assertThat(secrets.enabled()).isTrue();
    PoolSecrets.Accepted accepted =
        secrets
            .find(documentedId(key))
            .orElseThrow(
                () ->
                    new AssertionError(
                        "the key of exactly the bytes between the whitespace is not accepted"));
    assertThat(accepted.admits(Role.CLIENT)).isTrue();
    assertThat(accepted.admits(Role.STORAGE)).as("a client key").isFalse();
    assertThat(PoolKey.read(dir.resolve("client-key")).id())
        .as("what a client reads from the same file")
        .isEqualTo(documentedId(key));
  }

  @Test
  void textKeysAreTheirUtf8BytesAndANewlineChangesNothing() throws Exception {
    String text =
        "cluster-key-ÄÖÜ-0123456789abcdefghij"; // non-ASCII letters are key bytes like any other
    Files.writeString(dir.resolve("cluster-key"), text + "\n", StandardCharsets.UTF_8);

    PoolSecrets secrets = PoolSecrets.fromDirectory(dir.toString());

    byte[] id = documentedId(text.getBytes(StandardCharsets.UTF_8));
    assertThat(secrets.find(id)).isPresent();
    assertThat(secrets.clusterKey().id()).isEqualTo(id);
    assertThat(PoolKey.parse("  " + text + "\r\n").id())
        .as("the same key given as an environment variable")
        .isEqualTo(id);
  }

  @Test
  void nonAsciiWhitespaceIsPartOfTheKey() throws Exception {
    String text =
        "nbsp-ended-key-0123456789abcdefghij\u00a0"; // U+00A0, UTF-8 c2 a0: not ASCII whitespace
    assertThat(PoolKey.parse(text).id())
        .isEqualTo(documentedId(text.getBytes(StandardCharsets.UTF_8)));
  }

  @Test
  void anEmptyOrWhitespaceOnlyKeyFileIsNoKeyAndAShortOneIsRefused() throws Exception {
    Files.write(dir.resolve("cluster-key"), " \n\t".getBytes(StandardCharsets.US_ASCII));
    assertThat(PoolSecrets.fromDirectory(dir.toString()).enabled()).isFalse();

    Files.writeString(dir.resolve("client-key"), "  only-31-bytes-of-key-material!!\n");
    assertThatThrownBy(() -> PoolSecrets.fromDirectory(dir.toString()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("client-key")
        .hasMessageContaining("at least 32 bytes")
        .hasMessageContaining("has 31");
  }
}
