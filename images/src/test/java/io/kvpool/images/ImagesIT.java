package io.kvpool.images;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kvpool.common.VersionInfo;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.zip.GZIPInputStream;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The tarballs the build wrote: the layout {@code docker save} writes, names, labels, user,
 * environment, the files and their owners and modes, and JVMs started from the image's own files
 * (its JRE, jars and native libraries, with its JAVA_TOOL_OPTIONS), which catches a missing JDK
 * module or library early. The real runtime check is the cluster suite, where containerd runs them.
 */
class ImagesIT {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static Path dir;

  @BeforeAll
  static void images() {
    dir = Path.of(System.getProperty("kvpool.images.dir", "target/images"));
  }

  /** Name → entry of every file in an image, top layer winning, plus the manifest and config. */
  record Image(
      JsonNode manifest,
      JsonNode config,
      List<String> layers,
      Map<String, TarArchiveEntry> files) {}

  static Image read(Path tarball) throws IOException {
    Map<String, byte[]> blobs = new HashMap<>();
    try (TarArchiveInputStream tar = new TarArchiveInputStream(Files.newInputStream(tarball))) {
      for (TarArchiveEntry e; (e = tar.getNextEntry()) != null; ) {
        if (e.isFile()) {
          blobs.put(e.getName(), tar.readAllBytes());
        }
      }
    }
    JsonNode manifest = JSON.readTree(blobs.get("manifest.json")).get(0);
    JsonNode config = JSON.readTree(blobs.get(manifest.get("Config").asText()));
    List<String> layers = new ArrayList<>();
    Map<String, TarArchiveEntry> files = new HashMap<>();
    for (JsonNode layer : manifest.get("Layers")) {
      layers.add(layer.asText());
      try (InputStream in =
              new GZIPInputStream(new java.io.ByteArrayInputStream(blobs.get(layer.asText())));
          TarArchiveInputStream tar = new TarArchiveInputStream(in)) {
        for (TarArchiveEntry e; (e = tar.getNextEntry()) != null; ) {
          files.put("/" + e.getName().replaceFirst("^\\./", "").replaceFirst("/$", ""), e);
        }
      }
    }
    return new Image(manifest, config, layers, files);
  }

  private static Path tarball(String reference) {
    return dir.resolve(BuildImages.tarballName(reference));
  }

  @Test
  void dataPlaneImageIsNamedLabelledAndRunsAsNonRoot() throws IOException {
    Image image = read(tarball(KvpoolImages.dataPlaneReference()));
    assertThat(image.manifest().get("RepoTags").get(0).asText())
        .isEqualTo("kvpool/data-plane:" + VersionInfo.CURRENT.release());
    JsonNode config = image.config().get("config");
    assertThat(config.get("User").asText()).isEqualTo("10001:10001");
    assertThat(config.get("Labels").get("io.kvpool.release").asText())
        .isEqualTo(VersionInfo.CURRENT.release());
    assertThat(config.get("Labels").get("io.kvpool.protocol").asText())
        .isEqualTo(VersionInfo.CURRENT.protocol());
    assertThat(config.get("Env").toString())
        .contains("PATH=/opt/java/bin:", "-Djna.boot.library.path=/opt/kvpool/native");

    Map<String, TarArchiveEntry> files = image.files();
    assertThat(files)
        .containsKeys(
            "/opt/java/bin/java",
            "/opt/kvpool/native/libkvpool.so",
            "/opt/kvpool/native/libjnidispatch.so",
            "/lib64/ld-linux-x86-64.so.2",
            "/lib/x86_64-linux-gnu/libc.so.6",
            "/etc/passwd",
            "/tmp",
            "/home/kvpool");
    assertThat(files.keySet())
        .anyMatch(f -> f.matches("/opt/kvpool/lib/kvpool-server-.*\\.jar"))
        .anyMatch(f -> f.matches("/opt/kvpool/lib/kvpool-cli-.*\\.jar"));
    assertThat(mode(files.get("/opt/java/bin/java"))).isEqualTo("rwxr-xr-x");
    assertThat(mode(files.get("/opt/kvpool/native/libkvpool.so"))).isEqualTo("rwxr-xr-x");
    assertThat(mode(files.get("/tmp"))).isEqualTo("rwxrwxrwx");
    assertThat(files.values())
        .filteredOn(e -> !e.getName().contains("home/kvpool"))
        .allMatch(e -> e.getLongUserId() == 0 && e.getLongGroupId() == 0, "owned by root");
    assertThat(files.get("/home/kvpool").getLongUserId()).isEqualTo(10001);
  }

