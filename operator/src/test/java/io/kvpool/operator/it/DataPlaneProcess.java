package io.kvpool.operator.it;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A real data-plane process (master or storage node) started from the packaged data plane
 * ({@code data-plane/target/kvpool-data-plane-*.jar} + {@code target/lib/*}) on 127.0.0.1 with ephemeral ports;
 * it counts as started once it prints its {@code KVPOOL_READY} line.
 */
final class DataPlaneProcess implements AutoCloseable {
  private final Process process;
  private final String rpc;
  private final URI adminBase;

  private DataPlaneProcess(Process process, String rpc, URI adminBase) {
    this.process = process;
    this.rpc = rpc;
    this.adminBase = adminBase;
  }

  static DataPlaneProcess master(String poolId) throws IOException {
    return start("io.kvpool.master.MasterMain", "--pool-id", poolId, "--host", "127.0.0.1", "--port", "0",
        "--admin-port", "0");
  }

  static DataPlaneProcess storage(String masterRpc, String nodeId, String memory) throws IOException {
    return start("io.kvpool.storage.StorageNodeMain", "--master", masterRpc, "--node-id", nodeId, "--host",
        "127.0.0.1", "--port", "0", "--admin-port", "0", "--memory", memory);
  }

  /** Runs the kvpool CLI ({@code io.kvpool.cli.KvPoolCli}) to completion; returns its output. */
  static String cli(String... args) throws IOException, InterruptedException {
    List<String> command = new ArrayList<>(List.of(java().toString(), "-Xmx128m", "-cp", classpath(),
        "io.kvpool.cli.KvPoolCli"));
    command.addAll(List.of(args));
    Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
    String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!process.waitFor(60, TimeUnit.SECONDS) || process.exitValue() != 0) {
      process.destroyForcibly();
      throw new IllegalStateException("kvpool " + String.join(" ", args) + " failed: " + output);
    }
    return output;
  }

  private static Path java() {
    return Path.of(System.getProperty("java.home"), "bin", "java");
  }

  private static String classpath() {
    Path target = Path.of(System.getProperty("kvpool.dataPlaneDir", "../data-plane/target")).toAbsolutePath()
        .normalize();
    Path jar;
    try (Stream<Path> files = Files.list(target)) {
      jar = files.filter(p -> p.getFileName().toString().matches("kvpool-data-plane-.*\\.jar")
          && !p.getFileName().toString().contains("-tests")).findFirst().orElse(null);
    } catch (IOException e) {
      jar = null;
    }
    if (jar == null || !Files.isDirectory(target.resolve("lib"))) {
      throw new IllegalStateException("no packaged data plane under " + target + " (expected kvpool-data-plane-*.jar"
          + " and lib/); build it first: ./mvnw -pl data-plane -am package -DskipTests");
    }
    return jar + ":" + target.resolve("lib") + "/*";
  }

  private static DataPlaneProcess start(String mainClass, String... args) throws IOException {
    List<String> command = new ArrayList<>(List.of(java().toString(), "-Xmx128m", "-cp", classpath(), mainClass));
    command.addAll(List.of(args));
    ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
    Process process = builder.start();
    List<String> output = new ArrayList<>();
    CompletableFuture<String> ready = new CompletableFuture<>();
    Thread reader = new Thread(() -> {
      try (BufferedReader lines = new BufferedReader(new InputStreamReader(process.getInputStream(),
          StandardCharsets.UTF_8))) {
        String line;
        while ((line = lines.readLine()) != null) {
          synchronized (output) {
            output.add(line);
          }
          if (line.startsWith("KVPOOL_READY ")) {
            ready.complete(line);
          }
        }
        ready.completeExceptionally(new IllegalStateException(mainClass + " exited before KVPOOL_READY: " + output));
      } catch (IOException e) {
        ready.completeExceptionally(e);
      }
    }, "data-plane-output");
    reader.setDaemon(true);
    reader.start();
    try {
      String line = ready.get(60, TimeUnit.SECONDS);
      return new DataPlaneProcess(process, field(line, "rpc"), URI.create("http://" + field(line, "admin")));
    } catch (Exception e) {
      process.destroyForcibly();
      throw new IllegalStateException(mainClass + " did not print KVPOOL_READY within 60 s; output: " + output, e);
    }
  }

  private static String field(String readyLine, String name) {
    for (String word : readyLine.split("\\s+")) {
      if (word.startsWith(name + "=")) {
        return word.substring(name.length() + 1);
      }
    }
    throw new IllegalStateException("ready line lacks " + name + "=: " + readyLine);
  }

  String rpc() {
    return rpc;
  }

  URI adminBase() {
    return adminBase;
  }

  /** kill -9: the address stops answering at once. */
  void kill() throws InterruptedException {
    process.destroyForcibly();
    process.waitFor(10, TimeUnit.SECONDS);
  }

  @Override
  public void close() throws InterruptedException {
    process.destroy();
    if (!process.waitFor(10, TimeUnit.SECONDS)) {
      process.destroyForcibly();
      process.waitFor(10, TimeUnit.SECONDS);
    }
  }
}
