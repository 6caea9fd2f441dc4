package io.kvpool.common;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;

/** Minimal {@code --name value} parser for the process mains; unknown or repeated options are errors. */
public final class CommandLine {
  private final String program;
  private final Map<String, String> values = new HashMap<>();

  private CommandLine(String program) {
    this.program = program;
  }

  public static CommandLine parse(String program, String[] args, Set<String> allowed) {
    CommandLine cl = new CommandLine(program);
    for (int i = 0; i < args.length; i++) {
      String arg = args[i];
      if (!arg.startsWith("--")) {
        throw new IllegalArgumentException(program + ": unexpected argument '" + arg + "'; options are " + allowed);
      }
      String name = arg.substring(2);
      String value;
      int eq = name.indexOf('=');
      if (eq >= 0) {
        value = name.substring(eq + 1);
        name = name.substring(0, eq);
      } else if (i + 1 < args.length) {
        value = args[++i];
      } else {
        throw new IllegalArgumentException(program + ": option --" + name + " needs a value");
      }
      if (!allowed.contains(name)) {
        throw new IllegalArgumentException(program + ": unknown option --" + name + "; options are " + allowed);
      }
      if (cl.values.put(name, value) != null) {
        throw new IllegalArgumentException(program + ": option --" + name + " given twice");
      }
    }
    return cl;
  }

  public String required(String name) {
    String v = values.get(name);
    if (v == null) {
      throw new IllegalArgumentException(program + ": option --" + name + " is required");
    }
    return v;
  }

  public String get(String name, String defaultValue) {
    return values.getOrDefault(name, defaultValue);
  }

  public int getInt(String name, int defaultValue) {
    String v = values.get(name);
    try {
      return v == null ? defaultValue : Integer.parseInt(v);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(program + ": --" + name + " must be an integer, got '" + v + "'", e);
    }
  }

  public double getDouble(String name, double defaultValue) {
    String v = values.get(name);
    try {
      return v == null ? defaultValue : Double.parseDouble(v);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(program + ": --" + name + " must be a number, got '" + v + "'", e);
    }
  }

  public Duration getDuration(String name, Duration defaultValue) {
    String v = values.get(name);
    return v == null ? defaultValue : Durations.parse(v);
  }

  public long getSize(String name, long defaultValue) {
    String v = values.get(name);
    return v == null ? defaultValue : Sizes.parse(v);
  }
}
