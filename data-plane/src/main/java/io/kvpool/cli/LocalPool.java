package io.kvpool.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A kvpool on this machine: one master and N storage nodes, each a separate JVM on 127.0.0.1 with
 * ephemeral ports, logs in files under one folder. Shared by {@code kvpool demo|local|bench} and the
 * integration tests so that both exercise the same launch path.
 *
 * <p>Never leaves orphans: {@link #close()} stops every child, and a shutdown hook does the same when
 * the JVM exits on Ctrl-C or an uncaught error.
 */
public final class LocalPool implements AutoCloseable {

  private static final String MASTER_MAIN = "io.kvpool.master.MasterMain";
  private static final String STORAGE_MAIN = "io.kvpool.storage.StorageNodeMain";

  private final LocalPoolConfig config;
  private final Thread shutdownHook = new Thread(this::stopAll, "kvpool-local-pool-shutdown");
  private final Map<String, StorageNodeProcess> nodes = new LinkedHashMap<>();
  private PoolProcess master;
  private String masterRpc;
  private String masterAdmin;
  /** Every process ever launched, readable without the pool's lock so the shutdown hook never waits on it. */
  private final List<PoolProcess> launched = new CopyOnWriteArrayList<>();
  private final AtomicBoolean closed = new AtomicBoolean();
  private int nextNodeNumber = 1;

  private LocalPool(LocalPoolConfig config) {
    this.config = config;
  }

  public static LocalPoolConfig.Builder builder() {
    return LocalPoolConfig.builder();
  }

  /** Starts the master, then all storage nodes in parallel, and waits until every one is ready. */
  public static LocalPool start(LocalPoolConfig config) {
    LocalPool pool = new LocalPool(config);
    Runtime.getRuntime().addShutdownHook(pool.shutdownHook);
    try {
      Files.createDirectories(config.logDir());
      pool.startMaster();
      List<String> ids = new ArrayList<>();
      for (int i = 0; i < config.storageNodes(); i++) {
        ids.add(pool.nextNodeId());
      }
      pool.startStorageNodes(ids);
      return pool;
    } catch (IOException e) {
      pool.close();
      throw new PoolProcessException("cannot create log folder " + config.logDir() + ": " + e.getMessage(), e);
    } catch (RuntimeException e) {
      pool.close();
      throw e;
    }
  }

  private void startMaster() {
    List<String> args = new ArrayList<>(List.of(
        "--pool-id", config.poolId(), "--host", "127.0.0.1", "--port", "0", "--admin-port", "0",
        "--node-ttl", config.nodeTtl(), "--lease-ttl", config.leaseTtl()));
    args.addAll(config.masterOptions());
    master = track(PoolProcess.launch("master", javaCommand(MASTER_MAIN, args), config.logDir().resolve("master.log")));
    ReadyLine ready = master.awaitReady(config.readyTimeout());
    masterRpc = ready.require("rpc");
    masterAdmin = ready.require("admin");
  }

  private synchronized String nextNodeId() {
    return "node-" + nextNodeNumber++;
  }

  /** Starts (or restarts after a kill) the storage node with this id. */
  public StorageNodeProcess startStorageNode(String id) {
    return startStorageNodes(List.of(id)).get(0);
  }

  private synchronized List<StorageNodeProcess> startStorageNodes(List<String> ids) {
    requireOpen();
    List<PoolProcess> processes = new ArrayList<>();
    for (String id : ids) {
      Optional.ofNullable(nodes.get(id)).filter(n -> n.process().isAlive()).ifPresent(n -> {
        throw new PoolProcessException("storage node " + id + " is already running (pid "
            + n.process().pid() + "); kill or stop it before starting it again");
      });
      List<String> args = new ArrayList<>(List.of(
          "--master", masterRpc, "--node-id", id, "--host", "127.0.0.1", "--port", "0",
          "--admin-port", "0", "--memory", config.memoryPerNode(), "--heartbeat", config.heartbeat()));
      args.addAll(config.storageOptions());
      PoolProcess process = track(PoolProcess.launch("storage " + id, javaCommand(STORAGE_MAIN, args),
          config.logDir().resolve(id + ".log")));
      nodes.put(id, new StorageNodeProcess(id, process, null, null));
      processes.add(process);
    }
    List<StorageNodeProcess> started = new ArrayList<>();
    for (int i = 0; i < ids.size(); i++) {
      ReadyLine ready = processes.get(i).awaitReady(config.readyTimeout());
      StorageNodeProcess node = new StorageNodeProcess(ids.get(i), processes.get(i),
          ready.require("rpc"), ready.require("admin"));
      nodes.put(node.id(), node);
      started.add(node);
    }
    return started;
  }

  /** Registers a child for shutdown; a child launched while the pool closes is stopped at once. */
  private PoolProcess track(PoolProcess process) {
    launched.add(process);
    if (closed.get()) {
      process.kill();
      throw new PoolProcessException("local pool closed while " + process.name() + " was starting");
    }
    return process;
  }

  private List<String> javaCommand(String mainClass, List<String> args) {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(config.jvmOptions());
    command.add("-cp");
    command.add(config.classpath());
    command.add(mainClass);
    command.addAll(args);
    return command;
  }

  /** Master RPC endpoint, HOST:PORT, for {@code ClientConfig.master(...)}. */
  public String masterAddress() {
    return masterRpc;
  }

  /** Master admin HTTP endpoint, HOST:PORT. */
  public String adminAddress() {
    return masterAdmin;
  }

  public PoolProcess master() {
    return master;
  }

  public synchronized List<StorageNodeProcess> storageNodes() {
    return List.copyOf(nodes.values());
  }

  public synchronized StorageNodeProcess storageNode(String id) {
    StorageNodeProcess node = nodes.get(id);
    if (node == null) {
      throw new PoolProcessException("no storage node '" + id + "' in this pool; known: " + nodes.keySet());
    }
    return node;
  }

  public Path logDir() {
    return config.logDir();
  }

  /** Every process of the pool that has exited, with its exit code (empty when all run). */
  public synchronized List<String> exitedProcesses() {
    List<String> exited = new ArrayList<>();
    master.exitCode().ifPresent(code -> exited.add("master exit=" + code));
    nodes.values().forEach(n -> n.process().exitCode().ifPresent(code -> exited.add(n.id() + " exit=" + code)));
    return exited;
  }

  /** The last lines of every process log, for failure reports. */
  public synchronized String logTails(int lines) {
    StringBuilder out = new StringBuilder();
    List<PoolProcess> all = new ArrayList<>();
    if (master != null) {
      all.add(master);
    }
    nodes.values().forEach(n -> all.add(n.process()));
    for (PoolProcess process : all) {
      out.append("----- ").append(process).append(" log ").append(process.logFile()).append(" -----\n")
          .append(process.logTail(lines)).append('\n');
    }
    return out.toString();
  }

  private void requireOpen() {
    if (closed.get()) {
      throw new PoolProcessException("local pool is closed; start a new one");
    }
  }

  /** Stops every process (SIGTERM, then SIGKILL after a grace period) and waits until all exited. */
  @Override
  public void close() {
    stopAll();
    try {
      Runtime.getRuntime().removeShutdownHook(shutdownHook);
    } catch (IllegalStateException alreadyShuttingDown) {
      // the hook is running or about to: it does the same work
    }
  }

  private void stopAll() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    // signal all first so they shut down in parallel, then wait for each
    launched.forEach(PoolProcess::requestStop);
    launched.forEach(PoolProcess::stop);
  }
}
