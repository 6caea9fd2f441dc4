package io.kvpool.storage;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * {@link PausedReaderTierMoveTest} against a node whose segments are memory files on tmpfs with
 * sendfile asked for: a node with a disk tier still copies its replies (a displaced replica is read
 * for its spill after it left the inventory, data-plane/README.md "Zero-copy gets"), and a reader
 * stalled or paused across the move never gets another object's bytes there either.
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
    Folders.delete(memoryDir);
  }
}
