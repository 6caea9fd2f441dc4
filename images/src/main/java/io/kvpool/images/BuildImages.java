package io.kvpool.images;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;

/**
 * Writes the data-plane and operator images as tarballs (the layout {@code docker save} writes),
 * without a Docker daemon or a registry, the data-plane image under the release tags of upgrade
 * tests ({@link ReleaseTags}), plus {@value #INDEX} naming them. Load them with {@code ctr -n
 * k8s.io images import FILE} (what e2e/cluster/import-images.sh does) or {@code docker load -i
 * FILE}.
 *
 * <p>The build runs it at package time: {@code BuildImages --data-plane-jar J --data-plane-lib DIR
 * --operator-app DIR --output DIR --cache DIR}.
 */
public final class BuildImages {
  static final String INDEX = "images.properties";

  private BuildImages() {}

  public static void main(String[] args) throws Exception {
    Map<String, String> options = parse(args);
    Path dataPlaneJar = Path.of(required(options, "data-plane-jar"));
    Path dataPlaneLib = Path.of(required(options, "data-plane-lib"));
    Path operatorApp = Path.of(required(options, "operator-app"));
    Path output = Path.of(required(options, "output"));
    Path cache = Path.of(required(options, "cache"));
    build(dataPlaneJar, dataPlaneLib, operatorApp, output, cache, Log.console());
  }

  static List<ImageWriter.Written> build(
      Path dataPlaneJar, Path dataPlaneLib, Path operatorApp, Path output, Path cache, Log log)
      throws Exception {
    long started = System.nanoTime();
    List<Path> jars = new ArrayList<>(List.of(existing(dataPlaneJar)));
    try (Stream<Path> lib = Files.list(existing(dataPlaneLib))) {
      lib.filter(p -> p.toString().endsWith(".jar")).sorted().forEach(jars::add);
    }
    existing(operatorApp.resolve("quarkus-run.jar"));
    Files.createDirectories(cache);
    List<Path> natives = KvpoolImages.extractNativeLibraries(jars, output.resolve("native"));
    RuntimeBase base = RuntimeBase.prepare(cache, natives, log);
    var baseLayer = ImageWriter.baseLayer(base);
    ImageWriter writer = new ImageWriter(cache, log);

    List<ImageWriter.Written> written = new ArrayList<>();
    written.add(
        writer.write(
            KvpoolImages.dataPlane(baseLayer, jars, natives),
            KvpoolImages.dataPlaneReference(),
            output.resolve(tarballName(KvpoolImages.dataPlaneReference()))));
    written.add(
        writer.write(
            KvpoolImages.operator(baseLayer, operatorApp),
            KvpoolImages.operatorReference(),
            output.resolve(tarballName(KvpoolImages.operatorReference()))));
    for (ImageWriter.Written w : written) {
      log.info(
          String.format(
              Locale.ROOT,
              "%s -> %s (%.1f MB, image id %s) in %.1f s",
              w.reference(),
              w.tarball(),
              w.bytes() / 1e6,
              w.imageId(),
              w.took().toMillis() / 1000.0));
    }
    long tagging = System.nanoTime();
    ReleaseTags.Written releases =
        ReleaseTags.write(
            written.get(0).tarball(), ReleaseTags.RELEASES, output.resolve(ReleaseTags.TARBALL));
    log.info(
        String.format(
            Locale.ROOT,
            "%s -> %s (%.1f MB, the data-plane layers once; image ids %s) in %.1f s",
            String.join(", ", releases.imageIds().keySet()),
            releases.tarball(),
            Files.size(releases.tarball()) / 1e6,
            releases.imageIds().values(),
            (System.nanoTime() - tagging) / 1e9));
    writeIndex(output, written, releases);
    log.info(
        String.format(
            Locale.ROOT, "images written in %.1f s", (System.nanoTime() - started) / 1e9));
    return written;
  }

  /** {@code kvpool/data-plane:0.2.0} is written as {@code kvpool-data-plane-0.2.0.tar}. */
  static String tarballName(String reference) {
    return reference.replace('/', '-').replace(':', '-') + ".tar";
  }

  /**
   * {@code data-plane.image}, {@code data-plane.tarball}, {@code operator.image}, ..., and the
   * release tags of the data-plane image ({@code data-plane-releases.images}, comma-separated, and
   * {@code data-plane-releases.tarball}) for the e2e suite.
   */
  private static void writeIndex(
      Path output, List<ImageWriter.Written> written, ReleaseTags.Written releases)
      throws IOException {
    StringBuilder index = new StringBuilder("# Written by io.kvpool.images.BuildImages\n");
    index.append("release=").append(KvpoolImages.release()).append('\n');
    for (ImageWriter.Written w : written) {
      String key =
          w.reference().substring(w.reference().indexOf('/') + 1, w.reference().indexOf(':'));
      index.append(key).append(".image=").append(w.reference()).append('\n');
      index.append(key).append(".tarball=").append(w.tarball().getFileName()).append('\n');
    }
    index
        .append("data-plane-releases.images=")
        .append(String.join(",", releases.imageIds().keySet()))
        .append('\n');
    index
        .append("data-plane-releases.tarball=")
        .append(releases.tarball().getFileName())
        .append('\n');
    Files.writeString(output.resolve(INDEX), index.toString());
  }

  private static Map<String, String> parse(String[] args) {
    Map<String, String> options = new LinkedHashMap<>();
    for (int i = 0; i < args.length; i++) {
      if (!args[i].startsWith("--") || i + 1 >= args.length) {
        throw new IllegalArgumentException(
            "expected --name value pairs, got " + String.join(" ", args));
      }
      options.put(args[i].substring(2), args[++i]);
    }
    return options;
  }

  private static String required(Map<String, String> options, String name) {
    String value = options.get(name);
    if (value == null || value.isBlank()) {
      throw new IllegalArgumentException("missing --" + name);
    }
    return value;
  }

  private static Path existing(Path path) {
    if (!Files.exists(path)) {
      throw new IllegalStateException(
          path
              + " does not exist: package the data plane and the operator first "
              + "(./mvnw -pl images -am package)");
    }
    return path;
  }
}
