package io.kvpool.bench;

import java.io.File;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/** A throw-away {@code redis-server} on 127.0.0.1 (no persistence) when one is installed on this machine. */
final class RedisServer implements AutoCloseable {

  private final Process process;
  private final InetSocketAddress address;
  /** Stops the server when the benchmark is interrupted with Ctrl-C. */
  private final Thread shutdownHook;

  private RedisServer(Process process, InetSocketAddress address) {
    this.process = process;
    this.address = address;
    this.shutdownHook = new Thread(process::destroyForcibly, "redis-server-shutdown");
    Runtime.getRuntime().addShutdownHook(shutdownHook);
  }

  /** The {@code redis-server} binary on PATH, if any. */
  static Optional<Path> findBinary() {
    String path = System.getenv().getOrDefault("PATH", "");
    for (String dir : path.split(File.pathSeparator)) {
      Path candidate = Path.of(dir.isEmpty() ? "." : dir, "redis-server");
      if (Files.isExecutable(candidate)) {
        return Optional.of(candidate);
      }
    }
    return Optional.empty();
  }

  static RedisServer start(Path binary, Path logFile) throws IOException, InterruptedException {
    int port;
    try (ServerSocket probe = new ServerSocket(0)) {
      port = probe.getLocalPort();
    }
    Process process = new ProcessBuilder(List.of(binary.toString(), "--port", Integer.toString(port),
        "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--protected-mode", "no"))
        .redirectErrorStream(true).redirectOutput(logFile.toFile()).start();
    RedisServer server = new RedisServer(process, new InetSocketAddress("127.0.0.1", port));
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (true) {
      try (RespConnection connection = new RespConnection(server.address)) {
        connection.ping();
        return server;
      } catch (IOException notYet) {
        if (!process.isAlive() || System.nanoTime() > deadline) {
          server.close();
          throw new IOException("redis-server did not answer PING on port " + port + "; see " + logFile, notYet);
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
    } catch (IllegalStateException alreadyShuttingDown) {
      // the hook is stopping the server already
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
}
