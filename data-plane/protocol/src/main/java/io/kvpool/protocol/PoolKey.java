package io.kvpool.protocol;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.Arrays;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * A pool secret as the handshake uses it (PROTOCOL.md, "Authentication"): never sent, only proven.
 * Its id names it in a HANDSHAKE request; proofs are HMAC-SHA256 over a label, the exact bytes of
 * the client's HANDSHAKE request body (which hold the client's nonce) and the server's nonce, so
 * neither side's proof can be replayed on another connection.
 */
public final class PoolKey {
  /** Shortest key: 32 bytes (the operator generates 43 base64url characters, 256 random bits). */
  public static final int MIN_BYTES = 32;

  public static final int ID_BYTES = 8;
  public static final int PROOF_BYTES = 32;

  private final byte[] secret;
  private final byte[] id;

  private PoolKey(byte[] secret) {
    this.secret = secret.clone();
    this.id =
        Arrays.copyOf(
            sha256("kvpool-key-id".getBytes(StandardCharsets.US_ASCII), secret), ID_BYTES);
  }

  /**
   * The key of a file's bytes (PROTOCOL.md, "Key material"): those bytes, less leading and trailing
   * ASCII whitespace (space, tab, LF, VT, FF, CR), at least {@link #MIN_BYTES} of them. Nothing
   * else is decoded: the base64url text the operator and {@code kvpool local} write is used as its
   * characters' bytes, and a file an editor or {@code echo} ended with a newline proves the same
   * key.
   */
  public static PoolKey of(byte[] material) {
    int start = 0;
    int end = material.length;
    while (start < end && asciiWhitespace(material[start])) {
      start++;
    }
    while (end > start && asciiWhitespace(material[end - 1])) {
      end--;
    }
    if (end - start < MIN_BYTES) {
      throw new IllegalArgumentException(
          "a pool key needs at least "
              + MIN_BYTES
              + " bytes (after leading and"
              + " trailing whitespace), this one has "
              + (end - start));
    }
    return new PoolKey(Arrays.copyOfRange(material, start, end));
  }

  /**
   * The key given as text (a Secret's value in an environment variable): its UTF-8 bytes, as {@link
   * #of}.
   */
  public static PoolKey parse(String text) {
    return of(text.getBytes(StandardCharsets.UTF_8));
  }

  /** The key in {@code file}: its bytes, as {@link #of}. */
  public static PoolKey read(Path file) throws IOException {
    return of(Files.readAllBytes(file));
  }

  /** Whether {@code material} holds nothing but ASCII whitespace (an empty key file: no key). */
  public static boolean isBlank(byte[] material) {
    for (byte b : material) {
      if (!asciiWhitespace(b)) {
        return false;
      }
    }
    return true;
  }

  private static boolean asciiWhitespace(byte b) {
    return b == ' ' || (b >= '\t' && b <= '\r'); // 0x09..0x0D: tab, LF, VT, FF, CR
  }

  public byte[] id() {
    return id.clone();
  }

  public boolean hasId(byte[] candidate) {
    return MessageDigest.isEqual(id, candidate);
  }

  /** What the server sends to prove it holds this key. */
  public byte[] serverProof(byte[] handshakeRequestBody, byte[] serverNonce) {
    return hmac("kvpool-server-proof", handshakeRequestBody, serverNonce);
  }

  /** What the connecting side sends in AUTH to prove it holds this key. */
  public byte[] clientProof(byte[] handshakeRequestBody, byte[] serverNonce) {
    return hmac("kvpool-client-proof", handshakeRequestBody, serverNonce);
  }

  /** Constant-time comparison of proofs. */
  public static boolean same(byte[] expected, byte[] actual) {
    return MessageDigest.isEqual(expected, actual);
  }

  private byte[] hmac(String label, byte[] handshakeRequestBody, byte[] serverNonce) {
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(secret, "HmacSHA256"));
      mac.update(label.getBytes(StandardCharsets.US_ASCII));
      mac.update(handshakeRequestBody);
      mac.update(serverNonce);
      return mac.doFinal();
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("HmacSHA256 is part of every JDK", e);
    }
  }

  private static byte[] sha256(byte[] label, byte[] key) {
    try {
      MessageDigest d = MessageDigest.getInstance("SHA-256");
      d.update(label);
      return d.digest(key);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("SHA-256 is part of every JDK", e);
    }
  }

  @Override
  public String toString() {
    return "PoolKey[id=" + java.util.HexFormat.of().formatHex(id) + "]"; // never the secret
  }
}
