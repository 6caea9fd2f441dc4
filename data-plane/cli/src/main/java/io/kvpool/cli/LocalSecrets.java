package io.kvpool.cli;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * Secrets for a local pool, laid out as the operator mounts them: a keys folder (cluster-key,
 * client-key, admin-token: 256 random bits each, as 43 base64url characters) and a TLS folder (a CA
 * and a certificate it signed, made with openssl). Both are readable by this user only: whoever
 * reads a key may use the pool.
 */
public final class LocalSecrets {
  private static final Set<PosixFilePermission> PRIVATE_DIR =
      PosixFilePermissions.fromString("rwx------");
  private static final Set<PosixFilePermission> PRIVATE_FILE =
      PosixFilePermissions.fromString("rw-------");

  private LocalSecrets() {}

  /**
   * A new keys folder: 0700, its files 0600, created so (never readable by others, not even for a
   * moment).
   */
  public static Path keys() {
    try {
      Path dir =
          Files.createTempDirectory(
              "kvpool-keys-", PosixFilePermissions.asFileAttribute(PRIVATE_DIR));
      Files.setPosixFilePermissions(dir, PRIVATE_DIR); // exactly these, whatever the umask
      SecureRandom random = new SecureRandom();
      for (String name : List.of("cluster-key", "client-key", "admin-token")) {
        byte[] bytes = new byte[32];
        random.nextBytes(bytes);
        Path file =
            Files.createFile(dir.resolve(name), PosixFilePermissions.asFileAttribute(PRIVATE_FILE));
        Files.setPosixFilePermissions(file, PRIVATE_FILE);
        Files.writeString(file, Base64.getUrlEncoder().withoutPadding().encodeToString(bytes));
      }
      return dir;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** A new TLS folder: ca.crt, tls.crt and tls.key (PKCS#8), from openssl. */
  public static Path tls() {
    try {
      Path dir =
          Files.createTempDirectory(
              "kvpool-tls-", PosixFilePermissions.asFileAttribute(PRIVATE_DIR));
      Files.setPosixFilePermissions(dir, PRIVATE_DIR);
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
          "30",
          "-subj",
          "/CN=kvpool-local-ca",
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
          "/CN=kvpool-local",
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
          "30",
          "-out",
          "tls.crt");
      for (String key : List.of("ca.key", "tls.key")) {
        Files.setPosixFilePermissions(dir.resolve(key), PRIVATE_FILE);
      }
      return dir;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static void openssl(Path dir, String... args) throws IOException {
    List<String> command = new ArrayList<>(List.of("openssl"));
    command.addAll(List.of(args));
    Process p;
    try {
      p = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true).start();
    } catch (IOException e) {
      throw new IOException("TLS for a local pool needs openssl on the PATH: " + e.getMessage(), e);
    }
    String output = new String(p.getInputStream().readAllBytes());
    try {
      if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
        throw new IOException("openssl " + String.join(" ", args) + " failed: " + output.strip());
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while making TLS certificates", e);
    }
  }
}
