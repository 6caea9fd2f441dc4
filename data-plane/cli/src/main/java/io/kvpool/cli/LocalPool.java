package io.kvpool.cli;

import io.kvpool.admin.MasterStatus;
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
import java.util.stream.Collectors;

/**
 * A kvpool on this machine: one master (or three electing a leader on an API server's Lease) and N
 * storage nodes, each a separate JVM on 127.0.0.1, logs in files under one folder. Masters keep
 * their ports across restarts, so the endpoint list storage nodes and clients are given stays
 * valid. Shared by {@code kvpool demo|local|bench} and the integration tests so that both exercise
 * the same launch path.
 *
 * <p>Never leaves orphans: {@link #close()} stops every child, and a shutdown hook does the same
 * when the JVM exits on Ctrl-C or an uncaught error.
 */
public final class LocalPool implements AutoCloseable {

  private static final String MASTER_MAIN = "io.kvpool.master.MasterMain";
  private static final String STORAGE_MAIN = "io.kvpool.storage.StorageNodeMain";

  /**
   * One master of the pool: its fixed ports, and the process currently running it (null once
   * killed).
   */
  public static final class MasterProcess {
    private final int index;
    private final String host;
    private final int rpcPort;
    private final int adminPort;
    private volatile PoolProcess process;

    MasterProcess(int index, String host, int rpcPort, int adminPort) {
      this.index = index;
      this.host = host;
      this.rpcPort = rpcPort;
      this.adminPort = adminPort;
    }

    public int index() {
      return index;
    }

    public String rpcAddress() {
      return new io.kvpool.common.HostPort(host, rpcPort).toString();
    }

    public String adminAddress() {
      return new io.kvpool.common.HostPort(host, adminPort).toString();
    }

    public PoolProcess process() {
      return process;
    }
  }

  private final LocalPoolConfig config;
  private final Thread shutdownHook = new Thread(this::stopAll, "kvpool-local-pool-shutdown");
  private final Map<String, StorageNodeProcess> nodes = new LinkedHashMap<>();
  private final List<MasterProcess> masters = new ArrayList<>();

  /**
   * Every process ever launched, readable without the pool's lock so the shutdown hook never waits
   * on it.
   */
  private final List<PoolProcess> launched = new CopyOnWriteArrayList<>();

  private final AtomicBoolean closed = new AtomicBoolean();
  private int nextNodeNumber = 1;

  private LocalPool(LocalPoolConfig config) {
    this.config = config;
  }

  public static LocalPoolConfig.Builder builder() {
    return LocalPoolConfig.builder();
  }

  /**
   * Starts the masters, then all storage nodes in parallel, waits until every one is ready and the
   * leader has finished recovering (so the pool evicts and answers misses as final from the start).
   */
  public static LocalPool start(LocalPoolConfig config) {
    LocalPool pool = new LocalPool(config);
    Runtime.getRuntime().addShutdownHook(pool.shutdownHook);
    try {
      Files.createDirectories(config.logDir());
      pool.startMasters();
      List<String> ids = new ArrayList<>();
      for (int i = 0; i < config.storageNodes(); i++) {
        ids.add(pool.nextNodeId());
      }
      pool.startStorageNodes(ids);
      pool.awaitServingLeader(config.readyTimeout());
      return pool;
    } catch (IOException e) {
      pool.close();
      throw new PoolProcessException(
          "cannot create log folder " + config.logDir() + ": " + e.getMessage(), e);
    } catch (RuntimeException e) {
      pool.close();
      throw e;
    }
  }

  private void startMasters() throws IOException {
    for (int i = 0; i < config.masters(); i++) {
      masters.add(new MasterProcess(i, config.advertiseHost(), FreePorts.take(), FreePorts.take()));
    }
    for (MasterProcess m : masters) {
      launchMaster(m);
    }
    for (MasterProcess m : masters) {
      m.process.awaitReady(config.readyTimeout());
    }
  }

  private void launchMaster(MasterProcess m) {
    List<String> args =
        new ArrayList<>(
            List.of(
                "--pool-id",
                config.poolId(),
                "--host",
                config.bindHost(),
                "--advertise-host",
                config.advertiseHost(),
                "--port",
                Integer.toString(m.rpcPort),
                "--admin-port",
                Integer.toString(m.adminPort),
                "--node-ttl",
                config.nodeTtl(),
                "--lease-ttl",
                config.leaseTtl()));
    Map<String, String> env = new LinkedHashMap<>(config.childEnv());
    config
        .election()
        .ifPresent(
            e -> {
              args.addAll(
                  List.of(
                      "--leader-lease",
                      e.leaseName(),
                      "--namespace",
                      e.namespace(),
                      "--election-lease",
                      e.leaseDuration(),
                      "--master-replicas",
                      Integer.toString(config.masters())));
              if (!e.masterPodPrefix().isEmpty()) {
                args.addAll(List.of("--pod-name", e.masterPodPrefix() + "-" + m.index));
              }
              env.put("KUBECONFIG", e.kubeconfig().toString());
            });
    args.addAll(config.masterOptions());
    String name = "master-" + m.index;
    m.process =
        track(
            PoolProcess.launch(
                name, javaCommand(MASTER_MAIN, args), env, config.logDir().resolve(name + ".log")));
  }

