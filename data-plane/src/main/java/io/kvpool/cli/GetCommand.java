package io.kvpool.cli;

import io.kvpool.client.KvPoolClient;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.channels.WritableByteChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Set;

/** {@code kvpool get}: reads one value to a file or to standard output. */
final class GetCommand implements Command {

  @Override
  public String name() {
    return "get";
  }

  @Override
  public String usage() {
    return "get --master HOST:PORT KEY [--out FILE]";
  }

  @Override
  public String summary() {
    return "read the value of KEY to stdout or a file";
  }

  @Override
  public Set<String> options() {
    return Set.of("master", "out");
  }

  @Override
  public int run(CliArguments args, PrintStream out) throws Exception {
    String key = args.positionals("KEY").get(0);
    ByteBuffer value;
    try (KvPoolClient client = ClientCommands.connect(args)) {
      value = client.get(key);
    }
    if (args.option("out").isPresent()) {
      Path file = Path.of(args.option("out").get());
      try (FileChannel channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
          StandardOpenOption.TRUNCATE_EXISTING)) {
        writeFully(channel, value);
      }
      System.err.println("wrote " + StatusTable.bytes(file.toFile().length()) + " to " + file);
    } else {
      writeFully(Channels.newChannel(out), value);
      out.flush();
    }
    return 0;
  }

  private static void writeFully(WritableByteChannel channel, ByteBuffer value) throws java.io.IOException {
    while (value.hasRemaining()) {
      channel.write(value);
    }
  }
}
