package io.kvpool.storage;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/** Temporary folders of the tests here (tiers, memory files): removed with what they hold. */
final class Folders {
  private Folders() {}

  /** Deletes {@code root} and everything under it. */
  static void delete(Path root) throws IOException {
    try (Stream<Path> files = Files.walk(root)) {
      for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }
}