  @Test
  void operatorImageRunsQuarkusAsNonRootAndSharesTheBaseLayer() throws IOException {
    Image operator = read(tarball(KvpoolImages.operatorReference()));
    Image dataPlane = read(tarball(KvpoolImages.dataPlaneReference()));
    assertThat(operator.manifest().get("RepoTags").get(0).asText())
        .isEqualTo("kvpool/operator:" + VersionInfo.CURRENT.release());
    JsonNode config = operator.config().get("config");
    assertThat(config.get("User").asText()).isEqualTo("10001:10001");
    assertThat(config.get("Entrypoint").toString())
        .contains("/opt/kvpool/operator/quarkus-run.jar");
    assertThat(config.get("Labels").get("io.kvpool.release").asText())
        .isEqualTo(VersionInfo.CURRENT.release());
    assertThat(operator.files())
        .containsKeys("/opt/kvpool/operator/quarkus-run.jar", "/opt/java/lib/modules");
    assertThat(operator.layers().get(0))
        .as("the runtime layer both images start from")
        .isEqualTo(dataPlane.layers().get(0));
  }

  @Test
  void theImagesJvmPrintsBothVersionsAndLoadsLibkvpool(@TempDir Path root) throws Exception {
    extract(tarball(KvpoolImages.dataPlaneReference()), root);
    Path native_ = root.resolve("opt/kvpool/native");
    String classpath = root.resolve("opt/kvpool/lib") + "/*";
    String expected =
        "kvpool "
            + VersionInfo.CURRENT.release()
            + " (protocol "
            + VersionInfo.CURRENT.protocol()
            + ")";
    for (String main :
        List.of("io.kvpool.master.MasterMain", "io.kvpool.storage.StorageNodeMain")) {
      assertThat(java(root, native_, "-cp", classpath, main, "--version")).contains(expected);
    }
    String probeClasses =
        Path.of(NativeLoadProbe.class.getProtectionDomain().getCodeSource().getLocation().toURI())
            .toString();
    assertThat(
            java(
                root,
                native_,
                "-cp",
                classpath + ":" + probeClasses,
                NativeLoadProbe.class.getName()))
        .contains("crc32c=e3069283");
  }

  /**
   * {@code kvpool demo} on the image's JRE: a master and three storage nodes started as processes
   * of that JRE, serving a client over TCP. A JDK module the servers need only once a peer connects
   * (jdk.net for the TCP keep-alive options) is missing from no {@code --version} run; here the
   * demo would time out.
   */
  @Test
  void theImagesJreRunsAPoolThatServesPutsAndGets(@TempDir Path root) throws Exception {
    extract(tarball(KvpoolImages.dataPlaneReference()), root);
    Path native_ = root.resolve("opt/kvpool/native");
    String classpath = root.resolve("opt/kvpool/lib") + "/*";
    assertThat(java(root, native_, 300, "-cp", classpath, "io.kvpool.cli.KvPoolCli", "demo"))
        .contains("demo finished: all values read back byte-exact");
  }

