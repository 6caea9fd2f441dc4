package io.kvpool.operator.render;

import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * The content of a pool's keys Secret: a cluster key (masters and storage nodes), a client key
 * (inference clients) and an admin token, each 256 random bits; kept as they are once created. A
 * rotation (the pool's {@value #ROTATE_ANNOTATION} annotation set to a value not yet served) makes
 * new keys and keeps the old ones as {@code .previous} until the next rotation, so every process
 * goes on accepting what running peers still prove. Pure: the randomness is passed in.
 */
public final class PoolKeys {
  public static final String CLUSTER_KEY = "cluster-key";
  public static final String CLIENT_KEY = "client-key";
  public static final String ADMIN_TOKEN = "admin-token";
  public static final String PREVIOUS = ".previous";

  /** On the pool: set it to a new value (e.g. a date) to rotate the keys. */
  public static final String ROTATE_ANNOTATION = "kvpool.io/rotate-keys";

  /** On the keys Secret: the rotation request its keys answer. */
  public static final String ROTATED_FOR_ANNOTATION = "kvpool.io/rotated-for";

  private static final SecureRandom RANDOM = new SecureRandom();

  private PoolKeys() {}

  /**
   * 32 random bytes as 43 base64url characters (the data plane takes a key's text as its bytes).
   */
  public static String randomKey() {
    byte[] bytes = new byte[32];
    RANDOM.nextBytes(bytes);
    return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
  }

  /**
   * The next content: {@code current} kept (missing entries made), or rotated when {@code
   * requested} is set and differs from {@code servedRotation}.
   */
  public static Map<String, String> next(
      Map<String, String> current,
      String servedRotation,
      String requested,
      Supplier<String> random) {
    Map<String, String> out = new LinkedHashMap<>(current);
    boolean rotate =
        requested != null
            && !requested.isBlank()
            && !Objects.equals(requested, servedRotation)
            && out.containsKey(CLUSTER_KEY);
    for (String name : new String[] {CLUSTER_KEY, CLIENT_KEY, ADMIN_TOKEN}) {
      if (rotate) {
        if (!name.equals(ADMIN_TOKEN)) {
          out.put(name + PREVIOUS, out.get(name));
        }
        out.put(name, random.get());
      } else {
        out.putIfAbsent(name, random.get());
      }
    }
    return out;
  }

  /** The Secret's data (base64) of {@code values}. */
  public static Map<String, String> encode(Map<String, String> values) {
    Map<String, String> data = new LinkedHashMap<>();
    values.forEach(
        (k, v) ->
            data.put(k, Base64.getEncoder().encodeToString(v.getBytes(StandardCharsets.UTF_8))));
    return data;
  }

  /** The values of a Secret's data (base64). */
  public static Map<String, String> decode(Map<String, String> data) {
    Map<String, String> values = new LinkedHashMap<>();
    if (data != null) {
      data.forEach(
          (k, v) ->
              values.put(k, new String(Base64.getDecoder().decode(v), StandardCharsets.UTF_8)));
    }
    return values;
  }
}
