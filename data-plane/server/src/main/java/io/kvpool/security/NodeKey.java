package io.kvpool.security;

import io.kvpool.protocol.BodyWriter;
import io.kvpool.protocol.Slice;
import java.nio.ByteBuffer;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Arrays;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * A storage node's key for one registration, shared by the master (which signs write grants and
 * read tokens and checks receipts) and the node (which checks grants and tokens and signs
 * receipts). Every token names the object (key and generation), so one issued for an object never
 * serves another object that later reuses its range. HMAC-SHA256 over the fields encoded as in a
 * protocol body, after a label, truncated to 16 bytes.
 */
public final class NodeKey {
  public static final int KEY_BYTES = 32;
  private static final int TOKEN_BYTES = 16;
  private static final SecureRandom RANDOM = new SecureRandom();

  private final byte[] key;
  private final ThreadLocal<Mac> mac;

  public NodeKey(byte[] key) {
    this.key = key.clone();
    SecretKeySpec spec = new SecretKeySpec(this.key, "HmacSHA256");
    this.mac =
        ThreadLocal.withInitial(
            () -> {
              try {
                Mac m = Mac.getInstance("HmacSHA256");
                m.init(spec);
                return m;
              } catch (GeneralSecurityException e) {
                throw new IllegalStateException("HmacSHA256 unavailable in this JDK", e);
              }
            });
  }

  public static NodeKey random() {
    byte[] k = new byte[KEY_BYTES];
    RANDOM.nextBytes(k);
    return new NodeKey(k);
  }

  /** The key's bytes, for the registration reply that hands it to its node. */
  public byte[] bytes() {
    return key.clone();
  }

  public byte[] writeGrant(
      String objectKey,
      long generation,
      Slice slice,
      int valueSize,
      int checksum,
      int replicas,
      long expiresAtMillis) {
    BodyWriter w =
        new BodyWriter(64 + objectKey.length()).string("write").string(objectKey).i64(generation);
    slice.encode(w);
    return sign(w.i32(valueSize).i32(checksum).u8(replicas).i64(expiresAtMillis));
  }

  public byte[] readToken(String objectKey, long generation, long expiresAtMillis) {
    return sign(
        new BodyWriter(32 + objectKey.length())
            .string("read")
            .string(objectKey)
            .i64(generation)
            .i64(expiresAtMillis));
  }

  public byte[] receipt(String objectKey, long generation, int valueSize, int checksum) {
    return sign(
        new BodyWriter(32 + objectKey.length())
            .string("receipt")
            .string(objectKey)
            .i64(generation)
            .i32(valueSize)
            .i32(checksum));
  }

  /**
   * An extent's token (protocol 2.4): label "extent", first generation i64, generations i32,
   * segment i32, offset i64, length i32, expires-at i64.
   */
  public byte[] extentToken(
      long firstGeneration,
      int generations,
      int segmentId,
      long offset,
      int length,
      long expiresAtMillis) {
    return sign(
        new BodyWriter(64)
            .string("extent")
            .i64(firstGeneration)
            .i32(generations)
            .i32(segmentId)
            .i64(offset)
            .i32(length)
            .i64(expiresAtMillis));
  }

  /** Constant-time comparison of a presented token with the expected one. */
  public static boolean matches(byte[] expected, byte[] presented) {
    return presented != null && MessageDigest.isEqual(expected, presented);
  }

  private byte[] sign(BodyWriter fields) {
    Mac m = mac.get();
    ByteBuffer b = fields.toBuffer();
    m.update(b);
    return Arrays.copyOf(m.doFinal(), TOKEN_BYTES);
  }
}
