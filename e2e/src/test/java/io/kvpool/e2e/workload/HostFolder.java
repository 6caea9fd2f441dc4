package io.kvpool.e2e.workload;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/**
 * Gets a node folder ready for storage pods' memory files (warm restarts), run by the suite in a
 * short-lived root pod of the data-plane image that mounts the folder (the images have no shell):
 *
 * <pre>
 * HostFolder prepare UID DIR...   # empties each DIR (files of an earlier run would be adopted), hands it to UID
 * HostFolder clear DIR...         # empties each DIR (a pool's memory files outlive its pods)</pre>
 *
 * <p>{@code spec.storage.warmRestart.hostPath} must be writable by the storage pods' user;
 * Kubernetes creates a missing hostPath folder owned by root. One pod takes every folder of a
 * scenario: one JVM start instead of one per folder. It prints a line {@code WORKLOAD op=...
 * dir=... removed=N bytes=B owner=... mode=...} per folder, as {@link PoolWorkload} prints its
 * summary, the last one being the last folder's.
 */
public final class HostFolder {
  private HostFolder() {}

  public static void main(String[] args) throws IOException {
    boolean prepare = args.length > 0 && args[0].equals("prepare");
    int firstDir = prepare ? 2 : 1;
    if (args.length <= firstDir || !(prepare || args[0].equals("clear"))) {
      System.err.println("usage: HostFolder prepare UID DIR... | HostFolder clear DIR...");
      System.exit(2);
    }
    for (int i = firstDir; i < args.length; i++) {
      Path dir = Path.of(args[i]);
      long[] removed = clear(dir);
      if (prepare) {
        int uid = Integer.parseInt(args[1]);
        Files.setAttribute(dir, "unix:uid", uid);
        Files.setAttribute(dir, "unix:gid", uid);
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-x---"));
      }
      System.out.println(
          "WORKLOAD op="
              + args[0]
              + " dir="
              + dir
              + " removed="
              + removed[0]
              + " bytes="
              + removed[1]
              + " owner="
              + Files.getAttribute(dir, "unix:uid")
              + " mode="
              + PosixFilePermissions.toString(Files.getPosixFilePermissions(dir)));
    }
  }

  /**
   * Deletes everything inside {@code dir}, not {@code dir}; returns {files and folders removed,
   * bytes of files}.
   */
  static long[] clear(Path dir) throws IOException {
    long[] removed = new long[2];
    List<Path> inside;
    try (Stream<Path> walk = Files.walk(dir)) {
      inside = walk.filter(p -> !p.equals(dir)).sorted(Comparator.reverseOrder()).toList();
    }
    for (Path p : inside) {
      if (Files.isRegularFile(p)) {
        removed[1] += Files.size(p);
      }
      Files.delete(p);
      removed[0]++;
    }
    return removed;
  }
}