  /**
   * The data-plane image under the release tags of upgrade tests ({@code kvpool/data-plane:1.0.0},
   * {@code 1.1.0}, {@code 2.0.0}, in one tarball): the same layers as the data-plane image, a
   * config that differs only by the release it declares (KVPOOL_BUILD_RELEASE and the release
   * labels), and a JVM started with that config's environment reports that release, through {@code
   * --version} and through what the operator's image check reads.
   */
  @Test
  void theReleaseTagsAreTheDataPlaneImageDeclaringTheirRelease(@TempDir Path root)
      throws Exception {
    Path releases = dir.resolve(ReleaseTags.TARBALL);
    Image dataPlane = read(tarball(KvpoolImages.dataPlaneReference()));
    Map<String, byte[]> blobs = new HashMap<>();
    try (TarArchiveInputStream tar = new TarArchiveInputStream(Files.newInputStream(releases))) {
      for (TarArchiveEntry e; (e = tar.getNextEntry()) != null; ) {
        assertThat(blobs).as("each blob stored once").doesNotContainKey(e.getName());
        blobs.put(e.getName(), e.getName().endsWith(".json") ? tar.readAllBytes() : new byte[0]);
      }
    }
    JsonNode manifests = JSON.readTree(blobs.get("manifest.json"));
    List<String> tags = new ArrayList<>();
    manifests.forEach(m -> tags.add(m.get("RepoTags").get(0).asText()));
    assertThat(tags)
        .containsExactly(
            "kvpool/data-plane:1.0.0", "kvpool/data-plane:1.1.0", "kvpool/data-plane:2.0.0");
    assertThat(Files.size(releases))
        .as("the layers once, not once per tag")
        .isLessThan(Files.size(tarball(KvpoolImages.dataPlaneReference())) + 1_000_000);

    extract(tarball(KvpoolImages.dataPlaneReference()), root);
    Path native_ = root.resolve("opt/kvpool/native");
    String classpath = root.resolve("opt/kvpool/lib") + "/*";
    for (JsonNode manifest : manifests) {
      String release = manifest.get("RepoTags").get(0).asText().replaceAll(".*:", "");
      List<String> layers = new ArrayList<>();
      manifest.get("Layers").forEach(l -> layers.add(l.asText()));
      assertThat(layers)
          .as("%s: the data-plane image's layers", release)
          .isEqualTo(dataPlane.layers());
      assertThat(blobs).containsKeys(layers.toArray(String[]::new));

      JsonNode config = JSON.readTree(blobs.get(manifest.get("Config").asText()));
      JsonNode labels = config.at("/config/Labels");
      assertThat(labels.get("io.kvpool.release").asText()).isEqualTo(release);
      assertThat(labels.get("org.opencontainers.image.version").asText()).isEqualTo(release);
      assertThat(labels.get("io.kvpool.protocol").asText())
          .isEqualTo(VersionInfo.CURRENT.protocol());
      List<String> env = new ArrayList<>();
      config.at("/config/Env").forEach(v -> env.add(v.asText()));
      assertThat(env).contains(VersionInfo.RELEASE_ENV + "=" + release);
      List<String> baseEnv = new ArrayList<>();
      dataPlane.config().at("/config/Env").forEach(v -> baseEnv.add(v.asText()));
      assertThat(env.subList(0, env.size() - 1))
          .as("the data-plane image's other variables")
          .isEqualTo(baseEnv);
      com.fasterxml.jackson.databind.node.ObjectNode rest = config.deepCopy();
      com.fasterxml.jackson.databind.node.ObjectNode base = dataPlane.config().deepCopy();
      for (var c : List.of(rest, base)) {
        ((com.fasterxml.jackson.databind.node.ObjectNode) c.get("config"))
            .remove(List.of("Env", "Labels"));
      }
      assertThat(rest)
          .as("%s: nothing else differs from the data-plane image's config", release)
          .isEqualTo(base);

      Map<String, String> declared = Map.of(VersionInfo.RELEASE_ENV, release);
      assertThat(
              java(
                  root,
                  native_,
                  60,
                  declared,
                  "-cp",
                  classpath,
                  "io.kvpool.master.MasterMain",
                  "--version"))
          .contains("kvpool " + release + " (protocol " + VersionInfo.CURRENT.protocol() + ")");
      Path termination = root.resolve("termination-log-" + release);
      Files.createFile(termination);
      java(
          root,
          native_,
          60,
          declared,
          "-cp",
          classpath,
          "io.kvpool.server.ImageVersionMain",
          termination.toString());
      assertThat(Files.readString(termination))
          .as("what the operator's image check reads")
          .containsPattern(
              "\"release\"\\s*:\\s*\"" + java.util.regex.Pattern.quote(release) + "\"");
    }
  }

