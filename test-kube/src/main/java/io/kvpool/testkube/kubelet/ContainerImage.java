package io.kvpool.testkube.kubelet;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What the test kubelet runs for an image reference: folders of this machine mounted where the
 * image has them (the data-plane image keeps its jars in {@code /opt/kvpool/lib}) and the
 * environment the image declares. The program itself (e.g. {@code java}) comes from this machine,
 * found through the image's {@code PATH}.
 *
 * @param paths image path → folder on this machine, bind-mounted read-only into the pod
 * @param env the image's environment (a container's own env overrides it)
 */
public record ContainerImage(Map<String, Path> paths, Map<String, String> env) {
  public ContainerImage {
    paths = Map.copyOf(paths);
    env = Map.copyOf(env);
  }

  /**
   * A Java image: {@code java} of the JVM running the tests on its {@code PATH}, {@code JAVA_HOME}
   * set, plus {@code paths} and {@code env}.
   */
  public static ContainerImage java(Map<String, Path> paths, Map<String, String> env) {
    Path javaHome = Path.of(System.getProperty("java.home"));
    Map<String, String> all = new LinkedHashMap<>();
    all.put("JAVA_HOME", javaHome.toString());
    all.put("PATH", javaHome.resolve("bin") + ":/usr/local/bin:/usr/bin:/bin");
    all.putAll(env);
    return new ContainerImage(paths, all);
  }
}
