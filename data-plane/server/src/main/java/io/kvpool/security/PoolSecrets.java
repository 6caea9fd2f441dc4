package io.kvpool.security;

import io.kvpool.protocol.ConnectionSecurity;
import io.kvpool.protocol.PoolKey;
import io.kvpool.protocol.Role;
import io.kvpool.protocol.TlsContext;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The pool's secrets as one process holds them, from the folder the operator mounts the pool's
 * Secret into ({@code KVPOOL_SECRET_DIR}), one file per key: {@code cluster-key} (masters and
 * storage nodes: every role), {@code client-key} (inference clients: role CLIENT only), each with a
 * {@code .previous} file still accepted while a rotation rolls out, and {@code admin-token}
 * (mutating admin endpoints). The folder is read again when it changes (Kubernetes swaps a Secret
 * volume's files atomically), at most every {@link #RELOAD_MILLIS} ms, so a rotation needs no
 * restart. Without a folder, or with no key files, the pool runs without authentication. TLS, when
 * given a folder of its own ({@code KVPOOL_TLS_DIR}: tls.crt, tls.key, ca.crt), wraps every
 * connection.
 */
public final class PoolSecrets {
  static final long RELOAD_MILLIS = 2_000;
  private static final Logger LOG = LoggerFactory.getLogger(PoolSecrets.class);
  private static final List<String> FILES =
      List.of(
          "cluster-key",
          "cluster-key.previous",
          "client-key",
          "client-key.previous",
          "admin-token");

  /** A key this process accepts, and which roles it admits. */
  public record Accepted(PoolKey key, boolean cluster) {
    /** The cluster key admits every role; a client key only clients. */
    public boolean admits(Role role) {
      return cluster || role == Role.CLIENT;
    }
  }

  private record Loaded(
      List<String> files, PoolKey clusterKey, List<Accepted> accepted, String adminToken) {}

  private static final Loaded NONE = new Loaded(List.of(), null, List.of(), "");

  private final Path dir;
  private final TlsContext tls;
  private volatile Loaded loaded;
  private volatile long checkedAt;

  private PoolSecrets(Path dir, TlsContext tls, Loaded loaded) {
    this.dir = dir;
    this.tls = tls;
    this.loaded = loaded;
    this.checkedAt = System.currentTimeMillis();
  }

  public static PoolSecrets none() {
    return new PoolSecrets(null, null, NONE);
  }

  /**
   * The keys in {@code dir} (empty or null: none), plaintext; a key file present but too short
   * fails at once.
   */
  public static PoolSecrets fromDirectory(String dir) {
    return fromDirectories(dir, "");
  }

  /** The keys in {@code dir} and TLS from {@code tlsDir} (either empty: none). */
  public static PoolSecrets fromDirectories(String dir, String tlsDir) {
    TlsContext tls = TlsContext.fromDirectory(tlsDir);
    if (dir == null || dir.isBlank()) {
      return new PoolSecrets(null, tls, NONE);
    }
    Path path = Path.of(dir);
    return new PoolSecrets(path, tls, load(path));
  }

  /** TLS for every connection of this process, or null for plaintext. */
  public TlsContext tls() {
    return tls;
  }

  /** How this process connects to its peers: the cluster key and TLS. */
  public ConnectionSecurity outbound() {
    return new ConnectionSecurity(clusterKey(), tls);
  }

  /** Whether peers must authenticate. */
  public boolean enabled() {
    return !current().accepted().isEmpty();
  }

  /** The key named by {@code id}, if this process accepts it. */
  public Optional<Accepted> find(byte[] id) {
    for (Accepted a : current().accepted()) {
      if (a.key().hasId(id)) {
        return Optional.of(a);
      }
    }
    return Optional.empty();
  }

  /** The key this process proves when it connects to a peer (the current cluster key), or null. */
  public PoolKey clusterKey() {
    return current().clusterKey();
  }

  /** The bearer token of mutating admin endpoints; empty: they are open (local pools only). */
  public String adminToken() {
    return current().adminToken();
  }

  private Loaded current() {
    long now = System.currentTimeMillis();
    if (dir != null && now - checkedAt >= RELOAD_MILLIS) {
      checkedAt = now;
      try {
        Loaded fresh = load(dir);
        if (!fresh.files().equals(loaded.files())) {
          LOG.info("event=secrets_reloaded dir={} keys={}", dir, fresh.accepted().size());
          loaded = fresh;
        }
      } catch (RuntimeException e) {
        LOG.warn(
            "event=secrets_reload_failed dir={} error=\"{}\" (keeping the keys loaded before)",
            dir,
            e.getMessage());
      }
    }
    return loaded;
  }

  private static Loaded load(Path dir) {
    byte[][] contents = new byte[FILES.size()][];
    List<String> fingerprints = new ArrayList<>();
    for (int i = 0; i < FILES.size(); i++) {
      Path file = dir.resolve(FILES.get(i));
      try {
        contents[i] = Files.isRegularFile(file) ? Files.readAllBytes(file) : new byte[0];
      } catch (IOException e) {
        throw new UncheckedIOException("cannot read secret file " + file, e);
      }
      fingerprints.add(HexFormat.of().formatHex(contents[i]));
    }
    List<Accepted> accepted = new ArrayList<>();
    PoolKey cluster = null;
    for (int i = 0; i < 4; i++) {
      if (!PoolKey.isBlank(contents[i])) { // empty or whitespace only: no key, as a missing file
        PoolKey key;
        try {
          key =
              PoolKey.of(
                  contents[
                      i]); // a key file's bytes (PROTOCOL.md, "Key material"), never decoded as
          // text
        } catch (IllegalArgumentException e) {
          throw new IllegalArgumentException(
              "secret file " + dir.resolve(FILES.get(i)) + ": " + e.getMessage());
        }
        accepted.add(new Accepted(key, i < 2));
        if (i == 0) {
          cluster = key;
        }
      }
    }
    String adminToken = new String(contents[4], StandardCharsets.UTF_8).strip();
    return new Loaded(List.copyOf(fingerprints), cluster, List.copyOf(accepted), adminToken);
  }
}
