package io.kvpool.images;

import com.google.cloud.tools.jib.api.Jib;
import com.google.cloud.tools.jib.api.JibContainerBuilder;
import com.google.cloud.tools.jib.api.buildplan.AbsoluteUnixPath;
import com.google.cloud.tools.jib.api.buildplan.FileEntriesLayer;
import com.google.cloud.tools.jib.api.buildplan.ImageFormat;
import com.google.cloud.tools.jib.api.buildplan.Port;
import io.kvpool.common.VersionInfo;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;

/**
 * What the two images hold and how they start.
 *
 * <ul>
 *   <li>{@code kvpool/data-plane:<release>}: the JRE, the data-plane jars in {@value #LIB} (the
 *       operator starts {@code java -cp /opt/kvpool/lib/* <main>}), libkvpool and JNA's dispatcher
 *       in {@value #NATIVE}, loaded from there without unpacking anything (so a read-only root
 *       filesystem works).
 *   <li>{@code kvpool/operator:<release>}: the JRE and the Quarkus application under {@value
 *       #OPERATOR}.
 * </ul>
 *
 * Both run as uid {@value RuntimeBase#USER_ID}, carry the release and protocol versions as labels,
 * and are layered so that a rebuild of kvpool's own code only rewrites a small top layer.
 */
final class KvpoolImages {
  static final String DATA_PLANE_REPOSITORY = "kvpool/data-plane";
  static final String OPERATOR_REPOSITORY = "kvpool/operator";
  static final String LIB = "/opt/kvpool/lib";
  static final String NATIVE = "/opt/kvpool/native";
  static final String OPERATOR = "/opt/kvpool/operator";
  static final String RELEASE_LABEL = "io.kvpool.release";
  static final String PROTOCOL_LABEL = "io.kvpool.protocol";

  /** Inside the kvpool-native jar, where JNA would find it on the class path. */
  static final String LIBKVPOOL_IN_JAR = "linux-x86-64/libkvpool.so";

  static final String JNIDISPATCH_IN_JAR = "com/sun/jna/linux-x86-64/libjnidispatch.so";

  private KvpoolImages() {}

  static String release() {
    return VersionInfo.CURRENT.release();
  }

  static String dataPlaneReference() {
    return DATA_PLANE_REPOSITORY + ":" + release();
  }

  static String operatorReference() {
    return OPERATOR_REPOSITORY + ":" + release();
  }

  /** libkvpool.so and libjnidispatch.so, taken out of the jars that ship them into {@code dir}. */
  static List<Path> extractNativeLibraries(List<Path> jars, Path dir) throws IOException {
    Path kvpool = extract(jars, "kvpool-native-", LIBKVPOOL_IN_JAR, dir.resolve("libkvpool.so"));
    Path jna = extract(jars, "jna-", JNIDISPATCH_IN_JAR, dir.resolve("libjnidispatch.so"));
    return List.of(kvpool, jna);
  }

  static JibContainerBuilder dataPlane(
      FileEntriesLayer base, List<Path> jars, List<Path> nativeLibraries) {
    Map<Path, String> dependencies = new TreeMap<>();
    Map<Path, String> kvpool = new TreeMap<>();
    for (Path jar : jars) {
      String name = jar.getFileName().toString();
      (name.startsWith("kvpool-") ? kvpool : dependencies).put(jar, LIB + "/" + name);
    }
    Map<Path, String> natives = new TreeMap<>();
    for (Path library : nativeLibraries) {
      natives.put(library, NATIVE + "/" + library.getFileName());
    }
    Map<String, String> env = commonEnvironment();
    // JNA loads its dispatcher and libkvpool from the image instead of unpacking copies into a temp
    // folder.
    env.put(
        "JAVA_TOOL_OPTIONS",
        "-Djna.boot.library.path="
            + NATIVE
            + " -Djna.library.path="
            + NATIVE
            + " -Djna.nounpack=true");
    return common(base)
        .addFileEntriesLayer(ImageWriter.layer("dependencies", dependencies, ImageWriter.READ_ONLY))
        .addFileEntriesLayer(ImageWriter.layer("kvpool-native", natives, ImageWriter.EXECUTABLE))
        .addFileEntriesLayer(ImageWriter.layer("kvpool", kvpool, ImageWriter.READ_ONLY))
        .setEnvironment(env)
        .setLabels(
            labels(
                "kvpool data plane",
                "kvpool master, storage node and CLI; the operator starts java -cp '"
                    + LIB
                    + "/*' MAIN"))
        // Without a command from the pod: print the versions (the operator always gives a command).
        .setProgramArguments("java", "-cp", LIB + "/*", "io.kvpool.master.MasterMain", "--version");
  }

