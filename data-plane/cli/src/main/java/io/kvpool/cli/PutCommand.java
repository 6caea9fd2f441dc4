package io.kvpool.cli;

import io.kvpool.client.KvPoolClient;
import io.kvpool.protocol.ProtocolLimits;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.Callable;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code kvpool put}: stores one value from a file (memory-mapped, so no heap copy) or a string.
 */
@Command(name = "put", description = "Store one value under KEY, from a file or a string.")
final class PutCommand implements Callable<Integer> {

  @Spec CommandSpec spec;
  @Mixin MasterOptions master;

  @Parameters(index = "0", paramLabel = "KEY", description = "The key: 1 to 4096 bytes of UTF-8.")
  String key;

  @ArgGroup(exclusive = true, multiplicity = "1")
  Source source;

  @Option(
      names = "--replicas",
      paramLabel = "N",
      defaultValue = "2",
      description = "Copies on distinct storage nodes, 1..16 (default: ${DEFAULT-VALUE}).")
  int replicas;

  static final class Source {
    @Option(names = "--file", paramLabel = "FILE", description = "Store the bytes of this file.")
    Path file;

    @Option(names = "--value", paramLabel = "STRING", description = "Store this string (UTF-8).")
    String value;
  }

  private final PrintStream out;

  PutCommand(PrintStream out) {
    this.out = out;
  }

  @Override
  public Integer call() throws IOException {
    Checks.key(spec, key);
    Checks.range(spec, "--replicas", replicas, 1, 16);
    ByteBuffer value = source.file != null ? map(source.file) : text(source.value);
    int length = value.remaining();
    try (KvPoolClient client = master.connect(spec)) {
      client.put(key, value, replicas);
    }
    out.println(
        "stored " + key + " (" + StatusTable.bytes(length) + ", replicas=" + replicas + ")");
    return 0;
  }

  private ByteBuffer text(String text) {
    byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
    if (bytes.length == 0) {
      throw Checks.usage(spec, "--value is empty; values have 1 byte or more");
    }
    return ByteBuffer.allocateDirect(bytes.length).put(bytes).flip();
  }

  /** The file's bytes, mapped read-only; checked before any connection is made. */
  private static ByteBuffer map(Path file) throws IOException {
    if (Files.isDirectory(file)) {
      throw new CommandFailedException("--file " + file + " is a folder, not a file");
    }
    if (!Files.exists(file)) {
      throw new CommandFailedException("--file " + file + ": no such file");
    }
    try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
      long size = channel.size();
      if (size == 0) {
        throw new CommandFailedException(
            "--file " + file + " is empty; values have 1 byte or more");
      }
      if (size > ProtocolLimits.MAX_VALUE_BYTES) {
        throw new CommandFailedException(
            "--file "
                + file
                + " has "
                + size
                + " bytes; the largest value is "
                + ProtocolLimits.MAX_VALUE_BYTES
                + " bytes ("
                + StatusTable.bytes(ProtocolLimits.MAX_VALUE_BYTES)
                + ")");
      }
      return channel.map(FileChannel.MapMode.READ_ONLY, 0, size);
    }
  }
}
