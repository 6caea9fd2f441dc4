package io.kvpool.protocol;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Arrays;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Signs and checks write grants with a per-node key. It guards data against buggy or stale writers (a client
 * writing after its put was revoked and the range reused), not against an attacker on the wire.
 */
public final class GrantSigner {
  private static final int TOKEN_BYTES = 16;
  private final ThreadLocal<Mac> mac;

  public GrantSigner(byte[] key) {
    SecretKeySpec spec = new SecretKeySpec(key.clone(), "HmacSHA256");
    this.mac = ThreadLocal.withInitial(() -> {
      try {
        Mac m = Mac.getInstance("HmacSHA256");
        m.init(spec);
        return m;
      } catch (GeneralSecurityException e) {
        throw new IllegalStateException("HmacSHA256 unavailable in this JDK", e);
      }
    });
  }

  public static byte[] newKey() {
    byte[] key = new byte[32];
    new SecureRandom().nextBytes(key);
    return key;
  }

  public byte[] sign(String key, int segmentId, long offset, int length, long expiresAtMillis) {
    Mac m = mac.get();
    m.update(key.getBytes(StandardCharsets.UTF_8));
    ByteBuffer fields = ByteBuffer.allocate(24).putInt(segmentId).putLong(offset).putInt(length).putLong(expiresAtMillis);
    m.update(fields.array());
    return Arrays.copyOf(m.doFinal(), TOKEN_BYTES);
  }

  public boolean verify(String key, int segmentId, long offset, int length, long expiresAtMillis, byte[] token) {
    return MessageDigest.isEqual(sign(key, segmentId, offset, length, expiresAtMillis), token);
  }
}
