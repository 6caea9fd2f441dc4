package io.kvpool.cli;

import io.kvpool.client.KvPoolClient;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Set;

/** {@code kvpool put}: stores one value from a file (memory-mapped, so no heap copy) or a string. */
final class PutCommand implements Command {

  @Override
  public String name() {
    return "put";
  }

  @Override
  public String usage() {
    return "put --master HOST:PORT KEY (--file FILE | --value STRING) [--replicas 2]";
  }

  @Override
  public String summary() {
    return "store one value under KEY";
  }

  @Override
  public Set<String> options() {
    return Set.of("master", "file", "value", "replicas");
  }

  @Override
  public int run(CliArguments args, PrintStream out) throws Exception {
    String key = args.positionals("KEY").get(0);
    int replicas = args.integer("replicas", 2, 1, 16);
    if (args.option("file").isPresent() == args.option("value").isPresent()) {
      throw new UsageException("give exactly one of --file FILE or --value STRING");
    }
    ByteBuffer value;
    if (args.option("file").isPresent()) {
      try (FileChannel file = FileChannel.open(Path.of(args.option("file").get()), StandardOpenOption.READ)) {
        value = file.map(FileChannel.MapMode.READ_ONLY, 0, file.size());
      }
    } else {
      byte[] text = args.option("value").get().getBytes(StandardCharsets.UTF_8);
      value = ByteBuffer.allocateDirect(text.length).put(text).flip();
    }
    int length = value.remaining();
    try (KvPoolClient client = ClientCommands.connect(args)) {
      client.put(key, value, replicas);
    }
    out.println("stored " + key + " (" + StatusTable.bytes(length) + ", replicas=" + replicas + ")");
    return 0;
  }
}