  /**
   * Runs the image's java from the extracted root with the image's JNA settings pointed at that
   * root.
   */
  private static String java(Path root, Path nativeDir, String... args) throws Exception {
    return java(root, nativeDir, 60, args);
  }

  private static String java(Path root, Path nativeDir, int timeoutSeconds, String... args)
      throws Exception {
    return java(root, nativeDir, timeoutSeconds, Map.of(), args);
  }

  private static String java(
      Path root, Path nativeDir, int timeoutSeconds, Map<String, String> env, String... args)
      throws Exception {
    List<String> command = new ArrayList<>(List.of(root.resolve("opt/java/bin/java").toString()));
    command.addAll(List.of(args));
    ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
    pb.environment().remove(VersionInfo.RELEASE_ENV);
    pb.environment().putAll(env);
    pb.environment()
        .put(
            "JAVA_TOOL_OPTIONS",
            "-Djna.boot.library.path="
                + nativeDir
                + " -Djna.library.path="
                + nativeDir
                + " -Djna.nounpack=true");
    Path output = Files.createTempFile("image-java", ".log");
    pb.redirectOutput(output.toFile());
    Process p = pb.start();
    boolean finished = p.waitFor(timeoutSeconds, TimeUnit.SECONDS);
    if (!finished) {
      p.descendants().forEach(ProcessHandle::destroyForcibly);
      p.destroyForcibly().waitFor();
    }
    String out = Files.readString(output, StandardCharsets.UTF_8);
    Files.delete(output);
    assertThat(finished)
        .as("%s finished within %d s; output:%n%s", command, timeoutSeconds, out)
        .isTrue();
    assertThat(p.exitValue()).as("%s exit code; output:%n%s", command, out).isZero();
    return out;
  }

  private static void extract(Path tarball, Path root) throws IOException {
    Image image = read(tarball);
    Map<String, byte[]> blobs = new HashMap<>();
    try (TarArchiveInputStream tar = new TarArchiveInputStream(Files.newInputStream(tarball))) {
      for (TarArchiveEntry e; (e = tar.getNextEntry()) != null; ) {
        if (image.layers().contains(e.getName())) {
          blobs.put(e.getName(), tar.readAllBytes());
        }
      }
    }
    for (String layer : image.layers()) {
      try (TarArchiveInputStream tar =
          new TarArchiveInputStream(
              new GZIPInputStream(new java.io.ByteArrayInputStream(blobs.get(layer))))) {
        for (TarArchiveEntry e; (e = tar.getNextEntry()) != null; ) {
          Path target = root.resolve(e.getName()).normalize();
          if (e.isDirectory()) {
            Files.createDirectories(target);
          } else {
            Files.createDirectories(target.getParent());
            Files.copy(tar, target, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
            Files.setPosixFilePermissions(target, PosixFilePermissions.fromString(mode(e)));
          }
        }
      }
    }
  }

  /** {@code rwxr-xr-x} and the like, from the entry's mode bits. */
  static String mode(TarArchiveEntry e) {
    String letters = "rwxrwxrwx";
    StringBuilder mode = new StringBuilder();
    for (int bit = 8; bit >= 0; bit--) {
      mode.append((e.getMode() & (1 << bit)) != 0 ? letters.charAt(8 - bit) : '-');
    }
    return mode.toString();
  }
}
