package io.kvpool.testkube.kubelet;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerStateBuilder;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.ContainerStatusBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.PodConditionBuilder;
import io.fabric8.kubernetes.api.model.PodIP;
import io.fabric8.kubernetes.api.model.PodStatus;
import io.fabric8.kubernetes.api.model.PodStatusBuilder;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A kubelet (and StatefulSet controller) for tests against a bare kube-apiserver: the pods of one
 * namespace run as real processes of this machine, each in a network namespace of its own with its
 * own address, from exactly the pod spec the API server holds — command, args, env (downward API,
 * ConfigMaps, Secrets), volumes bind-mounted at their paths, a real service-account token,
 * readiness probes — and their status (phase, pod IP, readiness, restarts, waiting reasons) is
 * written back as a kubelet writes it. Images are looked up in a table: an unknown image leaves the
 * pod waiting with {@code ErrImageNeverPull} or {@code ImagePullBackOff}. A deleted pod's process
 * gets SIGTERM and its grace period; a container that exits is restarted with back-off, except
 * under {@code restartPolicy: Never} (or {@code OnFailure} after exit code 0): the pod then ends
 * Succeeded or Failed, and what the container wrote to its termination message file ({@code
 * terminationMessagePath}) is its terminated state's message.
 *
 * <p>Not simulated: Services' cluster IPs (pods resolve the API server and the headless-Service
 * names of pods, {@code <pod>.<subdomain>.<ns>.svc}, through a generated /etc/hosts), liveness
 * probes, resource limits, init and multiple containers, host networking. Needs root and iproute2
 * (CI has both); the API server must listen on all addresses so pods can reach it.
 */
