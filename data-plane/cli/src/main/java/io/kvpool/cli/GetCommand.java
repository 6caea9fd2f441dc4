package io.kvpool.cli;

import io.kvpool.client.KvPoolClient;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.channels.WritableByteChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code kvpool get}: reads one value to a file or to standard output. */
@Command(name = "get", description = "Read the value of KEY to standard output or a file.")
final class GetCommand implements Callable<Integer> {

  @Spec CommandSpec spec;
  @Mixin MasterOptions master;

  @Parameters(index = "0", paramLabel = "KEY", description = "The key to read.")
  String key;

  @Option(
      names = "--out",
      paramLabel = "FILE",
      description = "Write the value to this file (default: stdout).")
  Path file;

  private final PrintStream out;
  private final PrintStream err;

  GetCommand(PrintStream out, PrintStream err) {
    this.out = out;
    this.err = err;
  }

  @Override
  public Integer call() throws IOException {
    Checks.key(spec, key);
    if (file != null) {
      requireWritable(file);
    }
    ByteBuffer value;
    try (KvPoolClient client = master.connect(spec)) {
      value = client.get(key);
    }
    if (file != null) {
      try (FileChannel channel =
          FileChannel.open(
              file,
              StandardOpenOption.CREATE,
              StandardOpenOption.WRITE,
              StandardOpenOption.TRUNCATE_EXISTING)) {
        writeFully(channel, value);
      }
      err.println("wrote " + StatusTable.bytes(Files.size(file)) + " to " + file);
    } else {
      writeFully(Channels.newChannel(out), value);
      out.flush();
    }
    return 0;
  }

  /** Fails before the pool is asked, rather than after the value was fetched. */
  private static void requireWritable(Path file) {
    if (Files.isDirectory(file)) {
      throw new CommandFailedException("--out " + file + " is a folder; give a file name");
    }
    Path folder = file.toAbsolutePath().getParent();
    if (folder == null || !Files.isDirectory(folder)) {
      throw new CommandFailedException(
          "cannot write --out " + file + ": folder " + folder + " does not exist");
    }
    if (Files.exists(file) ? !Files.isWritable(file) : !Files.isWritable(folder)) {
      throw new CommandFailedException("cannot write --out " + file + ": permission denied");
    }
  }

  private static void writeFully(WritableByteChannel channel, ByteBuffer value) throws IOException {
    while (value.hasRemaining()) {
      channel.write(value);
    }
  }
}