  /**
   * Restarts a master (after a kill) on its ports; returns once it serves (as leader or standby).
   */
  public MasterProcess restartMaster(int index) {
    requireOpen();
    MasterProcess m = masters.get(index);
    if (m.process != null && m.process.isAlive()) {
      throw new PoolProcessException("master " + index + " is still running; kill it first");
    }
    launchMaster(m);
    m.process.awaitReady(config.readyTimeout());
    return m;
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
      Optional.ofNullable(nodes.get(id))
          .filter(n -> n.process().isAlive())
          .ifPresent(
              n -> {
                throw new PoolProcessException(
                    "storage node "
                        + id
                        + " is already running (pid "
                        + n.process().pid()
                        + "); kill or stop it before starting it again");
              });
      List<String> args =
          new ArrayList<>(
              List.of(
                  "--master",
                  masterAddress(),
                  "--node-id",
                  id,
                  "--host",
                  config.bindHost(),
                  "--advertise-host",
                  config.advertiseHost(),
                  "--port",
                  "0",
                  "--admin-port",
                  "0",
                  "--memory",
                  config.memoryPerNode(),
                  "--heartbeat",
                  config.heartbeat()));
      args.addAll(config.storageOptions());
      if (config.memoryDirs().isPresent()) {
        // the node keeps its files in a folder named after its id under this one (KVPOOL_MEMORY_DIR
        // in a pod)
        args.addAll(List.of("--memory-dir", config.memoryDirs().get().toString()));
      }
      PoolProcess process =
          track(
              PoolProcess.launch(
                  "storage " + id,
                  javaCommand(STORAGE_MAIN, args),
                  config.childEnv(),
                  config.logDir().resolve(id + ".log")));
      nodes.put(id, new StorageNodeProcess(id, process, null, null));
      processes.add(process);
    }
    List<StorageNodeProcess> started = new ArrayList<>();
    for (int i = 0; i < ids.size(); i++) {
      ReadyLine ready = processes.get(i).awaitReady(config.readyTimeout());
      StorageNodeProcess node =
          new StorageNodeProcess(
              ids.get(i), processes.get(i), ready.require("rpc"), ready.require("admin"));
      nodes.put(node.id(), node);
      started.add(node);
    }
    return started;
  }

  /**
   * The folder of a storage node's memory files (its id under {@code --memory-dir}), when the pool
   * has them.
   */
  public Optional<Path> memoryDir(String nodeId) {
    return config.memoryDirs().map(root -> root.resolve(nodeId));
  }

  /** Waits until some master leads and serves (its recovery over); returns it. */
  public MasterProcess awaitServingLeader(java.time.Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (true) {
      for (MasterProcess m : masters) {
        if (m.process == null || !m.process.isAlive()) {
          continue;
        }
        try {
          MasterStatus status = new AdminApi(m.adminAddress()).masterStatus();
          if (status.serving()) {
            return m;
          }
        } catch (AdminApi.AdminApiException notUpYet) {
          // starting, or killed a moment ago: ask the others
        }
      }
      if (System.nanoTime() - deadline > 0) {
        throw new PoolProcessException(
            "no master of "
                + masterAddress()
                + " leads and serves after "
                + timeout.toSeconds()
                + " s; logs in "
                + config.logDir(),
            logTails(20));
      }
      try {
        Thread.sleep(50); // polling the admin API: there is no event to wait on across processes
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new PoolProcessException("interrupted while waiting for a leader", e);
      }
    }
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

  /**
   * Every master's RPC endpoint, {@code HOST:PORT[,HOST:PORT...]}, for {@code
   * ClientConfig.master(...)}.
   */
  public String masterAddress() {
    return masters.stream().map(MasterProcess::rpcAddress).collect(Collectors.joining(","));
  }

  /** The RPC endpoint of the master that leads now (HOST:PORT). */
  public String leaderAddress() {
    return awaitServingLeader(config.readyTimeout()).rpcAddress();
  }

  /** The admin HTTP endpoint of the master that leads now (HOST:PORT). */
  public String adminAddress() {
    return awaitServingLeader(config.readyTimeout()).adminAddress();
  }

  public List<MasterProcess> masters() {
    return List.copyOf(masters);
  }

  /** The first master's process (the only one without election). */
  public PoolProcess master() {
    return masters.get(0).process;
  }

  public synchronized List<StorageNodeProcess> storageNodes() {
    return List.copyOf(nodes.values());
  }

  public synchronized StorageNodeProcess storageNode(String id) {
    StorageNodeProcess node = nodes.get(id);
    if (node == null) {
      throw new PoolProcessException(
          "no storage node '" + id + "' in this pool; known: " + nodes.keySet());
    }
    return node;
  }

  public Path logDir() {
    return config.logDir();
  }

  /** Every process of the pool that has exited, with its exit code (empty when all run). */
  public synchronized List<String> exitedProcesses() {
    List<String> exited = new ArrayList<>();
    masters.forEach(
        m ->
            m.process
                .exitCode()
                .ifPresent(code -> exited.add("master-" + m.index + " exit=" + code)));
    nodes
        .values()
        .forEach(
            n -> n.process().exitCode().ifPresent(code -> exited.add(n.id() + " exit=" + code)));
    return exited;
  }

  /** The last lines of every process log, for failure reports. */
  public synchronized String logTails(int lines) {
    StringBuilder out = new StringBuilder();
    List<PoolProcess> all = new ArrayList<>();
    masters.stream().map(MasterProcess::process).filter(p -> p != null).forEach(all::add);
    nodes.values().forEach(n -> all.add(n.process()));
    for (PoolProcess process : all) {
      out.append("----- ")
          .append(process)
          .append(" log ")
          .append(process.logFile())
          .append(" -----\n")
          .append(process.logTail(lines))
          .append('\n');
    }
    return out.toString();
  }

  private void requireOpen() {
    if (closed.get()) {
      throw new PoolProcessException("local pool is closed; start a new one");
    }
  }

  /**
   * Stops every process (SIGTERM, then SIGKILL after a grace period) and waits until all exited.
   */
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
