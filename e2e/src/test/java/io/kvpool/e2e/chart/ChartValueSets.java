package io.kvpool.e2e.chart;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The value sets the chart is tested with. Valid ones: every file under {@code chart-values/} (test
 * resources) and every {@code yaml} block of {@code helm/kvpool/README.md}, the sets users copy.
 * Invalid ones: every file under {@code chart-values-invalid/}, each starting with {@code #
 * refused: <text the error must contain>}.
 */
final class ChartValueSets {
  private static final Pattern YAML_BLOCK = Pattern.compile("```yaml\\n(.*?)```", Pattern.DOTALL);
  private static final Pattern REFUSED = Pattern.compile("^# refused: (.+)$", Pattern.MULTILINE);

  /** A named values file. */
  record ValueSet(String name, Path file) {
    @Override
    public String toString() {
      return name;
    }
  }

  /**
   * A values file the schema must refuse, with the text the refusal must contain (the field's
   * path).
   */
  record InvalidValueSet(String name, Path file, List<String> expectedInMessage) {
    @Override
    public String toString() {
      return name;
    }
  }

  private ChartValueSets() {}

  static List<ValueSet> valid(KvpoolChart chart) {
    List<ValueSet> sets = new ArrayList<>();
    for (Path file : resourceFiles("chart-values")) {
      sets.add(new ValueSet(file.getFileName().toString(), file));
    }
    sets.addAll(readmeExamples(chart));
    return sets;
  }

  /** One of the valid value files, by file name. */
  static Path file(String name) {
    return resourceFiles("chart-values").stream()
        .filter(p -> p.getFileName().toString().equals(name))
        .findFirst()
        .orElseThrow(() -> new IllegalArgumentException("no chart-values/" + name));
  }

  static List<InvalidValueSet> invalid() {
    List<InvalidValueSet> sets = new ArrayList<>();
    for (Path file : resourceFiles("chart-values-invalid")) {
      Matcher refused = REFUSED.matcher(read(file));
      List<String> expected = new ArrayList<>();
      while (refused.find()) {
        expected.add(refused.group(1).strip());
      }
      if (expected.isEmpty()) {
        throw new IllegalStateException(
            file + " must start with '# refused: <text of the schema error>'");
      }
      sets.add(new InvalidValueSet(file.getFileName().toString(), file, expected));
    }
    return sets;
  }

  /** Each yaml block of the chart's README, written to a file of its own for Helm. */
  static List<ValueSet> readmeExamples(KvpoolChart chart) {
    Path readme = chart.dir().resolve("README.md");
    Matcher block = YAML_BLOCK.matcher(read(readme));
    List<ValueSet> sets = new ArrayList<>();
    try {
      Path dir = Files.createTempDirectory("kvpool-readme-values");
      dir.toFile().deleteOnExit();
      for (int i = 1; block.find(); i++) {
        Path file = dir.resolve("readme-example-" + i + ".yaml");
        Files.writeString(file, block.group(1));
        file.toFile().deleteOnExit();
        sets.add(new ValueSet("helm/kvpool/README.md example " + i, file));
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    if (sets.isEmpty()) {
      throw new IllegalStateException(readme + " has no yaml example");
    }
    return sets;
  }

  private static List<Path> resourceFiles(String folder) {
    try {
      Path dir = Path.of(ChartValueSets.class.getClassLoader().getResource(folder).toURI());
      try (Stream<Path> files = Files.list(dir)) {
        return files.filter(p -> p.toString().endsWith(".yaml")).sorted().toList();
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (URISyntaxException e) {
      throw new IllegalStateException(e);
    }
  }

  private static String read(Path file) {
    try {
      return Files.readString(file);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
