package io.kvpool.bench.command;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvpool.cli.KvPoolCli;
import io.kvpool.master.MasterMain;
import io.kvpool.storage.StorageNodeMain;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

/**
 * data-plane/README.md's tables against the code, so that they cannot drift again: every option of
 * the master and storage-node mains is in the configuration table with its environment variable and
 * its process (and the table names no option the mains lack); every option of every {@code kvpool}
 * command is in that command's row of the CLI table; every environment variable a CLI option reads
 * is in the table of those. It runs here because the whole {@code kvpool} command, the benches
 * included, is assembled on this module's class path only.
 */
class ReadmeOptionsTest {
  private static final Pattern CODE = Pattern.compile("`([^`]+)`");

  private static String readme() throws IOException {
    return Files.readString(Path.of("..", "README.md"), StandardCharsets.UTF_8);
  }

  /**
   * The rows (cells, outer pipes dropped) of the table right under the line that starts with {@code
   * header}.
   */
  private static List<List<String>> table(String header) throws IOException {
    List<String> lines = readme().lines().toList();
    int at = -1;
    for (int i = 0; i < lines.size(); i++) {
      if (lines.get(i).startsWith(header)) {
        at = i;
        break;
      }
    }
    assertThat(at).as("data-plane/README.md has a table headed " + header).isNotNegative();
    List<List<String>> rows = new ArrayList<>();
    for (int i = at + 2; i < lines.size() && lines.get(i).startsWith("|"); i++) {
      String line = lines.get(i).replace("\\|", "\u0000"); // an escaped pipe inside a cell
      List<String> cells = new ArrayList<>();
      for (String cell : line.substring(1, line.length() - 1).split("\\|")) {
        cells.add(cell.replace('\u0000', '|').strip());
      }
      rows.add(cells);
    }
    return rows;
  }

  private static List<String> codeSpans(String cell) {
    List<String> out = new ArrayList<>();
    Matcher m = CODE.matcher(cell);
    while (m.find()) {
      out.add(m.group(1));
    }
    return out;
  }

  /** Options a user sets (not --help and --version). */
  private static List<OptionSpec> settable(CommandSpec spec) {
    return spec.options().stream().filter(o -> !o.usageHelp() && !o.versionHelp()).toList();
  }

  private static String flag(OptionSpec option) {
    return option.longestName();
  }

  // ---- the mains: the configuration table ----

  /** "flag=KEY@process" of every main option, as the code declares it. */
  private static Set<String> mainOptions() {
    Set<String> out = new TreeSet<>();
    for (Map.Entry<String, Object> main :
        Map.<String, Object>of("master", new MasterMain(), "storage", new StorageNodeMain())
            .entrySet()) {
      for (OptionSpec o : settable(new CommandLine(main.getValue()).getCommandSpec())) {
        out.add(flag(o) + "=" + o.descriptionKey() + "@" + main.getKey());
      }
    }
    return out;
  }

  /**
   * "flag=KEY@process" of every row of the configuration table (a "both" row counts for each
   * process).
   */
  private static Set<String> documentedMainOptions() throws IOException {
    Set<String> out = new TreeSet<>();
    for (List<String> row : table("| key | flag | process |")) {
      List<String> keys = codeSpans(row.get(0));
      List<String> flags = codeSpans(row.get(1));
      if (flags.isEmpty()) {
        continue; // a setting without a flag (KVPOOL_CONFIG_DIR, KVPOOL_ASCEND_LIB, ...)
      }
      assertThat(flags).as("row %s pairs keys and flags one to one", row).hasSameSizeAs(keys);
      String process = row.get(2);
      List<String> processes =
          process.equals("both") ? List.of("master", "storage") : List.of(process);
      for (int i = 0; i < keys.size(); i++) {
        for (String p : processes) {
          out.add(flags.get(i) + "=" + keys.get(i) + "@" + p);
        }
      }
    }
    return out;
  }

