package io.kvpool.bench.compare;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A target driven from Python by {@code bench/agent.py} (the kvpool Python client, Mooncake Store):
 * the agent runs one worker process per client and answers each phase with its operations, wall
 * time and latency percentiles; the CPU time of its processes is read here, as for every other
 * target.
 */
final class AgentTarget implements Target {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final String name;
  private final Family family;
  private final String description;
  private final Process process;
  private final BufferedReader reader;
  private final Writer in;
  private final Cpu cpu;
  private final Map<String, List<Long>> pids;
  private final List<String[]> pending = new ArrayList<>(); // prefix, clients, keys

  private AgentTarget(
      String name,
      Family family,
      String description,
      Process process,
      BufferedReader reader,
      Map<String, List<Long>> pids,
      Map<String, List<ProcessHandle>> extraCpu) {
    this.name = name;
    this.family = family;
    this.description = description;
    this.process = process;
    this.reader = reader;
    this.in = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
    this.pids = pids;
    Map<String, List<ProcessHandle>> groups = new LinkedHashMap<>();
    pids.forEach(
        (g, list) ->
            groups.put(g, list.stream().map(p -> ProcessHandle.of(p).orElseThrow()).toList()));
    groups.putAll(extraCpu);
    this.cpu = new Cpu(groups);
  }

  /**
   * Starts {@code command} (an agent) and waits for its ready line; {@code extraCpu} are processes
   * of the target that the agent did not start (a kvpool pool's master and storage nodes).
   */
  static AgentTarget start(
      String name,
      Family family,
      String description,
      List<String> command,
      Map<String, String> env,
      Path log,
      Map<String, List<ProcessHandle>> extraCpu)
      throws IOException, InterruptedException {
    ProcessBuilder pb =
        new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.appendTo(log.toFile()));
    pb.environment().putAll(env);
    Process p = pb.start();
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  p.descendants().forEach(ProcessHandle::destroyForcibly);
                  p.destroyForcibly();
                }));
    BufferedReader reader =
        new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
    String line;
    try {
      line =
          CompletableFuture.supplyAsync(
                  () -> {
                    try {
                      return reader.readLine();
                    } catch (IOException e) {
                      return null;
                    }
                  })
              .get(180, TimeUnit.SECONDS);
    } catch (TimeoutException | java.util.concurrent.ExecutionException e) {
      p.destroyForcibly();
      throw new IOException(name + ": the agent did not get ready within 180 s (see " + log + ")");
    }
    if (line == null) {
      throw new IOException(
          name
              + ": the agent ended before it was ready (exit code "
              + (p.waitFor(5, TimeUnit.SECONDS) ? p.exitValue() : -1)
              + "; see "
              + log
              + ")");
    }
    JsonNode ready = JSON.readTree(line);
    Map<String, List<Long>> pids = new LinkedHashMap<>();
    ready
        .get("pids")
        .fields()
        .forEachRemaining(
            e -> {
              List<Long> list = new ArrayList<>();
              e.getValue().forEach(n -> list.add(n.asLong()));
              pids.put(e.getKey(), list);
            });
    return new AgentTarget(name, family, description, p, reader, pids, extraCpu);
  }

  /** Sends one command line to the agent and returns its answer (an error answer throws). */
  JsonNode command(ObjectNode command) throws IOException {
    return call(command);
  }

  private synchronized JsonNode call(ObjectNode command) throws IOException {
    in.write(JSON.writeValueAsString(command));
    in.write('\n');
    in.flush();
    String line = reader.readLine();
    if (line == null) {
      throw new IOException(name + ": the agent ended (see its log)");
    }
    JsonNode reply = JSON.readTree(line);
    if (reply.has("error")) {
      throw new IOException(name + ": " + reply.get("error").asText());
    }
    return reply;
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public Family family() {
    return family;
  }

  @Override
  public String description() {
    return description;
  }

  @Override
  public boolean supports(Workload w) {
    return w.kind() != Workload.Kind.META;
  }

  @Override
  public List<Measurement> run(Workload w, int round, Phase phase) throws Exception {
    removePending();
    boolean batch = w.kind() == Workload.Kind.BATCH;
    String prefix = "cmp/" + name + "/" + w.id() + "/r" + round;
    int keys = phase.keysPerClient(w);
    ObjectNode cmd =
        JSON.createObjectNode()
            .put("op", batch ? "bput" : "put")
            .put("clients", w.clients())
            .put("size", w.valueSize())
            .put("keys", keys)
            .put("batch", w.batch())
            .put("prefix", prefix)
            .put("put_max", phase.putMaxSeconds())
            .put("seconds", phase.getSeconds());
    Cpu.Reading before = cpu.start();
    JsonNode put = call(cmd);
    Cpu.Reading after = cpu.end();
    Measurement putM =
        measurement(w, round, "put", put, Cpu.perOp(before, after, put.get("ops").asLong()));
    int stored = Integer.MAX_VALUE;
    for (JsonNode n : put.get("counts")) {
      stored = Math.min(stored, n.asInt() * (batch ? w.batch() : 1));
    }
    pending.add(new String[] {prefix, Integer.toString(w.clients()), Integer.toString(keys)});
    cmd.put("op", batch ? "bget" : "get").put("keys", stored);
    before = cpu.start();
    JsonNode get = call(cmd);
    after = cpu.end();
    Measurement getM =
        measurement(w, round, "get", get, Cpu.perOp(before, after, get.get("ops").asLong()));
    return List.of(putM, getM);
  }

  private Measurement measurement(Workload w, int round, String op, JsonNode r, CpuPerOp cpuPerOp) {
    long ops = r.get("ops").asLong();
    double[] lat = new double[4];
    for (int i = 0; i < 4; i++) {
      lat[i] = r.get("lat_us").get(i).asDouble();
    }
    return new Measurement(
        w.id(),
        name,
        op,
        round,
        ops,
        ops * w.bytesPerOp(),
        r.get("wall_ns").asLong(),
        lat,
        cpuPerOp,
        Map.of());
  }

  private void removePending() throws IOException {
    for (String[] p : pending) {
      call(
          JSON.createObjectNode()
              .put("op", "remove")
              .put("prefix", p[0])
              .put("clients", Integer.parseInt(p[1]))
              .put("keys", Integer.parseInt(p[2]))
              .put("size", 0));
    }
    pending.clear();
  }

  /** The agent's own processes by group, for the report. */
  Map<String, List<Long>> pids() {
    return pids;
  }

  @Override
  public void close() {
    try {
      removePending();
      in.write("{\"op\": \"exit\"}\n");
      in.flush();
      if (!process.waitFor(30, TimeUnit.SECONDS)) {
        process.descendants().forEach(ProcessHandle::destroy);
        process.destroy();
      }
    } catch (IOException | InterruptedException e) {
      process.descendants().forEach(ProcessHandle::destroyForcibly);
      process.destroyForcibly();
    }
  }
}
