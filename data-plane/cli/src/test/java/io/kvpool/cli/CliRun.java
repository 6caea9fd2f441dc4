package io.kvpool.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

/** One in-process run of the {@code kvpool} command: its exit code and what it printed. */
public record CliRun(int code, String out, String err) {

  public static CliRun of(Map<String, String> env, String... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code;
    try (PrintStream o = new PrintStream(out, true, StandardCharsets.UTF_8);
        PrintStream e = new PrintStream(err, true, StandardCharsets.UTF_8)) {
      code = new KvPoolCli(o, e, env).run(args);
    }
    return new CliRun(
        code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
  }

  public static CliRun of(String... args) {
    return of(Map.of(), args);
  }

  /**
   * The run failed with {@code code} and exactly one line on stderr, no stack trace, that contains
   * every fragment; returns that line.
   */
  public String failedWith(int expectedCode, String... fragments) {
    List<String> lines = err.lines().toList();
    assertThat(code).as("exit code; stderr: %s", err).isEqualTo(expectedCode);
    assertThat(lines).as("stderr is one line").hasSize(1);
    String line = lines.get(0);
    assertThat(line).as("no stack trace").doesNotContain("\tat ").doesNotContain("Exception:");
    for (String fragment : fragments) {
      assertThat(line).contains(fragment);
    }
    return line;
  }
}
