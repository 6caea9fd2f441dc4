package io.kvpool.images;

import com.google.cloud.tools.jib.api.Containerizer;
import com.google.cloud.tools.jib.api.JibContainer;
import com.google.cloud.tools.jib.api.JibContainerBuilder;
import com.google.cloud.tools.jib.api.LogEvent;
import com.google.cloud.tools.jib.api.TarImage;
import com.google.cloud.tools.jib.api.buildplan.AbsoluteUnixPath;
import com.google.cloud.tools.jib.api.buildplan.FileEntriesLayer;
import com.google.cloud.tools.jib.api.buildplan.FileEntry;
import com.google.cloud.tools.jib.api.buildplan.FilePermissions;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;

/**
 * Turns file sets into Jib layers and a container build into a tarball that ctr and docker load
 * accept.
 */
final class ImageWriter {
  /**
   * Every file gets this time, so the same inputs give the same layer digests (Jib's own default).
   */
  static final Instant FILE_TIME = Instant.ofEpochSecond(1);

  static final FilePermissions EXECUTABLE = FilePermissions.fromOctalString("755");
  static final FilePermissions READ_ONLY = FilePermissions.fromOctalString("644");
  static final FilePermissions FOLDER = FilePermissions.fromOctalString("755");
  static final String ROOT = "0:0";

  private final Path cacheDir;
  private final Log log;

  ImageWriter(Path cacheDir, Log log) {
    this.cacheDir = cacheDir;
    this.log = log;
  }

  /** A tarball written: its image reference, file, size and image id. */
  record Written(String reference, Path tarball, long bytes, String imageId, Duration took) {}

  /**
   * The base root filesystem as one layer, owned by root and read-only for everyone else, except
   * /tmp (writable by any user; Jib cannot set the sticky bit) and the non-root user's home.
   */
  static FileEntriesLayer baseLayer(RuntimeBase base) throws IOException {
    FileEntriesLayer.Builder layer = FileEntriesLayer.builder().setName("runtime");
    String owner = RuntimeBase.USER_ID + ":" + RuntimeBase.USER_ID;
    for (Path relative : base.entries()) {
      Path source = base.root().resolve(relative);
      AbsoluteUnixPath target = AbsoluteUnixPath.get("/" + relative.toString().replace('\\', '/'));
      if (target.toString().equals("/tmp")) {
        layer.addEntry(
            new FileEntry(source, target, FilePermissions.fromOctalString("777"), FILE_TIME, ROOT));
      } else if (target.toString().equals(RuntimeBase.USER_HOME)) {
        layer.addEntry(
            new FileEntry(
                source, target, FilePermissions.fromOctalString("700"), FILE_TIME, owner));
      } else if (Files.isDirectory(source)) {
        layer.addEntry(new FileEntry(source, target, FOLDER, FILE_TIME, ROOT));
      } else {
        layer.addEntry(
            new FileEntry(
                source,
                target,
                RuntimeBase.isExecutable(source) ? EXECUTABLE : READ_ONLY,
                FILE_TIME,
                ROOT));
      }
    }
    return layer.build();
  }

  /**
   * A layer of files, each source to its absolute target path, read-only (or executable) for all,
   * owned by root.
   */
  static FileEntriesLayer layer(String name, Map<Path, String> files, FilePermissions permissions) {
    FileEntriesLayer.Builder layer = FileEntriesLayer.builder().setName(name);
    files.forEach(
        (source, target) ->
            layer.addEntry(
                new FileEntry(source, AbsoluteUnixPath.get(target), permissions, FILE_TIME, ROOT)));
    return layer.build();
  }

  /**
   * Writes the image as {@code tarball}, named {@code reference}; layers already built are reused
   * from the cache.
   */
  Written write(JibContainerBuilder image, String reference, Path tarball) throws Exception {
    long started = System.nanoTime();
    Files.createDirectories(tarball.getParent());
    Containerizer containerizer =
        Containerizer.to(TarImage.at(tarball).named(reference))
            .setApplicationLayersCache(cacheDir.resolve("jib-layers"))
            .setBaseImageLayersCache(cacheDir.resolve("jib-base-layers"))
            .setOfflineMode(true)
            .setToolName("kvpool-images")
            .addEventHandler(
                LogEvent.class,
                e -> {
                  if (e.getLevel() == LogEvent.Level.ERROR || e.getLevel() == LogEvent.Level.WARN) {
                    log.info("jib " + e.getLevel() + ": " + e.getMessage());
                  }
                });
    JibContainer container = image.containerize(containerizer);
    Duration took = Duration.ofNanos(System.nanoTime() - started);
    return new Written(
        reference, tarball, Files.size(tarball), container.getImageId().toString(), took);
  }
}
