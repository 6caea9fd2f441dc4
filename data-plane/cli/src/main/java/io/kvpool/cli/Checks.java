package io.kvpool.cli;

import io.kvpool.protocol.Keys;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;

/**
 * Checks of option values picocli cannot express; a failure is a usage error (exit code 2). Public
 * for the commands that plugins add ({@link CommandPlugin}).
 */
public final class Checks {
  /** The least memory a storage node accepts (one page for its one segment). */
  static final long MIN_MEMORY = 4096;

  private Checks() {}

  public static ParameterException usage(CommandSpec spec, String message) {
    return new ParameterException(spec.commandLine(), message);
  }

  public static int range(CommandSpec spec, String option, int value, int min, int max) {
    if (value < min || value > max) {
      throw usage(spec, option + " must be between " + min + " and " + max + ", got " + value);
    }
    return value;
  }

  public static void positive(CommandSpec spec, String option, java.time.Duration value) {
    if (value.isZero() || value.isNegative()) {
      throw usage(spec, option + " must be longer than 0, got " + value.toMillis() + "ms");
    }
  }

  /** A key the protocol accepts (1..4096 UTF-8 bytes), checked before anything is read or sent. */
  public static String key(CommandSpec spec, String key) {
    String problem = Keys.problem(key);
    if (problem != null) {
      throw usage(spec, "invalid KEY: " + problem);
    }
    return key;
  }

  /**
   * Checked before any process starts, so that a bad size fails at once, not after every storage
   * node refused it.
   */
  public static void requireMemory(CommandSpec spec, long memory) {
    if (memory < MIN_MEMORY) {
      throw usage(
          spec,
          "--memory must be at least 4KiB ("
              + MIN_MEMORY
              + " bytes) per storage node, got "
              + memory
              + " bytes");
    }
  }
}
