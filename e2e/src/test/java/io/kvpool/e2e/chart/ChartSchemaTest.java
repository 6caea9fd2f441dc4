package io.kvpool.e2e.chart;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import com.marcnuri.helm.Helm;
import com.marcnuri.helm.LintResult;
import io.kvpool.e2e.chart.ChartValueSets.InvalidValueSet;
import java.io.IOException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Lint, and the values schema: bad values stop Helm with the schema's message naming the field. */
class ChartSchemaTest {
  private static final KvpoolChart CHART = KvpoolChart.fromBuild();
  private static final Pattern KEY = Pattern.compile("^(\\s*)([A-Za-z][A-Za-z0-9]*):(.*)$");

  @Test
  void chartPassesStrictLint() {
    LintResult result = new Helm(CHART.dir()).lint().strict().call();
    assertThat(result.isFailed()).as("helm lint --strict: %s", result.getMessages()).isFalse();
  }

  static List<InvalidValueSet> invalidValueSets() {
    return ChartValueSets.invalid();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("invalidValueSets")
  void valuesBreakingTheSchemaAreRefusedWithItsMessage(InvalidValueSet set) {
    Throwable refused = catchThrowable(() -> CHART.render(set.file()));

    assertThat(refused).as("helm template with %s", set.name()).isNotNull();
    String message = refused.getMessage();
    System.out.println(set.name() + " -> " + message.replace('\n', ' '));
    assertThat(message)
        .as("Helm's refusal of %s", set.name())
        .contains("values don't meet the specifications of the schema")
        .contains(set.expectedInMessage());
  }

  /** Every value in values.yaml that a user sets (a leaf) has a comment line right above it. */
  @Test
  void everyValueIsDocumentedInValuesYaml() throws IOException {
    List<String> lines = Files.readAllLines(CHART.dir().resolve("values.yaml"));
    List<String> undocumented = new ArrayList<>();
    for (int i = 0; i < lines.size(); i++) {
      Matcher key = KEY.matcher(lines.get(i));
      if (!key.matches() || key.group(3).isBlank()) {
        continue; // not a key, or a parent whose children carry the comments
      }
      String above = i == 0 ? "" : lines.get(i - 1).strip();
      if (!above.startsWith("#")) {
        undocumented.add((i + 1) + ": " + lines.get(i).strip());
      }
    }
    assertThat(undocumented).as("values without a comment right above them").isEmpty();
  }
}
