package io.kvpool.e2e.cluster;

import java.io.IOException;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Properties;

/**
 * The images the images/ module wrote ({@code images.properties} next to the tarballs): names and
 * files, including the data-plane image under the release tags of the upgrade scenarios ({@code
 * kvpool/data-plane:1.0.0}, ...).
 */
public record E2eImages(
    String release,
    String dataPlane,
    String operator,
    List<String> releaseTags,
    List<Path> tarballs) {

  public static E2eImages read(Path dir) {
    Path index = dir.resolve("images.properties");
    if (!Files.isRegularFile(index)) {
      throw new IllegalStateException(
          index + " is missing: build the images first (./mvnw -pl images -am package)");
    }
    Properties p = new Properties();
    try (Reader reader = Files.newBufferedReader(index)) {
      p.load(reader);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    List<Path> tarballs =
        new ArrayList<>(
            List.of(
                dir.resolve(p.getProperty("data-plane.tarball")),
                dir.resolve(p.getProperty("operator.tarball"))));
    String tags = p.getProperty("data-plane-releases.images", "");
    if (p.getProperty("data-plane-releases.tarball") != null) {
      tarballs.add(dir.resolve(p.getProperty("data-plane-releases.tarball")));
    }
    return new E2eImages(
        p.getProperty("release"),
        p.getProperty("data-plane.image"),
        p.getProperty("operator.image"),
        tags.isBlank() ? List.of() : Arrays.stream(tags.split(",")).map(String::strip).toList(),
        List.copyOf(tarballs));
  }

  /** The operator image's tag (what the chart's image.tag takes). */
  public String operatorTag() {
    return operator.substring(operator.lastIndexOf(':') + 1);
  }

  public String operatorRepository() {
    return operator.substring(0, operator.lastIndexOf(':'));
  }

  /** Whether the data-plane image was also written as {@code kvpool/data-plane:<release>}. */
  public boolean hasReleaseTag(String release) {
    return releaseTags.stream().anyMatch(t -> t.endsWith(":" + release));
  }
}
