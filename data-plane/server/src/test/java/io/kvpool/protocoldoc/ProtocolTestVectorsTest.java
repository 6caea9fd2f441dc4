package io.kvpool.protocoldoc;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvpool.common.VersionInfo;
import io.kvpool.protocol.AuthRequest;
import io.kvpool.protocol.BodyWriter;
import io.kvpool.protocol.Handshake;
import io.kvpool.protocol.HandshakeRequest;
import io.kvpool.protocol.PoolKey;
import io.kvpool.protocol.Role;
import io.kvpool.protocol.Slice;
import io.kvpool.security.NodeKey;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.Test;

/**
 * PROTOCOL.md, "Test vectors", against the code: the documented bytes of a key, its id, a HANDSHAKE
 * request body, the server's and the client's proofs and a node key's grant, token and receipt are
 * what {@link PoolKey}, {@link HandshakeRequest} and {@link NodeKey} compute — and each documented
 * HMAC input, fed to a plain HMAC-SHA256, gives the documented value, so the byte layout the
 * document spells out is the one the code uses.
 */
class ProtocolTestVectorsTest {
  private static final HexFormat HEX = HexFormat.of();

  /** The vectors: name to bytes, from the fenced block of the section. */
  static Map<String, byte[]> vectors() throws IOException {
    String doc = Files.readString(Path.of("..", "PROTOCOL.md"), StandardCharsets.UTF_8);
    int section = doc.indexOf("\n## Test vectors");
    assertThat(section).as("PROTOCOL.md has a section Test vectors").isNotNegative();
    int open = doc.indexOf("```\n", section) + 4;
    String block = doc.substring(open, doc.indexOf("```", open));
    Map<String, StringBuilder> hex = new LinkedHashMap<>();
    String last = null;
    for (String line : block.split("\n")) {
      if (line.startsWith(" ")) {
        hex.get(last).append(line.strip());
      } else if (!line.isBlank()) {
        int eq = line.indexOf(" = ");
        last = line.substring(0, eq).strip();
        hex.put(last, new StringBuilder(line.substring(eq + 3).strip()));
      }
    }
    Map<String, byte[]> out = new LinkedHashMap<>();
    hex.forEach((name, value) -> out.put(name, HEX.parseHex(value)));
    return out;
  }

  private static byte[] bytes(BodyWriter w) {
    ByteBuffer b = w.toBuffer();
    byte[] out = new byte[b.remaining()];
    b.get(out);
    return out;
  }

  private static byte[] hmac(byte[] key, byte[] input, int length) throws Exception {
    Mac mac = Mac.getInstance("HmacSHA256");
    mac.init(new SecretKeySpec(key, "HmacSHA256"));
    return Arrays.copyOf(mac.doFinal(input), length);
  }

  @Test
  void theKeyItsIdTheHandshakeBodyAndBothProofsAreTheCodes() throws Exception {
    Map<String, byte[]> v = vectors();
    PoolKey key = PoolKey.of(v.get("key file"));
    assertThat(key.id()).as("key id of the key file").isEqualTo(v.get("key id"));
    assertThat(PoolKey.of(v.get("key")).id()).as("key id of the key").isEqualTo(v.get("key id"));

    BodyWriter h = new BodyWriter();
    new HandshakeRequest(
            new Handshake(new VersionInfo("0.2.0", 2, 2), Role.CLIENT, "doc", "client-1"),
            0,
            key.id(),
            v.get("client nonce"))
        .encode(h);
    byte[] body = bytes(h);
    assertThat(HEX.formatHex(body)).as("H").isEqualTo(HEX.formatHex(v.get("H")));

    byte[] serverProof = key.serverProof(body, v.get("server nonce"));
    byte[] clientProof = key.clientProof(body, v.get("server nonce"));
    assertThat(HEX.formatHex(serverProof))
        .as("server proof")
        .isEqualTo(HEX.formatHex(v.get("server proof")));
    assertThat(HEX.formatHex(clientProof))
        .as("client proof")
        .isEqualTo(HEX.formatHex(v.get("client proof")));
    BodyWriter auth = new BodyWriter();
    new AuthRequest(clientProof).encode(auth);
    assertThat(bytes(auth))
        .as("AUTH body: u16 32, then the proof")
        .startsWith((byte) 0, (byte) 32)
        .endsWith(clientProof)
        .hasSize(34);
  }

  @Test
  void theDocumentedLayoutIsPlainConcatenation() throws Exception {
    Map<String, byte[]> v = vectors();
    byte[] key = v.get("key");
    assertThat(
            Arrays.copyOf(
                MessageDigest.getInstance("SHA-256")
                    .digest(concat("kvpool-key-id".getBytes(StandardCharsets.US_ASCII), key)),
                8))
        .isEqualTo(v.get("key id"));
    assertThat(
            hmac(
                key,
                concat(
                    "kvpool-server-proof".getBytes(StandardCharsets.US_ASCII),
                    v.get("H"),
                    v.get("server nonce")),
                32))
        .isEqualTo(v.get("server proof"));
    assertThat(
            hmac(
                key,
                concat(
                    "kvpool-client-proof".getBytes(StandardCharsets.US_ASCII),
                    v.get("H"),
                    v.get("server nonce")),
                32))
        .isEqualTo(v.get("client proof"));
    for (String token : new String[] {"write grant", "read token", "receipt", "extent token"}) {
      assertThat(hmac(v.get("node key"), v.get(token + " input"), 16))
          .as(token)
          .isEqualTo(v.get(token));
    }
  }

  @Test
  void grantsTokensAndReceiptsAreTheNodeKeys() throws Exception {
    Map<String, byte[]> v = vectors();
    NodeKey nodeKey = new NodeKey(v.get("node key"));
    long expiresAt = 1_700_000_000_000L;
    assertThat(
            HEX.formatHex(
                nodeKey.writeGrant(
                    "k/1", 7, new Slice(0, 4096, 65536, 0), 65536, 0x1234abcd, 2, expiresAt)))
        .as("write grant")
        .isEqualTo(HEX.formatHex(v.get("write grant")));
    assertThat(HEX.formatHex(nodeKey.readToken("k/1", 7, expiresAt)))
        .as("read token")
        .isEqualTo(HEX.formatHex(v.get("read token")));
    assertThat(HEX.formatHex(nodeKey.receipt("k/1", 7, 65536, 0x1234abcd)))
        .as("receipt")
        .isEqualTo(HEX.formatHex(v.get("receipt")));
    assertThat(HEX.formatHex(nodeKey.extentToken(7, 4096, 0, 4096, 65536, expiresAt)))
        .as("extent token")
        .isEqualTo(HEX.formatHex(v.get("extent token")));
  }

  private static byte[] concat(byte[]... parts) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (byte[] p : parts) {
      out.writeBytes(p);
    }
    return out.toByteArray();
  }
}
