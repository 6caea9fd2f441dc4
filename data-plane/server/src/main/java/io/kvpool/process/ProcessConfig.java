package io.kvpool.process;

import io.kvpool.common.Durations;
import io.kvpool.common.Sizes;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import picocli.CommandLine;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.OptionSpec;

/**
 * Where the data-plane mains read their settings: the configuration contract with the operator.
 * Every option names its key (its {@code descriptionKey}, e.g. {@code KVPOOL_NODE_TTL}); its value
 * comes from, in order, the command line, the environment variable of that name, the file of that
 * name in the config directory ({@code KVPOOL_CONFIG_DIR}: the operator mounts the pool's ConfigMap
 * there, one file per key), or the option's default. The table in data-plane/README.md lists every
 * key.
 */
public final class ProcessConfig implements CommandLine.IDefaultValueProvider {
  public static final String CONFIG_DIR_ENV = "KVPOOL_CONFIG_DIR";

  private final Map<String, String> env;
  private final Path configDir;

  public ProcessConfig(Map<String, String> env) {
    this.env = env;
    String dir = env.get(CONFIG_DIR_ENV);
    this.configDir = dir == null || dir.isBlank() ? null : Path.of(dir);
  }

  /**
   * A picocli command line for {@code command} reading defaults from the environment and config
   * directory.
   */
  public static CommandLine commandLine(Object command, Map<String, String> env) {
    CommandLine cl =
        new CommandLine(command)
            .setDefaultValueProvider(new ProcessConfig(env))
            .setCaseInsensitiveEnumValuesAllowed(true)
            .registerConverter(Duration.class, Durations::parse);
    cl.setParameterExceptionHandler(
        (e, args) -> {
          e.getCommandLine()
              .getErr()
              .println(e.getCommandLine().getCommandName() + ": " + e.getMessage());
          e.getCommandLine()
              .getErr()
              .println(
                  "(see --help; every option can also come from the environment variable"
                      + " or config file named in its description)");
          return 2;
        });
    return cl;
  }

  /** Parses a size such as 4096, 64KiB or 4GiB (for picocli options of type long). */
  public static final class SizeConverter implements CommandLine.ITypeConverter<Long> {
    @Override
    public Long convert(String value) {
      return Sizes.parse(value);
    }
  }

  @Override
  public String defaultValue(ArgSpec arg) throws IOException {
    String key = arg instanceof OptionSpec o ? o.descriptionKey() : null;
    if (key == null || key.isEmpty()) {
      return null;
    }
    String value = env.get(key);
    if (value != null && !value.isBlank()) {
      return value.trim();
    }
    if (configDir != null) {
      Path file = configDir.resolve(key);
      if (Files.isRegularFile(file)) {
        return Files.readString(file, StandardCharsets.UTF_8).trim();
      }
    }
    return null;
  }
}
