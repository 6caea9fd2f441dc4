package io.kvpool.images;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.spi.ToolProvider;
import java.util.stream.Stream;

/**
 * The root filesystem both images start from, with no base image: a JRE made by jlink from the JDK
 * that runs the build, the glibc libraries that it and the data plane's native libraries load
 * (copied from this Linux x86-64 host, whose glibc the JDK was built against), and the few files of
 * /etc a JVM reads (the non-root user, name service order). It is assembled once per JDK, module
 * list and host glibc, in a cache folder, so a warm build reuses it and Jib reuses the compressed
 * layer made from it.
 */
final class RuntimeBase {
  /**
   * The JDK modules both images need. Found with {@code jdeps --print-module-deps} over the data
   * plane's and the operator's jars, plus the service providers jdeps cannot see: jdk.crypto.ec
   * (TLS to the API server with EC keys), jdk.naming.dns (DNS lookups through JNDI), jdk.management
   * (the platform MXBeans that metrics read) and jdk.zipfs (Quarkus' launcher reads its application
   * through the zip file system; without it the operator exits with status 1 before it can log
   * anything). Left out although jdeps names it: jdk.compiler (only Quarkus dev mode compiles).
   * Without jdk.net (the servers' TCP keep-alive options) every master and storage node accepted
   * connections and never answered them; ImagesIT now runs a pool from the image's JRE to catch
   * such a gap.
   */
  static final List<String> MODULES =
      List.of(
          "java.base",
          "java.compiler",
          "java.desktop",
          "java.logging",
          "java.management",
          "java.naming",
          "java.net.http",
          "java.rmi",
          "java.sql",
          "java.transaction.xa",
          "java.xml",
          "jdk.crypto.ec",
          "jdk.httpserver",
          "jdk.management",
          "jdk.naming.dns",
          "jdk.net",
          "jdk.unsupported",
          "jdk.zipfs");

  /**
   * Files of the JRE the images never use: java.desktop's native AWT, font, sound and image
   * libraries (the module stays for java.beans, which is pure Java; these would pull X11, freetype
   * and ALSA into the image) and the CDS archive for heaps above 32 GiB (kvpool's JVMs keep small
   * heaps: memory is native).
   */
  static final List<String> UNUSED_JRE_FILES =
      List.of(
          "lib/libawt.so",
          "lib/libawt_headless.so",
          "lib/libawt_xawt.so",
          "lib/libfontmanager.so",
          "lib/libjawt.so",
          "lib/libjavajpeg.so",
          "lib/libjsound.so",
          "lib/liblcms.so",
          "lib/libmlib_image.so",
          "lib/libsplashscreen.so",
          "lib/server/classes_nocoops.jsa");

  static final String JAVA_HOME = "/opt/java";
  static final int USER_ID = 10001;
  static final String USER_NAME = "kvpool";
  static final String USER_HOME = "/home/kvpool";

  private final Path root;

  private RuntimeBase(Path root) {
    this.root = root;
  }

  /** The root filesystem folder. */
  Path root() {
    return root;
  }

  /**
   * The base for the running JDK, from the cache or made now. {@code nativeLibraries} are the
   * shared libraries the images add themselves (libkvpool, JNA's dispatcher): the glibc libraries
   * they load go into the base too, so both images share one base layer.
   */
  static RuntimeBase prepare(Path cacheDir, List<Path> nativeLibraries, Log log)
      throws IOException {
    String key = cacheKey(nativeLibraries);
    Path root = cacheDir.resolve("runtime-base-" + key);
    if (Files.isRegularFile(root.resolve(".complete"))) {
      log.info("runtime base: reusing " + root);
      return new RuntimeBase(root);
    }
    long started = System.nanoTime();
    Path work = cacheDir.resolve("runtime-base-" + key + ".tmp");
    deleteRecursively(work);
    Files.createDirectories(work);
    Path javaHome = work.resolve(JAVA_HOME.substring(1));
    jlink(javaHome);
    for (String unused : UNUSED_JRE_FILES) {
      Files.deleteIfExists(javaHome.resolve(unused));
    }
    List<Path> elfFiles = new ArrayList<>(nativeLibraries);
    try (Stream<Path> files = Files.walk(javaHome)) {
      files
          .filter(
              p ->
                  Files.isRegularFile(p)
                      && (p.toString().endsWith(".so") || p.getParent().endsWith("bin")))
          .forEach(elfFiles::add);
    }
    for (String library : SharedLibraries.of(elfFiles)) {
      Path target = work.resolve(library.substring(1));
      Files.createDirectories(target.getParent());
      Files.copy(Path.of(library), target, StandardCopyOption.REPLACE_EXISTING);
    }
    writeEtc(work);
    Files.createDirectories(work.resolve("tmp"));
    Files.createDirectories(work.resolve(USER_HOME.substring(1)));
    Files.writeString(work.resolve(".complete"), key + "\n");
    deleteRecursively(root);
    Files.move(work, root);
    // Bases of other JDKs or module lists are not used again by this checkout: keep the cache
    // small.
    try (Stream<Path> others = Files.list(cacheDir)) {
      for (Path other :
          others
              .filter(
                  p -> p.getFileName().toString().startsWith("runtime-base-") && !p.equals(root))
              .toList()) {
        deleteRecursively(other);
      }
    }
    log.info(
        "runtime base: made " + root + " in " + (System.nanoTime() - started) / 1_000_000 + " ms");
    return new RuntimeBase(root);
  }

