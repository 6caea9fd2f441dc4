package io.kvpool.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class CliArgumentsTest {

  private static CliArguments parse(String... args) {
    return CliArguments.parse("put", List.of(args), Set.of("master", "replicas", "value-size"), Set.of("all"));
  }

  @Test
  void readsOptionsInBothFormsFlagsAndPositionals() {
    CliArguments args = parse("--master", "127.0.0.1:7000", "key1", "--replicas=3", "--all");
    assertThat(args.endpoint("master").orElseThrow().port()).isEqualTo(7000);
    assertThat(args.integer("replicas", 2, 1, 16)).isEqualTo(3);
    assertThat(args.flag("all")).isTrue();
    assertThat(args.positionals("KEY")).containsExactly("key1");
  }

  @Test
  void appliesDefaultsAndParsesSizes() {
    CliArguments args = parse("--value-size", "64KiB");
    assertThat(args.size("value-size", "1MiB")).isEqualTo(64 << 10);
    assertThat(args.integer("replicas", 2, 1, 16)).isEqualTo(2);
    assertThat(args.flag("all")).isFalse();
  }

  @Test
  void refusesWhatIsNotDeclared() {
    assertThatThrownBy(() -> parse("--replica", "2")).isInstanceOf(UsageException.class)
        .hasMessageContaining("unknown option --replica").hasMessageContaining("--replicas");
    assertThatThrownBy(() -> parse("--master")).isInstanceOf(UsageException.class)
        .hasMessageContaining("--master needs a value");
    assertThatThrownBy(() -> parse("--master", "a:1", "--master", "b:2")).isInstanceOf(UsageException.class)
        .hasMessageContaining("given twice");
  }

  @Test
  void explainsBadValues() {
    assertThatThrownBy(() -> parse("--replicas", "0").integer("replicas", 2, 1, 16))
        .isInstanceOf(UsageException.class).hasMessageContaining("between 1 and 16, got 0");
    assertThatThrownBy(() -> parse("--replicas", "two").integer("replicas", 2, 1, 16))
        .isInstanceOf(UsageException.class).hasMessageContaining("whole number");
    assertThatThrownBy(() -> parse("--value-size", "1 megabyte").size("value-size", "1MiB"))
        .isInstanceOf(UsageException.class).hasMessageContaining("--value-size");
    assertThatThrownBy(() -> parse("--master", "nohost").endpoint("master"))
        .isInstanceOf(UsageException.class).hasMessageContaining("HOST:PORT");
    assertThatThrownBy(() -> parse("a", "b").positionals("KEY"))
        .isInstanceOf(UsageException.class).hasMessageContaining("takes KEY, got a b");
  }
}
