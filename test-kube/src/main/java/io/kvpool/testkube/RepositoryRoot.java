package io.kvpool.testkube;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The kvpool checkout the tests run in. Maven runs each module's tests with the module folder as
 * the working directory, so the root is found by walking up to the folder that holds the Maven
 * wrapper's {@code .mvn/} directory.
 */
public final class RepositoryRoot {

  private RepositoryRoot() {}

  public static Path find() {
    Path start = Path.of("").toAbsolutePath();
    for (Path dir = start; dir != null; dir = dir.getParent()) {
      if (Files.isDirectory(dir.resolve(".mvn"))) {
        return dir;
      }
    }
    throw new KubeTestSetupException(
        "Cannot find the kvpool repository root: no folder holding '.mvn/' above "
            + start
            + ". Run the tests from inside the kvpool checkout (e.g. ./mvnw -pl test-kube verify).");
  }
}
