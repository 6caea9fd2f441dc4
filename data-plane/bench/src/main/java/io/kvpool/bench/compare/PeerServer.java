package io.kvpool.bench.compare;

import io.kvpool.cli.FreePorts;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A peer's server process (redis-server, memcached) on 127.0.0.1 and a free port, stopped with the
 * suite.
 */
final class PeerServer implements AutoCloseable {
  private final String name;
  private final Process process;
  private final InetSocketAddress address;
  private final Thread shutdownHook;

  private PeerServer(String name, Process process, InetSocketAddress address) {
    this.name = name;
    this.process = process;
    this.address = address;
    this.shutdownHook = new Thread(process::destroyForcibly, name + "-shutdown");
    Runtime.getRuntime().addShutdownHook(shutdownHook);
  }

  /** redis-server without persistence. */
  static PeerServer redis(Path binary, Path log) throws IOException, InterruptedException {
    int port = FreePorts.take();
    return start(
        "redis-server",
        List.of(
            binary.toString(),
            "--port",
            Integer.toString(port),
            "--bind",
            "127.0.0.1",
            "--save",
            "",
            "--appendonly",
            "no",
            "--protected-mode",
            "no"),
        port,
        log,
        "*1\r\n$4\r\nPING\r\n",
        "+PONG");
  }

  /**
   * memcached with items up to 16 MiB (a 4 MiB value needs more than 1 MiB), room for every
   * workload's items in every slab class at once (a run with -m 2048 once lost a key of the 64 KiB
   * batch workload after the larger workloads had taken their pages; memcached allocates as it
   * stores, so the larger cap costs nothing until used), and its slab automover off. With the
   * automover on, memcached moved pages between slab classes and evicted the items on them that it
   * could not rescue even with 8 GiB of room: a {@code --quick} run lost a 64 KiB batch key in its
   * first round with {@code slabs_moved=2 slab_reassign_evictions_nomem=14 evictions=0}, and full
   * runs lost a value in 3 of about 30.
   */
  static PeerServer memcached(Path binary, Path log) throws IOException, InterruptedException {
    return memcached(binary, log, 8192);
  }

  /**
   * memcached as above with a cap of {@code megabytes} for its items (at least 32: twice the
   * largest item).
   */
  static PeerServer memcached(Path binary, Path log, int megabytes)
      throws IOException, InterruptedException {
    int port = FreePorts.take();
    List<String> args =
        new ArrayList<>(
            List.of(
                binary.toString(),
                "-l",
                "127.0.0.1",
                "-p",
                Integer.toString(port),
                "-U",
                "0",
                "-m",
                Integer.toString(megabytes),
                "-I",
                "16m",
                "-c",
                "1024",
                "-o",
                "slab_automove=0"));
    if ("root".equals(System.getProperty("user.name"))) {
      args.addAll(List.of("-u", "root"));
    }
    return start("memcached", args, port, log, "version\r\n", "VERSION");
  }

  private static PeerServer start(
      String name, List<String> command, int port, Path log, String probe, String answer)
      throws IOException, InterruptedException {
    Process p =
        new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    PeerServer server = new PeerServer(name, p, new InetSocketAddress("127.0.0.1", port));
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
    while (true) {
      try (TextConnection c = new TextConnection(server.address)) {
        c.begin().ascii(probe).send();
        String line = c.readLine();
        if (line.startsWith(answer)) {
          return server;
        }
        throw new IOException(name + " answered '" + line + "'");
      } catch (IOException notYet) {
        if (!p.isAlive() || System.nanoTime() > deadline) {
          server.close();
          throw new IOException(
              name
                  + " did not start on port "
                  + port
                  + " (see "
                  + log
                  + "): "
                  + notYet.getMessage());
        }
        Thread.sleep(50);
      }
    }
  }

  InetSocketAddress address() {
    return address;
  }

  ProcessHandle handle() {
    return process.toHandle();
  }

  @Override
  public void close() {
    try {
      Runtime.getRuntime().removeShutdownHook(shutdownHook);
    } catch (IllegalStateException shuttingDown) {
      // the hook stops it
    }
    process.destroy();
    try {
      if (!process.waitFor(5, TimeUnit.SECONDS)) {
        process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      process.destroyForcibly();
      Thread.currentThread().interrupt();
    }
  }

  @Override
  public String toString() {
    return name + "@" + address;
  }
}