  static JibContainerBuilder operator(FileEntriesLayer base, Path quarkusApp) throws IOException {
    Map<Path, String> dependencies = new TreeMap<>();
    Map<Path, String> application = new TreeMap<>();
    try (Stream<Path> files = Files.walk(quarkusApp)) {
      for (Path file : files.filter(Files::isRegularFile).toList()) {
        String relative = quarkusApp.relativize(file).toString();
        (relative.startsWith("lib/") ? dependencies : application)
            .put(file, OPERATOR + "/" + relative);
      }
    }
    Map<String, String> env = commonEnvironment();
    // Vert.x would unpack class-path resources into a cache under /tmp, which a read-only root
    // filesystem
    // refuses (the operator then exits at start-up); the operator serves no files from its class
    // path.
    env.put("QUARKUS_VERTX_CLASSPATH_RESOLVING", "false");
    return common(base)
        .addFileEntriesLayer(ImageWriter.layer("dependencies", dependencies, ImageWriter.READ_ONLY))
        .addFileEntriesLayer(ImageWriter.layer("operator", application, ImageWriter.READ_ONLY))
        .setEnvironment(env)
        .setLabels(labels("kvpool operator", "reconciles KvCachePool and TransferEngine resources"))
        .addExposedPort(Port.tcp(8080))
        .setEntrypoint(
            "java",
            "-XX:MaxRAMPercentage=70",
            "-XX:+ExitOnOutOfMemoryError",
            "-Djava.util.logging.manager=org.jboss.logmanager.LogManager",
            "-jar",
            OPERATOR + "/quarkus-run.jar");
  }

  private static JibContainerBuilder common(FileEntriesLayer base) {
    return Jib.fromScratch()
        .setFormat(ImageFormat.Docker)
        .setCreationTime(Instant.EPOCH)
        .addFileEntriesLayer(base)
        .setUser(RuntimeBase.USER_ID + ":" + RuntimeBase.USER_ID)
        .setWorkingDirectory(AbsoluteUnixPath.get(RuntimeBase.USER_HOME));
  }

  private static Map<String, String> commonEnvironment() {
    Map<String, String> env = new LinkedHashMap<>();
    env.put("PATH", RuntimeBase.JAVA_HOME + "/bin:/usr/bin:/bin");
    env.put("JAVA_HOME", RuntimeBase.JAVA_HOME);
    // glibc's built-in UTF-8 locale: file names and the default charset are UTF-8, not ASCII.
    env.put("LANG", "C.UTF-8");
    return env;
  }

  static Map<String, String> labels(String title, String description) {
    Map<String, String> labels = new LinkedHashMap<>();
    labels.put(RELEASE_LABEL, release());
    labels.put(PROTOCOL_LABEL, VersionInfo.CURRENT.protocol());
    labels.put("org.opencontainers.image.title", title);
    labels.put("org.opencontainers.image.description", description);
    labels.put("org.opencontainers.image.version", release());
    return labels;
  }

  private static Path extract(List<Path> jars, String jarPrefix, String entry, Path target)
      throws IOException {
    Path jar =
        jars.stream()
            .filter(j -> j.getFileName().toString().startsWith(jarPrefix))
            .findFirst()
            .orElseThrow(
                () ->
                    new IllegalStateException(
                        "no " + jarPrefix + "*.jar among the data-plane jars " + jars));
    try (ZipFile zip = new ZipFile(jar.toFile())) {
      ZipEntry e = zip.getEntry(entry);
      if (e == null) {
        throw new IllegalStateException(
            jar + " has no " + entry + " (was the native library built?)");
      }
      Files.createDirectories(target.getParent());
      try (InputStream in = zip.getInputStream(e)) {
        Files.copy(in, target, StandardCopyOption.REPLACE_EXISTING);
      }
    }
    return target;
  }
}
