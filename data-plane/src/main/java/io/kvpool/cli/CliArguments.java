package io.kvpool.cli;

import io.kvpool.common.Durations;
import io.kvpool.common.HostPort;
import io.kvpool.common.Sizes;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * Arguments of one subcommand: {@code --name value} or {@code --name=value} options from a declared set,
 * and positional words. Anything unexpected is a {@link UsageException} that names what was allowed.
 */
final class CliArguments {

  private final String command;
  private final Map<String, String> options = new HashMap<>();
  private final Set<String> flags = new HashSet<>();
  private final List<String> positionals = new ArrayList<>();

  private CliArguments(String command) {
    this.command = command;
  }

  /** Options in {@code allowedOptions} take a value; those in {@code allowedFlags} stand alone. */
  static CliArguments parse(String command, List<String> args, Set<String> allowedOptions, Set<String> allowedFlags) {
    CliArguments parsed = new CliArguments(command);
    for (int i = 0; i < args.size(); i++) {
      String arg = args.get(i);
      if (!arg.startsWith("--") || arg.equals("--")) {
        parsed.positionals.add(arg);
        continue;
      }
      String name = arg.substring(2);
      if (allowedFlags.contains(name)) {
        parsed.flags.add(name);
        continue;
      }
      String value;
      int eq = name.indexOf('=');
      if (eq >= 0) {
        value = name.substring(eq + 1);
        name = name.substring(0, eq);
      } else if (i + 1 < args.size()) {
        value = args.get(++i);
      } else {
        throw new UsageException("option --" + name + " needs a value");
      }
      if (!allowedOptions.contains(name)) {
        Set<String> all = new TreeSet<>(allowedOptions);
        all.addAll(allowedFlags);
        throw new UsageException("unknown option --" + name + " for '" + command + "'; options are "
            + (all.isEmpty() ? "none" : "--" + String.join(", --", all)));
      }
      if (parsed.options.put(name, value) != null) {
        throw new UsageException("option --" + name + " given twice");
      }
    }
    return parsed;
  }

  boolean flag(String name) {
    return flags.contains(name);
  }

  /** All positional words, for commands that take a list. */
  List<String> positionalList() {
    return List.copyOf(positionals);
  }

  Optional<String> option(String name) {
    return Optional.ofNullable(options.get(name));
  }

  String option(String name, String defaultValue) {
    return options.getOrDefault(name, defaultValue);
  }

  String requiredOption(String name, String example) {
    return option(name).orElseThrow(() -> new UsageException("'" + command + "' needs --" + name + ", e.g. --"
        + name + " " + example));
  }

  int integer(String name, int defaultValue, int min, int max) {
    String text = options.get(name);
    if (text == null) {
      return defaultValue;
    }
    try {
      int value = Integer.parseInt(text);
      if (value < min || value > max) {
        throw new UsageException("--" + name + " must be between " + min + " and " + max + ", got " + value);
      }
      return value;
    } catch (NumberFormatException e) {
      throw new UsageException("--" + name + " must be a whole number, got '" + text + "'");
    }
  }

  /** A size such as {@code 1MiB}, in bytes. */
  long size(String name, String defaultValue) {
    String text = option(name, defaultValue);
    try {
      return Sizes.parse(text);
    } catch (IllegalArgumentException e) {
      throw new UsageException("--" + name + ": " + e.getMessage());
    }
  }

  Duration duration(String name, String defaultValue) {
    String text = option(name, defaultValue);
    try {
      return Durations.parse(text);
    } catch (IllegalArgumentException e) {
      throw new UsageException("--" + name + ": " + e.getMessage());
    }
  }

  Optional<HostPort> endpoint(String name) {
    return option(name).map(text -> {
      try {
        return HostPort.parse(text);
      } catch (IllegalArgumentException e) {
        throw new UsageException("--" + name + ": " + e.getMessage());
      }
    });
  }

  /** One of {@code allowed}, or the default. */
  String choice(String name, String defaultValue, Set<String> allowed) {
    String value = option(name, defaultValue);
    if (!allowed.contains(value)) {
      throw new UsageException("--" + name + " must be one of " + new TreeSet<>(allowed) + ", got '" + value + "'");
    }
    return value;
  }

  /** Exactly {@code names.length} positional words, named in the error when the count is wrong. */
  List<String> positionals(String... names) {
    if (positionals.size() != names.length) {
      throw new UsageException("'" + command + "' takes " + (names.length == 0 ? "no positional arguments"
          : String.join(" ", names)) + ", got " + (positionals.isEmpty() ? "none" : String.join(" ", positionals)));
    }
    return List.copyOf(positionals);
  }
}
