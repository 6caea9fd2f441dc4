package io.kvpool.storage;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/**
 * {@link PausedReaderTierMoveTest} against a node whose segments are memory files on tmpfs, so that
 * its large replies go by sendfile: the pages a stalled reply left queued must keep the victim's
 * bytes when its object moves to disk and the range is written again.
 */
class PausedReaderTierMoveFromFilesTest extends PausedReaderTierMoveTest {
  private Path memoryDir;

  @Override
  StorageConfig node(StorageConfig local) throws IOException {
    memoryDir = Files.createTempDirectory(Path.of("/dev/shm"), "kvpool-paused-");
    return local
        .withMemoryDir(memoryDir)
        .withSegmentUse(new StorageConfig.SegmentUse(true, ReadServing.SENDFILE));
  }

  @Override
  void stopped() throws IOException {
    try (Stream<Path> files = Files.walk(memoryDir)) {
      for (Path f : files.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(f);
      }
    }
  }
}
