package io.kvpool.cli;

import io.kvpool.protocol.Keys;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;

/** Checks of option values picocli cannot express; a failure is a usage error (exit code 2). */
final class Checks {

  private Checks() {
  }

  static ParameterException usage(CommandSpec spec, String message) {
    return new ParameterException(spec.commandLine(), message);
  }

  static int range(CommandSpec spec, String option, int value, int min, int max) {
    if (value < min || value > max) {
      throw usage(spec, option + " must be between " + min + " and " + max + ", got " + value);
    }
    return value;
  }

  static void positive(CommandSpec spec, String option, java.time.Duration value) {
    if (value.isZero() || value.isNegative()) {
      throw usage(spec, option + " must be longer than 0, got " + value.toMillis() + "ms");
    }
  }

  /** A key the protocol accepts (1..4096 UTF-8 bytes), checked before anything is read or sent. */
  static String key(CommandSpec spec, String key) {
    String problem = Keys.problem(key);
    if (problem != null) {
      throw usage(spec, "invalid KEY: " + problem);
    }
    return key;
  }
}
