package io.kvpool.testkube.kubelet;

import io.kvpool.testkube.KubeTestSetupException;
import io.kvpool.testkube.RepositoryRoot;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * The data-plane image for the test kubelet, from this checkout's build: the jars of {@code
 * data-plane/cli/target} in {@code /opt/kvpool/lib} (where the image keeps them and the operator's
 * pods look for them), and the release the image declares ({@code KVPOOL_BUILD_RELEASE}), so two
 * tags of one build act as two releases. Its JVMs get the tests' {@code
 * KVPOOL_CHILD_EXTRA_JAVA_OPTS} as their {@code JAVA_TOOL_OPTIONS}: the suites' C1-only JIT (the
 * root pom), as for the pools {@code LocalPool} starts.
 */
public final class DataPlaneImage {
  private static Path libraryFolder;

  private DataPlaneImage() {}

  /** {@code kvpool/data-plane:<release>} → the image declaring {@code release}. */
  public static Map.Entry<String, ContainerImage> tagged(String release) {
    return Map.entry("kvpool/data-plane:" + release, declaring(release));
  }

  public static ContainerImage declaring(String release) {
    return declaring(release, Map.of());
  }

  /**
   * {@code kvpool/data-plane:<release>} → the image declaring {@code release} with {@code env}
   * besides (what a container's own env does not set): e.g. a setting that keeps its storage nodes
   * from starting, for a release whose image passes the version check but whose pods never become
   * ready.
   */
  public static Map.Entry<String, ContainerImage> tagged(String release, Map<String, String> env) {
    return Map.entry("kvpool/data-plane:" + release, declaring(release, env));
  }

  public static ContainerImage declaring(String release, Map<String, String> env) {
    Map<String, String> all = new java.util.LinkedHashMap<>(env);
    // the suite's flags for the data-plane JVMs it starts (LocalPool reads the same variable)
    String extraJvmOptions = System.getenv("KVPOOL_CHILD_EXTRA_JAVA_OPTS");
    if (extraJvmOptions != null && !extraJvmOptions.isBlank()) {
      all.putIfAbsent("JAVA_TOOL_OPTIONS", extraJvmOptions.strip());
    }
    all.put("KVPOOL_BUILD_RELEASE", release);
    return ContainerImage.java(Map.of("/opt/kvpool/lib", libraryFolder()), all);
  }

  /** One folder with the data-plane jar and its dependencies (made once per JVM). */
  private static synchronized Path libraryFolder() {
    if (libraryFolder == null) {
      libraryFolder = linkJars();
    }
    return libraryFolder;
  }

  private static Path linkJars() {
    Path target = RepositoryRoot.find().resolve("data-plane/cli/target");
    Path lib = target.resolve("lib");
    List<Path> jars;
    try (Stream<Path> files = Files.list(target)) {
      jars = files.filter(p -> p.getFileName().toString().matches("kvpool-cli-.*\\.jar")).toList();
    } catch (IOException e) {
      jars = List.of();
    }
    if (jars.isEmpty() || !Files.isDirectory(lib)) {
      throw new KubeTestSetupException(
          "no packaged data plane under "
              + target
              + " (kvpool-cli-*.jar and lib/);"
              + " build it first: ./mvnw -pl data-plane/cli -am package -DskipTests");
    }
    try {
      Path folder = Files.createTempDirectory("kvpool-image-lib-");
      // copies, not links: a pod's own mounts (its /tmp) may hide where a link points
      for (Path jar : jars) {
        Files.copy(jar, folder.resolve(jar.getFileName()));
      }
      try (Stream<Path> deps = Files.list(lib)) {
        for (Path dep : deps.toList()) {
          Files.copy(dep, folder.resolve(dep.getFileName()));
        }
      }
      return folder;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
