package io.kvpool.storage;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/**
 * {@link StalledReaderTest} against a node whose segments are memory files on tmpfs, so that its
 * replies go by sendfile: the pages a stalled reply left queued on the reader's connection must
 * keep the old object's bytes when the range is written again (they are replaced, not reused).
 */
class StalledReaderFromFilesTest extends StalledReaderTest {
  private Path memoryDir;

  @Override
  StorageConfig node(StorageConfig local) {
    try {
      memoryDir = Files.createTempDirectory(Path.of("/dev/shm"), "kvpool-stalled-");
    } catch (IOException e) {
      throw new IllegalStateException("cannot create a folder on /dev/shm", e);
    }
    return local
        .withMemoryDir(memoryDir)
        .withSegmentUse(new StorageConfig.SegmentUse(true, ReadServing.SENDFILE));
  }

  @Override
  int stalledRepliesFromFiles() {
    return 1;
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
