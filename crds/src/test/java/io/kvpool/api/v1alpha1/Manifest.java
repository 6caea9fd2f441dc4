package io.kvpool.api.v1alpha1;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * A YAML manifest used by the CRD tests. Invalid ones carry what the API server must answer in
 * header comments: {@code # expect-field: spec.master.replicas} and {@code # expect-message: ...};
 * the field {@code (object)} stands for a rule on the whole object (the message then names the
 * field).
 */
record Manifest(Path file, String yaml) {

  private static final Pattern EXPECT = Pattern.compile("(?m)^# expect-(field|message): (.+)$");

  static List<Manifest> in(Path dir) {
    try (Stream<Path> files = Files.list(dir)) {
      return files
          .filter(file -> file.toString().endsWith(".yaml"))
          .sorted()
          .map(Manifest::read)
          .toList();
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot list manifests in " + dir, e);
    }
  }

  private static Manifest read(Path file) {
    try {
      return new Manifest(file, Files.readString(file));
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read manifest " + file, e);
    }
  }

  String expectedField() {
    return expectation("field");
  }

  String expectedMessage() {
    return expectation("message");
  }

  private String expectation(String what) {
    Matcher matcher = EXPECT.matcher(yaml);
    while (matcher.find()) {
      if (matcher.group(1).equals(what)) {
        return matcher.group(2).strip();
      }
    }
    throw new IllegalStateException(file + " has no '# expect-" + what + ": ...' header line");
  }

  @Override
  public String toString() {
    return file.getFileName().toString();
  }
}
