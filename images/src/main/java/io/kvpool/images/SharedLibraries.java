package io.kvpool.images;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** The host's system libraries that a set of ELF files loads, as {@code ldd} resolves them. */
final class SharedLibraries {
  /** {@code libz.so.1 => /lib/x86_64-linux-gnu/libz.so.1 (0x...)} or the loader's own line. */
  private static final Pattern RESOLVED =
      Pattern.compile("^\\s*(?:\\S+\\s+=>\\s+)?(/\\S+)\\s+\\(0x[0-9a-f]+\\)\\s*$");

  /**
   * Only libraries of the system folders are copied; the JRE's own ones are in the image already.
   */
  private static final List<String> SYSTEM_DIRS =
      List.of("/lib/", "/lib64/", "/usr/lib/", "/usr/lib64/");

  private SharedLibraries() {}

  /** Absolute paths of the system libraries (and the dynamic loader) that {@code elfFiles} need. */
  static Set<String> of(List<Path> elfFiles) {
    Set<String> libraries = new TreeSet<>();
    for (Path file : elfFiles) {
      libraries.addAll(parse(run("ldd", file.toString())));
    }
    return libraries;
  }

  /** The system libraries named in one {@code ldd} output. */
  static Set<String> parse(String lddOutput) {
    Set<String> libraries = new TreeSet<>();
    for (String line : lddOutput.split("\n")) {
      Matcher m = RESOLVED.matcher(line);
      if (m.matches() && SYSTEM_DIRS.stream().anyMatch(m.group(1)::startsWith)) {
        libraries.add(m.group(1));
      }
    }
    return libraries;
  }

  /**
   * The first line of {@code ldd --version}, e.g. {@code ldd (Debian GLIBC 2.36-9+deb12u10) 2.36}.
   */
  static String glibcVersion() {
    return run("ldd", "--version").lines().findFirst().orElse("");
  }

  /**
   * Output of a command; a command that is not a dynamic executable (exit code 1) gives what it
   * printed.
   */
  private static String run(String... command) {
    try {
      Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
      byte[] output = process.getInputStream().readAllBytes();
      if (!process.waitFor(60, TimeUnit.SECONDS)) {
        process.destroyForcibly();
        throw new IllegalStateException(String.join(" ", command) + " did not finish within 60 s");
      }
      return new String(output, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(
          "cannot run "
              + String.join(" ", command)
              + " (the images are built on Linux x86-64 with glibc's ldd)",
          e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(
          "interrupted while running " + new ArrayList<>(List.of(command)), e);
    }
  }
}