  @Test
  void everyOptionOfTheMastersAndStorageNodesMainsIsInTheConfigurationTable() throws IOException {
    Set<String> code = mainOptions();
    Set<String> documented = documentedMainOptions();
    Set<String> missing = new TreeSet<>(code);
    missing.removeAll(documented);
    Set<String> stale = new TreeSet<>(documented);
    stale.removeAll(code);
    assertThat(missing)
        .as(
            "options (flag=KEY@process) of MasterMain and StorageNodeMain missing from the table"
                + " under \"Configuration: the contract with the operator\"")
        .isEmpty();
    assertThat(stale).as("rows of that table that no main has").isEmpty();
  }

  // ---- the kvpool commands: the CLI table ----

  private static CommandLine cli() {
    PrintStream devNull =
        new PrintStream(OutputStream.nullOutputStream(), true, StandardCharsets.UTF_8);
    return new KvPoolCli(devNull, devNull, Map.of()).commandLine();
  }

  /** Every command and subcommand under {@code kvpool}, but help. */
  private static List<CommandLine> commands(CommandLine root) {
    List<CommandLine> out = new ArrayList<>();
    for (CommandLine sub : root.getSubcommands().values()) {
      if (!sub.getCommandName().equals("help") && !out.contains(sub)) {
        out.add(sub);
        out.addAll(commands(sub));
      }
    }
    return out.stream().distinct().toList();
  }

  /**
   * The command path a row of the CLI table documents: the words after ./kvpool, up to the first
   * option.
   */
  private static String commandPath(String cell) {
    List<String> spans = codeSpans(cell);
    assertThat(spans).as("a command cell: %s", cell).isNotEmpty();
    List<String> words = new ArrayList<>();
    String[] tokens = spans.get(0).split(" ");
    for (int i = 1; i < tokens.length && tokens[i].matches("[a-z][a-z-]*"); i++) {
      words.add(tokens[i]);
    }
    return String.join(" ", words);
  }

  private static boolean names(String text, String flag) {
    return Pattern.compile("(?<![\\w-])" + Pattern.quote(flag) + "(?![\\w-])").matcher(text).find();
  }

  @Test
  void everyOptionOfEveryKvpoolCommandIsInItsRowOfTheCliTable() throws IOException {
    Map<String, String> rows = new LinkedHashMap<>();
    for (List<String> row : table("| command | what it does |")) {
      rows.put(commandPath(row.get(0)), row.get(0));
    }
    Set<String> missing = new LinkedHashSet<>();
    for (CommandLine command : commands(cli())) {
      String path = command.getCommandSpec().qualifiedName(" ").replaceFirst("^kvpool ", "");
      String row = rows.get(path);
      if (row == null) {
        missing.add("a row for `./kvpool " + path + "`");
        continue;
      }
      for (OptionSpec o : settable(command.getCommandSpec())) {
        if (!names(row, flag(o))) {
          missing.add("./kvpool " + path + " " + flag(o));
        }
      }
    }
    assertThat(missing)
        .as("kvpool commands and options missing from the table under \"CLI and benchmark\"")
        .isEmpty();
  }

  @Test
  void everyEnvironmentVariableOfACliOptionIsInTheTableOfThem() throws IOException {
    Set<String> documented = new TreeSet<>();
    for (List<String> row : table("| variable | option |")) {
      for (String variable : codeSpans(row.get(0))) {
        for (String option : codeSpans(row.get(1))) {
          documented.add(option + "=" + variable);
        }
      }
    }
    Set<String> code = new TreeSet<>();
    for (CommandLine command : commands(cli())) {
      for (OptionSpec o : settable(command.getCommandSpec())) {
        if (o.descriptionKey() != null && !o.descriptionKey().isEmpty()) {
          code.add(flag(o) + "=" + o.descriptionKey());
        }
      }
    }
    Set<String> missing = new TreeSet<>(code);
    missing.removeAll(documented);
    Set<String> stale = new TreeSet<>(documented);
    stale.removeAll(code);
    assertThat(missing)
        .as("option=VARIABLE of kvpool commands missing from the table of the CLI's variables")
        .isEmpty();
    assertThat(stale).as("rows of that table that no kvpool option reads").isEmpty();
  }
}
