package io.kvpool.bench.chaos;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * One sample of a pool process's memory and descriptors from {@code /proc/<pid>}: VmRSS and its
 * parts (RssAnon, RssFile, RssShmem, KiB) and the open file descriptors. A storage node's values
 * live in its memory files on tmpfs, mapped shared (RssShmem), and fill as values arrive, so what
 * can leak is the rest: {@link #privateKiB()}, anonymous memory (heap, direct buffers, malloc) and
 * mapped files (code).
 */
public record ProcessResources(long rssKiB, long anonKiB, long fileKiB, long shmemKiB, long fds) {

  /** VmRSS without the shared memory of the node's value files. */
  public long privateKiB() {
    return anonKiB + fileKiB;
  }

  /** The process's figures now; empty when it has exited (or /proc is not readable). */
  public static Optional<ProcessResources> read(long pid) {
    Path proc = Path.of("/proc", Long.toString(pid));
    try {
      List<String> status = Files.readAllLines(proc.resolve("status"));
      long fds = 0;
      try (DirectoryStream<Path> dir = Files.newDirectoryStream(proc.resolve("fd"))) {
        for (Path ignored : dir) {
          fds++;
        }
      }
      return Optional.of(
          new ProcessResources(
              field(status, "VmRSS:"),
              field(status, "RssAnon:"),
              field(status, "RssFile:"),
              field(status, "RssShmem:"),
              fds));
    } catch (IOException | RuntimeException e) {
      return Optional.empty();
    }
  }

  /**
   * The KiB figure of a {@code /proc/<pid>/status} line such as {@code VmRSS: 123456 kB}; 0 when
   * absent.
   */
  static long field(List<String> status, String name) {
    for (String line : status) {
      if (line.startsWith(name)) {
        return Long.parseLong(line.substring(name.length()).replaceAll("[^0-9]", ""));
      }
    }
    return 0;
  }
}
