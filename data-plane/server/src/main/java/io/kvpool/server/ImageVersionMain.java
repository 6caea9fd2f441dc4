package io.kvpool.server;

import io.kvpool.admin.AdminJson;
import io.kvpool.admin.ImageVersion;
import io.kvpool.common.VersionInfo;
import io.kvpool.storage.InventoryFile;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Prints what this image declares ({@link ImageVersion} as one JSON line: release, wire protocol,
 * inventory format) and writes the same to the container's termination message file ({@value
 * #TERMINATION_LOG}, or the path given as the only argument) when it exists, where the operator's
 * version check reads it from the pod's status.
 *
 * <p>Its name, {@code io.kvpool.server.ImageVersionMain}, is a contract across releases: an
 * operator runs it in images of other releases, older ones included, before it rolls a pool to
 * them. It keeps this package to itself for that reason; the servers' parts live in {@code
 * io.kvpool.rpc}, {@code io.kvpool.security} and {@code io.kvpool.process}.
 */
public final class ImageVersionMain {
  public static final String TERMINATION_LOG = "/dev/termination-log";

  private ImageVersionMain() {}

  public static void main(String[] args) throws IOException {
    String json = AdminJson.write(describe());
    System.out.println(json);
    Path log = Path.of(args.length > 0 ? args[0] : TERMINATION_LOG);
    if (Files.isWritable(log)) {
      Files.writeString(log, json, StandardCharsets.UTF_8);
    }
  }

  public static ImageVersion describe() {
    return new ImageVersion(
        AdminJson.API_VERSION,
        VersionInfo.CURRENT.release(),
        VersionInfo.CURRENT.protocol(),
        InventoryFile.FORMAT);
  }
}