  /** JDK, modules and host glibc: a change of any of them makes a new base. */
  private static String cacheKey(List<Path> nativeLibraries) {
    StringBuilder key =
        new StringBuilder()
            .append(System.getProperty("java.home"))
            .append('\n')
            .append(Runtime.version())
            .append('\n')
            .append(System.getProperty("java.vendor.version", ""))
            .append('\n')
            .append(String.join(",", MODULES))
            .append('\n')
            .append(String.join(",", UNUSED_JRE_FILES))
            .append('\n')
            .append(SharedLibraries.glibcVersion())
            .append('\n');
    for (Path library : nativeLibraries) {
      key.append(library.getFileName()).append('\n');
    }
    try {
      byte[] digest =
          MessageDigest.getInstance("SHA-256")
              .digest(key.toString().getBytes(StandardCharsets.UTF_8));
      return HexFormat.of().formatHex(digest, 0, 8);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  private static void jlink(Path output) {
    ToolProvider jlink =
        ToolProvider.findFirst("jlink")
            .orElseThrow(
                () ->
                    new IllegalStateException(
                        "jlink is not available in "
                            + System.getProperty("java.home")
                            + ": build the images with a full JDK"));
    // No --compress: the layer is gzipped anyway, and an uncompressed module image starts JVMs
    // faster.
    // The CDS archive saves every data-plane JVM a good share of its start-up CPU.
    String[] args = {
      "--add-modules",
      String.join(",", MODULES),
      "--strip-debug",
      "--no-header-files",
      "--no-man-pages",
      "--generate-cds-archive",
      "--output",
      output.toString()
    };
    int rc = jlink.run(System.out, System.err, args);
    if (rc != 0) {
      throw new IllegalStateException(
          "jlink " + String.join(" ", args) + " failed with exit code " + rc);
    }
  }

  /**
   * The non-root user (and group) the images run as, and the name service order for host lookups.
   */
  private static void writeEtc(Path root) throws IOException {
    Path etc = Files.createDirectories(root.resolve("etc"));
    Files.writeString(
        etc.resolve("passwd"),
        "root:x:0:0:root:/root:/sbin/nologin\n"
            + USER_NAME
            + ":x:"
            + USER_ID
            + ":"
            + USER_ID
            + ":kvpool:"
            + USER_HOME
            + ":/sbin/nologin\n"
            + "nobody:x:65534:65534:nobody:/nonexistent:/sbin/nologin\n");
    Files.writeString(
        etc.resolve("group"),
        "root:x:0:\n" + USER_NAME + ":x:" + USER_ID + ":\n" + "nogroup:x:65534:\n");
    Files.writeString(
        etc.resolve("nsswitch.conf"), "passwd: files\ngroup: files\nhosts: files dns\n");
  }

  /** Every file and folder under the root, as paths relative to it, parents first. */
  List<Path> entries() throws IOException {
    Set<Path> sorted = new TreeSet<>();
    try (Stream<Path> files = Files.walk(root)) {
      files
          .filter(p -> !p.equals(root) && !p.getFileName().toString().equals(".complete"))
          .forEach(p -> sorted.add(root.relativize(p)));
    }
    return List.copyOf(sorted);
  }

  static boolean isExecutable(Path file) {
    return Files.isExecutable(file) && Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS);
  }

  static void deleteRecursively(Path dir) throws IOException {
    if (!Files.exists(dir, LinkOption.NOFOLLOW_LINKS)) {
      return;
    }
    try (Stream<Path> files = Files.walk(dir)) {
      files
          .sorted((a, b) -> b.getNameCount() - a.getNameCount())
          .forEach(
              p -> {
                try {
                  Files.delete(p);
                } catch (IOException e) {
                  throw new UncheckedIOException(e);
                }
              });
    }
  }
}
