package io.kvpool.bench.compare;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.List;

/** A peer store spoken to over a text protocol: one {@link TextConnection} per benchmark client. */
abstract class TextProtocolStore implements Store {
  private final String peer;
  protected final InetSocketAddress address;
  protected TextConnection[] connections;

  TextProtocolStore(String peer, InetSocketAddress address) {
    this.peer = peer;
    this.address = address;
  }

  @Override
  public void open(int clients) throws IOException {
    connections = new TextConnection[clients];
    for (int c = 0; c < clients; c++) {
      connections[c] = new TextConnection(address);
    }
  }

  /** Writes the command that announces a value of {@code length} bytes stored under {@code key}. */
  @FunctionalInterface
  interface SetCommand {
    void write(TextConnection t, String key, int length);
  }

  /**
   * Stores a batch as pipelined set commands, each followed by its value, in one gathering write
   * (values straight from their buffers), then reads one {@code reply} line per key.
   */
  protected void pipelinedSets(
      TextConnection connection,
      List<String> keys,
      ByteBuffer[] values,
      SetCommand set,
      String reply)
      throws IOException {
    TextConnection t = connection.begin();
    ByteBuffer[] parts = new ByteBuffer[keys.size() * 2 + 1];
    int from = 0;
    for (int i = 0; i < keys.size(); i++) {
      if (i > 0) {
        t.ascii("\r\n");
      }
      set.write(t, keys.get(i), values[i].remaining());
      parts[2 * i] = t.commandRange(from, t.commandBytes());
      parts[2 * i + 1] = values[i].duplicate();
      from = t.commandBytes();
    }
    t.ascii("\r\n");
    parts[parts.length - 1] = t.commandRange(from, t.commandBytes());
    t.sendAll(parts);
    for (int i = 0; i < keys.size(); i++) {
      expect(t.readLine(), reply);
    }
  }

  /** Fails the benchmark when the peer's reply line is not the one expected. */
  protected void expect(String line, String expected) throws IOException {
    if (!line.equals(expected)) {
      String shown = line.length() > 60 ? line.substring(0, 60) + "..." : line;
      throw new IOException(
          peer
              + " answered '"
              + shown.replaceAll("\\P{Print}", "?")
              + "', expected '"
              + expected
              + "'");
    }
  }

  @Override
  public boolean supportsBatch() {
    return true;
  }

  @Override
  public void close() {
    if (connections != null) {
      for (TextConnection c : connections) {
        if (c != null) {
          c.close();
        }
      }
    }
  }
}
