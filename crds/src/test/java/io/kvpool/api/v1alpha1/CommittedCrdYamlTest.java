package io.kvpool.api.v1alpha1;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.HasMetadata;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The CRD YAML committed under {@code crds/} and {@code helm/kvpool/crds/} must be exactly what
 * this build generates from the Java types (with printer columns in declared order), so users, the
 * chart and the API-server tests see the schema the operator is compiled against. {@code
 * -Dkvpool.crds.write=true} rewrites both copies instead of comparing.
 */
class CommittedCrdYamlTest {

  static final String REFRESH_COMMAND = "crds/refresh-committed-yaml.sh";
  private static final List<Class<? extends HasMetadata>> KINDS =
      List.of(KvCachePool.class, TransferEngine.class);

  private final Path generatedDir = Path.of(property("kvpool.crds.generated"));
  private final Path moduleDir = Path.of(property("kvpool.crds.module"));
  private final List<Path> committedDirs =
      List.of(moduleDir, moduleDir.resolve("../helm/kvpool/crds").normalize());
  private final boolean write = Boolean.getBoolean("kvpool.crds.write");

  @Test
  void committedCopiesMatchTheGeneratedCrds() throws IOException {
    for (Class<? extends HasMetadata> kind : KINDS) {
      String expected =
          PrinterColumnOrder.apply(Files.readString(generatedDir.resolve(fileName(kind))), kind);
      for (Path dir : committedDirs) {
        Path committed = dir.resolve(fileName(kind));
        if (write) {
          Files.createDirectories(dir);
          Files.writeString(committed, expected);
        } else {
          assertThat(Files.exists(committed) ? Files.readString(committed) : "<missing>")
              .as(
                  "%s is out of date with the Java types in %s. Refresh both committed copies with `%s`"
                      + " and commit them.",
                  committed, kind.getPackageName(), REFRESH_COMMAND)
              .isEqualTo(expected);
        }
      }
    }
  }

  @Test
  void everyGeneratedCrdIsCommittedAndNothingElse() throws IOException {
    List<String> expected = KINDS.stream().map(CommittedCrdYamlTest::fileName).sorted().toList();
    assertThat(crdFiles(generatedDir))
        .as(
            "CRDs generated into %s; add a new kind to %s.KINDS",
            generatedDir, getClass().getSimpleName())
        .isEqualTo(expected);
    for (Path dir : committedDirs) {
      assertThat(crdFiles(dir))
          .as("CRD files in %s: remove stale ones and refresh with `%s`", dir, REFRESH_COMMAND)
          .isEqualTo(expected);
    }
  }

  /** The generator's file name: {@code <plural>.<group>-v1.yml}. */
  static String fileName(Class<? extends HasMetadata> kind) {
    return HasMetadata.getFullResourceName(kind) + "-v1.yml";
  }

  private static List<String> crdFiles(Path dir) throws IOException {
    if (!Files.isDirectory(dir)) {
      return List.of();
    }
    try (Stream<Path> files = Files.list(dir)) {
      return files
          .map(file -> file.getFileName().toString())
          .filter(name -> name.endsWith(".yml"))
          .sorted()
          .toList();
    }
  }

  private static String property(String name) {
    String value = System.getProperty(name);
    assertThat(value)
        .as("system property %s (set by crds/pom.xml); run through Maven", name)
        .isNotBlank();
    return value;
  }
}