public final class ProcessKubelet implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(ProcessKubelet.class);
  private static final Duration PASS = Duration.ofMillis(300);

  private final KubernetesClient client;
  private final String namespace;
  private final Map<String, ContainerImage> images;
  private final PodNetwork network;
  private final Path workDir;
  private final byte[] caCertificate;
  private final int apiPort;
  private final StatefulSetPods statefulSets;
  private final Map<String, PodState> pods = new ConcurrentHashMap<>();
  private final ScheduledExecutorService loop;
  private volatile RuntimeException failure;
  private String hosts = "";

  private ProcessKubelet(
      KubernetesClient client,
      String namespace,
      Map<String, ContainerImage> images,
      PodNetwork network,
      Path workDir) {
    this.client = client;
    this.namespace = namespace;
    this.images = Map.copyOf(images);
    this.network = network;
    this.workDir = workDir;
    this.caCertificate = caCertificate(client);
    this.apiPort = URI.create(client.getMasterUrl().toString()).getPort();
    this.statefulSets = new StatefulSetPods(client, namespace);
    this.loop =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "test-kubelet-" + namespace);
              t.setDaemon(true);
              return t;
            });
  }

  /**
   * Starts running the pods (and StatefulSets) of {@code namespace}; images the pods may use are in
   * {@code images}.
   */
  public static ProcessKubelet start(
      KubernetesClient client, String namespace, Map<String, ContainerImage> images) {
    Path workDir;
    try {
      workDir = Files.createTempDirectory("kvpool-kubelet-" + namespace + "-");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    ProcessKubelet kubelet =
        new ProcessKubelet(client, namespace, images, PodNetwork.create(), workDir);
    Runtime.getRuntime().addShutdownHook(new Thread(kubelet::close, "test-kubelet-stop"));
    kubelet.loop.scheduleWithFixedDelay(kubelet::pass, 0, PASS.toMillis(), TimeUnit.MILLISECONDS);
    LOG.info(
        "event=kubelet_started namespace={} pod_network={} work_dir={}",
        namespace,
        kubelet.network.hostAddress(),
        workDir);
    return kubelet;
  }

  /** The address of a running pod, or null. */
  public String podIp(String pod) {
    PodState s = pods.get(pod);
    return s == null || s.sandbox == null ? null : s.sandbox.address();
  }

  /**
   * {@code kill -9} of a pod's container; the kubelet restarts it as it would a crashed container.
   */
  public void killContainer(String pod) {
    PodState s = pods.get(pod);
    if (s != null && s.process != null) {
      LOG.info("event=container_killed pod={} pid={}", pod, s.process.pid());
      s.process.kill();
    }
  }

  /** The log file of a pod's container (all its restarts). */
  public Path log(String pod) {
    return workDir.resolve(pod).resolve("container.log");
  }

  /** Every pod's state and the last lines of its log: print it when a test fails. */
  public String diagnostics() {
    StringBuilder out =
        new StringBuilder("test kubelet, namespace " + namespace + ", work dir " + workDir + "\n");
    if (failure != null) {
      out.append("kubelet failure: ").append(failure).append('\n');
    }
    for (PodState s : pods.values()) {
      out.append("----- pod ")
          .append(s.name)
          .append(" ip=")
          .append(s.sandbox == null ? "-" : s.sandbox.address())
          .append(" running=")
          .append(s.process != null && s.process.alive())
          .append(" ready=")
          .append(s.ready)
          .append(" restarts=")
          .append(s.restarts)
          .append(" waiting=")
          .append(s.waitingReason)
          .append(' ')
          .append(s.waitingMessage == null ? "" : s.waitingMessage)
          .append('\n');
      try (Stream<String> lines = Files.lines(log(s.name), StandardCharsets.UTF_8)) {
        List<String> all = lines.toList();
        all.subList(Math.max(0, all.size() - 60), all.size())
            .forEach(l -> out.append("  ").append(l).append('\n'));
      } catch (IOException | UncheckedIOException e) {
        out.append("  (no log)\n");
      }
    }
    return out.toString();
  }

  @Override
  public synchronized void close() {
    if (loop.isShutdown()) {
      return;
    }
    loop.shutdownNow();
    try {
      loop.awaitTermination(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    pods.values().forEach(s -> teardown(s, Duration.ofSeconds(5)));
    pods.clear();
    network.close();
    LOG.info("event=kubelet_stopped namespace={}", namespace);
  }

  private void pass() {
    try {
      List<Pod> current = client.pods().inNamespace(namespace).list().getItems();
      for (StatefulSet sts :
          client.apps().statefulSets().inNamespace(namespace).list().getItems()) {
        statefulSets.sync(sts, current);
      }
      current = client.pods().inNamespace(namespace).list().getItems();
      Map<String, Pod> byName = new LinkedHashMap<>();
      current.forEach(p -> byName.put(p.getMetadata().getName(), p));
      for (PodState s : List.copyOf(pods.values())) {
        Pod p = byName.get(s.name);
        if (p == null || !p.getMetadata().getUid().equals(s.uid)) {
          teardown(s, Duration.ofSeconds(1)); // force-deleted or replaced under the same name
          pods.remove(s.name);
        }
      }
      for (Pod p : current) {
        syncPod(p);
      }
      writeHosts(byName);
      failure = null;
    } catch (KubernetesClientException e) {
      if (failure == null) {
        LOG.warn("event=kubelet_pass_failed error=\"{}\"", e.getMessage());
      }
      failure = e;
    } catch (RuntimeException e) {
      LOG.error("event=kubelet_pass_failed", e);
      failure = e;
    }
  }

  private void syncPod(Pod pod) {
    String name = pod.getMetadata().getName();
    PodState s = pods.get(name);
    if (StatefulSetPods.terminating(pod)) {
      if (s != null) {
        long grace =
            pod.getSpec().getTerminationGracePeriodSeconds() == null
                ? 30
                : pod.getSpec().getTerminationGracePeriodSeconds();
        teardown(s, Duration.ofSeconds(grace));
        pods.remove(name);
      }
      client.pods().inNamespace(namespace).withName(name).withGracePeriod(0).delete();
      return;
    }
    if (s == null) {
      s = new PodState(name, pod.getMetadata().getUid());
      pods.put(name, s);
      start(s, pod);
    } else if (s.process != null && !s.process.alive() && ends(pod, s.process.exitCode())) {
      s.lastExitCode = s.process.exitCode();
      s.process = null;
      s.startable = false;
      s.completed = true;
      s.terminationMessage = terminationMessage(s, pod);
      LOG.info("event=container_completed pod={} exit_code={}", name, s.lastExitCode);
    } else if (s.process != null && !s.process.alive()) {
      s.restarts++;
      s.lastExitCode = s.process.exitCode();
      s.process = null;
      long backoff = Math.min(10_000, 500L << Math.min(5, s.restarts - 1));
      s.restartAt = System.nanoTime() + backoff * 1_000_000;
      s.waitingReason = s.restarts > 1 ? "CrashLoopBackOff" : null;
      s.waitingMessage =
          "back-off "
              + backoff
              + "ms restarting failed container (exit code "
              + s.lastExitCode
              + ")";
      LOG.info(
          "event=container_exited pod={} exit_code={} restarts={}",
          name,
          s.lastExitCode,
          s.restarts);
    } else if (s.process == null && s.startable && System.nanoTime() - s.restartAt >= 0) {
      start(s, pod);
    }
    s.ready = s.process != null && s.process.ready();
    publish(s, pod);
  }

  /**
   * Whether an exit ends the pod instead of restarting its container (restartPolicy Never,
   * OnFailure after 0).
   */
  private static boolean ends(Pod pod, int exitCode) {
    String policy = pod.getSpec().getRestartPolicy();
    return "Never".equals(policy) || "OnFailure".equals(policy) && exitCode == 0;
  }

  /**
   * The termination message file's content, or the log's tail for a failed FallbackToLogsOnError
   * container.
   */
  private String terminationMessage(PodState s, Pod pod) {
    try {
      String message =
          Files.readString(
              workDir.resolve(s.name).resolve("termination-log"), StandardCharsets.UTF_8);
      Container container = pod.getSpec().getContainers().get(0);
      if (message.isBlank()
          && s.lastExitCode != 0
          && "FallbackToLogsOnError".equals(container.getTerminationMessagePolicy())) {
        List<String> lines = Files.readAllLines(log(s.name), StandardCharsets.UTF_8);
        message = String.join("\n", lines.subList(Math.max(0, lines.size() - 80), lines.size()));
      }
      return message.length() > 4096 ? message.substring(message.length() - 4096) : message;
    } catch (IOException e) {
      return "";
    }
  }

  private void start(PodState s, Pod pod) {
    Container container = pod.getSpec().getContainers().get(0);
    ContainerImage image = images.get(container.getImage());
    if (image == null) {
      s.startable = false;
      boolean never = "Never".equals(container.getImagePullPolicy());
      s.waitingReason = never ? "ErrImageNeverPull" : "ImagePullBackOff";
      s.waitingMessage =
          never
              ? "Container image \""
                  + container.getImage()
                  + "\" is not present with pull policy"
                  + " of Never"
              : "Back-off pulling image \"" + container.getImage() + "\"";
      return;
    }
    try {
      if (Boolean.TRUE.equals(pod.getSpec().getHostNetwork())) {
        throw new PodStartException(
            "CreateContainerConfigError", "hostNetwork pods are not run by the test kubelet");
      }
      if (pod.getSpec().getContainers().size() != 1
          || (pod.getSpec().getInitContainers() != null
              && !pod.getSpec().getInitContainers().isEmpty())) {
        throw new PodStartException(
            "CreateContainerConfigError",
            "the test kubelet runs pods of exactly one" + " container");
      }
      if (s.sandbox == null) {
        s.sandbox = network.allocate();
      }
      Path podDir = workDir.resolve(s.name);
      PodVolumes.mkdirs(podDir);
      Map<String, String> serviceEnv = new LinkedHashMap<>();
      serviceEnv.put("KUBERNETES_SERVICE_HOST", "kubernetes.default.svc");
      serviceEnv.put("KUBERNETES_SERVICE_PORT", Integer.toString(apiPort));
      serviceEnv.put("HOSTNAME", s.name);
      serviceEnv.put("HOME", podDir.resolve("home").toString());
      PodVolumes.mkdirs(podDir.resolve("home"));
      PodEnvironment env =
          PodEnvironment.of(
              pod,
              container,
              image,
              s.sandbox.address(),
              network.hostAddress(),
              serviceEnv,
              client);
      List<PodVolumes.Mount> mounts =
          new ArrayList<>(PodVolumes.prepare(pod, container, image, podDir, caCertificate, client));
      Path terminationLog = podDir.resolve("termination-log");
      Files.writeString(terminationLog, "", StandardCharsets.UTF_8);
      mounts.add(
          new PodVolumes.Mount(
              terminationLog,
              container.getTerminationMessagePath() == null
                  ? "/dev/termination-log"
                  : container.getTerminationMessagePath(),
              false));
      List<String> argv = new ArrayList<>(env.expand(container.getCommand()));
      argv.addAll(env.expand(container.getArgs()));
      if (argv.isEmpty()) {
        throw new PodStartException(
            "CreateContainerConfigError",
            "no command: the test kubelet does not know" + " image entrypoints");
      }
      Path hostsFile = podDir.resolve("hosts");
      Files.writeString(hostsFile, hosts, StandardCharsets.UTF_8);
      s.process =
          ContainerProcess.start(
              s.sandbox.namespace(),
              s.sandbox.address(),
              container,
              argv,
              env.variables(),
              mounts,
              hostsFile,
              log(s.name));
      s.startable = true;
      s.waitingReason = null;
      s.waitingMessage = null;
      if (s.startedAt == null) {
        s.startedAt = Instant.now();
      }
      LOG.info(
          "event=container_started pod={} ip={} pid={} argv=\"{}\"",
          s.name,
          s.sandbox.address(),
          s.process.pid(),
          String.join(" ", argv));
    } catch (PodStartException e) {
      s.startable = false;
      s.waitingReason = e.reason();
      s.waitingMessage = e.getMessage();
      LOG.warn(
          "event=container_not_started pod={} reason={} message=\"{}\"",
          s.name,
          e.reason(),
          e.getMessage());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Writes the pod's status when what a kubelet would report changed. */
  private void publish(PodState s, Pod pod) {
    Container container = pod.getSpec().getContainers().get(0);
    boolean running = s.process != null;
    String now = Instant.now().toString();
    ContainerStatusBuilder cs =
        new ContainerStatusBuilder()
            .withName(container.getName())
            .withImage(container.getImage())
            .withImageID(
                images.containsKey(container.getImage())
                    ? "test-kubelet://" + container.getImage()
                    : "")
            .withReady(s.ready)
            .withStarted(running)
            .withRestartCount(s.restarts);
    if (running) {
      cs.withState(
          new ContainerStateBuilder()
              .withNewRunning()
              .withStartedAt(s.startedAt.toString())
              .endRunning()
              .build());
    } else if (s.completed) {
      cs.withState(
          new ContainerStateBuilder()
              .withNewTerminated()
              .withExitCode(s.lastExitCode)
              .withReason(s.lastExitCode == 0 ? "Completed" : "Error")
              .withMessage(s.terminationMessage)
              .withStartedAt(s.startedAt.toString())
              .withFinishedAt(now)
              .endTerminated()
              .build());
    } else {
      cs.withState(
          new ContainerStateBuilder()
              .withNewWaiting()
              .withReason(s.waitingReason == null ? "ContainerCreating" : s.waitingReason)
              .withMessage(s.waitingMessage)
              .endWaiting()
              .build());
    }
    if (s.lastExitCode != null && !s.completed) {
      cs.withLastState(
          new ContainerStateBuilder()
              .withNewTerminated()
              .withExitCode(s.lastExitCode)
              .withReason("Error")
              .endTerminated()
              .build());
    }
    ContainerStatus containerStatus = cs.build();
    String signature =
        running
            + "|"
            + s.ready
            + "|"
            + s.restarts
            + "|"
            + s.waitingReason
            + "|"
            + s.waitingMessage
            + "|"
            + (s.sandbox == null ? "" : s.sandbox.address())
            + "|"
            + s.completed;
    if (signature.equals(s.published)) {
      return;
    }
    String phase =
        s.completed
            ? (s.lastExitCode == 0 ? "Succeeded" : "Failed")
            : running || s.restarts > 0 ? "Running" : "Pending";
    PodStatusBuilder status =
        new PodStatusBuilder()
            .withPhase(phase)
            .withHostIP(network.hostAddress())
            .withStartTime(s.startedAt == null ? now : s.startedAt.toString())
            .withContainerStatuses(containerStatus)
            .withConditions(
                condition("PodScheduled", true, now),
                condition("Initialized", true, now),
                condition("ContainersReady", s.ready, now),
                condition("Ready", s.ready, now));
    if (s.sandbox != null) {
      status.withPodIP(s.sandbox.address()).withPodIPs(new PodIP(s.sandbox.address()));
    }
    if (updateStatus(pod, status.build())) {
      s.published = signature;
    }
  }

  private boolean updateStatus(Pod pod, PodStatus status) {
    Pod fresh = pod;
    for (int attempt = 0; attempt < 3; attempt++) {
      fresh.setStatus(status);
      try {
        client.pods().inNamespace(namespace).resource(fresh).updateStatus();
        return true;
      } catch (KubernetesClientException e) {
        if (e.getCode() == 404) {
          return false;
        }
        if (e.getCode() != 409) {
          throw e;
        }
        fresh = client.pods().inNamespace(namespace).withName(pod.getMetadata().getName()).get();
        if (fresh == null) {
          return false;
        }
      }
    }
    return false;
  }

  private static PodCondition condition(String type, boolean status, String now) {
    return new PodConditionBuilder()
        .withType(type)
        .withStatus(status ? "True" : "False")
        .withLastTransitionTime(now)
        .build();
  }

  private void teardown(PodState s, Duration grace) {
    if (s.process != null) {
      s.process.stop(grace);
      LOG.info("event=container_stopped pod={}", s.name);
      s.process = null;
    }
    if (s.sandbox != null) {
      network.release(s.sandbox);
      s.sandbox = null;
    }
  }

  /**
   * One /etc/hosts for every pod: the API server's Service names at the host's address, and each
   * pod under its headless Service ({@code <hostname>.<subdomain>.<ns>.svc[.cluster.local]}).
   * Rewritten in place (the files are bind-mounted) whenever a pod's address changes.
   */
  private void writeHosts(Map<String, Pod> byName) {
    StringBuilder b =
        new StringBuilder("127.0.0.1 localhost\n::1 localhost\n")
            .append(network.hostAddress())
            .append(" kubernetes kubernetes.default kubernetes.default.svc")
            .append(" kubernetes.default.svc.cluster.local\n");
    List<PodState> sorted = new ArrayList<>(pods.values());
    sorted.sort((a, b2) -> a.name.compareTo(b2.name));
    for (PodState s : sorted) {
      if (s.sandbox == null) {
        continue;
      }
      Pod pod = byName.get(s.name);
      String subdomain = pod == null ? null : pod.getSpec().getSubdomain();
      String host =
          pod == null || pod.getSpec().getHostname() == null ? s.name : pod.getSpec().getHostname();
      b.append(s.sandbox.address()).append(' ');
      if (subdomain != null) {
        String fqdn = host + "." + subdomain + "." + namespace + ".svc";
        b.append(fqdn).append(' ').append(fqdn).append(".cluster.local ");
      }
      b.append(host).append('\n');
    }
    String content = b.toString();
    if (content.equals(hosts)) {
      return;
    }
    hosts = content;
    for (PodState s : pods.values()) {
      Path file = workDir.resolve(s.name).resolve("hosts");
      if (Files.exists(file)) {
        try {
          Files.writeString(
              file, content, StandardCharsets.UTF_8); // in place: the bind mount keeps the inode
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      }
    }
  }

  private static byte[] caCertificate(KubernetesClient client) {
    var config = client.getConfiguration();
    try {
      if (config.getCaCertData() != null) {
        return Base64.getDecoder().decode(config.getCaCertData());
      }
      if (config.getCaCertFile() != null) {
        return Files.readAllBytes(Path.of(config.getCaCertFile()));
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    throw new IllegalStateException(
        "the API server's client has no CA certificate for pods to trust");
  }

  /** What the kubelet knows of one pod. */
  private static final class PodState {
    final String name;
    final String uid;
    PodNetwork.Sandbox sandbox;
    ContainerProcess process;
    boolean ready;
    boolean startable = true;
    int restarts;
    Integer lastExitCode;
    long restartAt = System.nanoTime();
    Instant startedAt;
    String waitingReason;
    String waitingMessage;
    String published;
    boolean completed;
    String terminationMessage;

    PodState(String name, String uid) {
      this.name = name;
      this.uid = Objects.requireNonNull(uid);
    }
  }
}
