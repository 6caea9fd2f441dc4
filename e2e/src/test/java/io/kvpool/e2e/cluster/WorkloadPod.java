package io.kvpool.e2e.cluster;

import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeBuilder;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.api.model.VolumeMountBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.kvpool.e2e.workload.EventsFollower;
import io.kvpool.e2e.workload.HostFolder;
import io.kvpool.e2e.workload.PoolWorkload;
import io.kvpool.e2e.workload.ReachProbe;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.stream.Stream;

/**
 * Runs {@link PoolWorkload} in a pod of the data-plane image, inside the cluster, as an inference
 * pod would reach the pool: {@code envFrom} the pool's client ConfigMap, the client key from its
 * Secret, the client label. The class travels in a ConfigMap as a small jar, so no extra image is
 * needed. The pod runs as the image's non-root user with a read-only root filesystem.
 */
public final class WorkloadPod {
  static final String JAR_CONFIG_MAP = "e2e-workload";
  private static final AtomicInteger SEQUENCE = new AtomicInteger();

  /** How the pod ended, its log, and the fields of its {@code WORKLOAD} line. */
  public record Result(String pod, String phase, String log, Map<String, String> summary) {
    public boolean succeeded() {
      return "Succeeded".equals(phase);
    }

    public long number(String key) {
      return Long.parseLong(summary.getOrDefault(key, "-1"));
    }
  }

  private final KubernetesClient client;
  private final String image;

  public WorkloadPod(KubernetesClient client, String image) {
    this.client = client;
    this.image = image;
  }

  /**
   * Runs {@code PoolWorkload op --keys N --prefix P --replicas R} against {@code pool}; waits for
   * the pod to end.
   */
  public Result run(
      String namespace,
      String pool,
      String op,
      int keys,
      String prefix,
      int replicas,
      Duration limit) {
    return run(namespace, pool, op, 0, keys, prefix, replicas, limit);
  }

  /**
   * As {@link #run(String, String, String, int, String, int, Duration)}, on the keys {@code from}
   * to {@code from + keys - 1}.
   */
  public Result run(
      String namespace,
      String pool,
      String op,
      int from,
      int keys,
      String prefix,
      int replicas,
      Duration limit) {
    ensureJar(namespace);
    String name = "workload-" + op + "-" + SEQUENCE.incrementAndGet();
    Pod pod =
        clientPod(
            name,
            pool,
            true,
            PoolWorkload.class,
            List.of(
                op,
                "--keys",
                Integer.toString(keys),
                "--from",
                Integer.toString(from),
                "--prefix",
                prefix,
                "--replicas",
                Integer.toString(replicas)));
    return runToEnd(namespace, pod, op + " " + keys + " keys from " + prefix + "-" + from, limit);
  }

  /**
   * Runs {@link ReachProbe} {@code expect seconds endpoints} in a client pod of {@code pool}, with
   * or without the client label its NetworkPolicy admits clients by (with {@code pool} null: a pod
   * of no pool, e.g. in the operator's namespace); waits for the pod to end.
   */
  public Result reach(
      String namespace,
      String pool,
      boolean labelled,
      String expect,
      int seconds,
      List<String> endpoints,
      Duration limit) {
    ensureJar(namespace);
    String name =
        "reach-"
            + (pool == null ? "other" : labelled ? "client" : "stranger")
            + "-"
            + SEQUENCE.incrementAndGet();
    List<String> args = new java.util.ArrayList<>(List.of(expect, Integer.toString(seconds)));
    args.addAll(endpoints);
    return runToEnd(
        namespace,
        clientPod(name, pool, labelled, ReachProbe.class, args),
        expect + " " + String.join(" ", endpoints),
        limit);
  }

  /**
   * Starts {@link EventsFollower} {@code --prefix P --from F --keys N --views V} in a pod of {@code
   * pool} labelled as a KV-event subscriber ({@code kvpool.io/events-subscriber: <pool>}, the label
   * the NetworkPolicy admits to the events' ports; not a client), and returns at once with the
   * pod's name: {@link #awaitEnd} waits for its verdict.
   */
  public String startFollower(
      String namespace, String pool, String prefix, int from, int keys, int views, int seconds) {
    ensureJar(namespace);
    String name = "events-follower-" + SEQUENCE.incrementAndGet();
    Pod pod =
        clientPod(
            name,
            pool,
            false,
            EventsFollower.class,
            List.of(
                "--prefix",
                prefix,
                "--from",
                Integer.toString(from),
                "--keys",
                Integer.toString(keys),
                "--views",
                Integer.toString(views),
                "--seconds",
                Integer.toString(seconds)));
    pod.getMetadata().getLabels().put("kvpool.io/events-subscriber", pool);
    client.pods().inNamespace(namespace).resource(pod).create();
    return name;
  }

  /** The log of pod {@code name} so far (empty before its container started). */
  public String log(String namespace, String name) {
    try {
      String log = client.pods().inNamespace(namespace).withName(name).getLog();
      return log == null ? "" : log;
    } catch (RuntimeException e) {
      return "";
    }
  }

  /**
   * A pod as an inference pod of {@code pool} is made (its client ConfigMap and key), running
   * {@code main}; with {@code pool} null, the same pod without any of them.
   */
  private Pod clientPod(
      String name, String pool, boolean labelled, Class<?> main, List<String> args) {
    Map<String, String> labels = new LinkedHashMap<>();
    labels.put("app.kubernetes.io/name", "kvpool-e2e-workload");
    if (labelled) {
      labels.put(
          "kvpool.io/client",
          pool); // what an inference pod carries: the label the NetworkPolicy admits
    }
    Pod pod =
        new PodBuilder()
            .withNewMetadata()
            .withName(name)
            .withLabels(labels)
            .endMetadata()
            .withNewSpec()
            .withRestartPolicy("Never")
            .withAutomountServiceAccountToken(false)
            .withNewSecurityContext()
            .withRunAsNonRoot(true)
            .withNewSeccompProfile()
            .withType("RuntimeDefault")
            .endSeccompProfile()
            .endSecurityContext()
            .addNewContainer()
            .withName("workload")
            .withImage(image)
            .withImagePullPolicy("IfNotPresent")
            .withCommand(java(main))
            .withArgs(args)
            .addNewEnvFrom()
            .withNewConfigMapRef()
            .withName(pool + "-client")
            .endConfigMapRef()
            .endEnvFrom()
            // the client key, from the Secret the client ConfigMap names (KVPOOL_CLIENT_SECRET)
            .addNewEnv()
            .withName("KVPOOL_CLIENT_KEY")
            .withNewValueFrom()
            .withNewSecretKeyRef()
            .withName(pool + "-client-key")
            .withKey("client-key")
            .endSecretKeyRef()
            .endValueFrom()
            .endEnv()
            .withNewResources()
            .addToRequests("cpu", new Quantity("100m"))
            .addToRequests("memory", new Quantity("160Mi"))
            .addToLimits("memory", new Quantity("256Mi"))
            .endResources()
            .withNewSecurityContext()
            .withReadOnlyRootFilesystem(true)
            .withAllowPrivilegeEscalation(false)
            .withNewCapabilities()
            .withDrop("ALL")
            .endCapabilities()
            .endSecurityContext()
            .addNewVolumeMount()
            .withName("workload")
            .withMountPath("/opt/e2e")
            .withReadOnly(true)
            .endVolumeMount()
            .endContainer()
            .addNewVolume()
            .withName("workload")
            .withNewConfigMap()
            .withName(JAR_CONFIG_MAP)
            .endConfigMap()
            .endVolume()
            .endSpec()
            .build();
    if (pool == null) {
      pod.getSpec().getContainers().get(0).setEnvFrom(List.of());
      pod.getSpec().getContainers().get(0).setEnv(List.of());
    }
    return pod;
  }

  /**
   * Runs {@link HostFolder} {@code op} on the node folders {@code hostPaths} (each created when
   * missing) in one pod of the data-plane image as root, the only way to hand a node folder to the
   * storage pods' user without a shell or access to the node: {@code prepare} empties each and
   * gives it to {@code uid}, {@code clear} empties each. The result's summary is the last folder's.
   */
  public Result runHostFolders(
      String namespace, List<String> hostPaths, String op, long uid, Duration limit) {
    ensureJar(namespace);
    String name = "host-folder-" + op + "-" + SEQUENCE.incrementAndGet();
    List<String> args = new ArrayList<>(List.of(op));
    if (op.equals("prepare")) {
      args.add(Long.toString(uid));
    }
    List<VolumeMount> mounts = new ArrayList<>();
    List<Volume> volumes = new ArrayList<>();
    for (int i = 0; i < hostPaths.size(); i++) {
      String volume = "host-folder-" + i;
      args.add("/" + volume);
      mounts.add(new VolumeMountBuilder().withName(volume).withMountPath("/" + volume).build());
      volumes.add(
          new VolumeBuilder()
              .withName(volume)
              .withNewHostPath()
              .withPath(hostPaths.get(i))
              .withType("DirectoryOrCreate")
              .endHostPath()
              .build());
    }
    Pod pod =
        new PodBuilder()
            .withNewMetadata()
            .withName(name)
            .addToLabels("app.kubernetes.io/name", "kvpool-e2e-host-folder")
            .endMetadata()
            .withNewSpec()
            .withRestartPolicy("Never")
            .withAutomountServiceAccountToken(false)
            .withNewSecurityContext()
            .withRunAsUser(0L)
            .withRunAsGroup(0L)
            .withRunAsNonRoot(false)
            .withNewSeccompProfile()
            .withType("RuntimeDefault")
            .endSeccompProfile()
            .endSecurityContext()
            .addNewContainer()
            .withName("host-folder")
            .withImage(image)
            .withImagePullPolicy("IfNotPresent")
            .withCommand(java(HostFolder.class))
            .withArgs(args)
            .withNewResources()
            .addToRequests("cpu", new Quantity("50m"))
            .addToRequests("memory", new Quantity("96Mi"))
            .addToLimits("memory", new Quantity("192Mi"))
            .endResources()
            // root, but only what changing owners and removing another user's files takes
            .withNewSecurityContext()
            .withReadOnlyRootFilesystem(true)
            .withAllowPrivilegeEscalation(false)
            .withNewCapabilities()
            .withDrop("ALL")
            .withAdd("CHOWN", "DAC_OVERRIDE", "FOWNER")
            .endCapabilities()
            .endSecurityContext()
            .addNewVolumeMount()
            .withName("workload")
            .withMountPath("/opt/e2e")
            .withReadOnly(true)
            .endVolumeMount()
            .addAllToVolumeMounts(mounts)
            .endContainer()
            .addNewVolume()
            .withName("workload")
            .withNewConfigMap()
            .withName(JAR_CONFIG_MAP)
            .endConfigMap()
            .endVolume()
            .addAllToVolumes(volumes)
            .endSpec()
            .build();
    return runToEnd(namespace, pod, op + " " + String.join(", ", hostPaths), limit);
  }

  /**
   * Deletes the pods this class started in {@code namespace} and the workload jar's ConfigMap
   * there.
   */
  public void removeFrom(String namespace) {
    client
        .pods()
        .inNamespace(namespace)
        .withLabel("app.kubernetes.io/name", "kvpool-e2e-workload")
        .delete();
    client.configMaps().inNamespace(namespace).withName(JAR_CONFIG_MAP).delete();
  }

  /**
   * {@code java ... -cp '/opt/kvpool/lib/*:/opt/e2e/workload.jar' MAIN}: small heap, quick start.
   */
  private static List<String> java(Class<?> main) {
    return List.of(
        "java",
        "-Xmx96m",
        "-XX:+UseSerialGC",
        "-XX:TieredStopAtLevel=1",
        "-XX:-UsePerfData",
        "-cp",
        "/opt/kvpool/lib/*:/opt/e2e/workload.jar",
        main.getName());
  }

  private Result runToEnd(String namespace, Pod pod, String what, Duration limit) {
    client.pods().inNamespace(namespace).resource(pod).create();
    return awaitEnd(namespace, pod.getMetadata().getName(), what, limit);
  }

  /** Waits for pod {@code name} to end; its phase, log and {@code WORKLOAD} fields. */
  public Result awaitEnd(String namespace, String name, String what, Duration limit) {
    Pod done =
        Await.until(
            "pod " + namespace + "/" + name + " to finish",
            limit,
            () -> client.pods().inNamespace(namespace).withName(name).get(),
            p ->
                p.getStatus() != null
                    && List.of("Succeeded", "Failed").contains(p.getStatus().getPhase()),
            p -> name + " phase=" + (p.getStatus() == null ? null : p.getStatus().getPhase()));
    String log = client.pods().inNamespace(namespace).withName(name).getLog();
    E2eLog.info(
        "pod " + name + " (" + what + ") " + done.getStatus().getPhase() + ":\n" + log.strip());
    return new Result(name, done.getStatus().getPhase(), log, summary(log));
  }

  static Map<String, String> summary(String log) {
    Map<String, String> fields = new LinkedHashMap<>();
    log.lines()
        .filter(l -> l.startsWith("WORKLOAD "))
        .reduce((a, b) -> b)
        .ifPresent(
            line -> {
              for (String part : line.substring("WORKLOAD ".length()).split(" ")) {
                int eq = part.indexOf('=');
                if (eq > 0) {
                  fields.put(part.substring(0, eq), part.substring(eq + 1));
                }
              }
            });
    return fields;
  }

  private void ensureJar(String namespace) {
    if (client.configMaps().inNamespace(namespace).withName(JAR_CONFIG_MAP).get() != null) {
      return;
    }
    client
        .configMaps()
        .inNamespace(namespace)
        .resource(
            new ConfigMapBuilder()
                .withNewMetadata()
                .withName(JAR_CONFIG_MAP)
                .endMetadata()
                .addToBinaryData("workload.jar", Base64.getEncoder().encodeToString(workloadJar()))
                .build())
        .create();
  }

  /** The compiled classes of the workload's package, as a jar. */
  static byte[] workloadJar() {
    try {
      Path classes =
          Path.of(PoolWorkload.class.getProtectionDomain().getCodeSource().getLocation().toURI());
      Path dir = classes.resolve(PoolWorkload.class.getPackageName().replace('.', '/'));
      ByteArrayOutputStream bytes = new ByteArrayOutputStream();
      try (JarOutputStream jar = new JarOutputStream(bytes);
          Stream<Path> files = Files.list(dir)) {
        for (Path file : files.filter(f -> f.toString().endsWith(".class")).sorted().toList()) {
          jar.putNextEntry(new JarEntry(classes.relativize(file).toString().replace('\\', '/')));
          jar.write(Files.readAllBytes(file));
          jar.closeEntry();
        }
      }
      return bytes.toByteArray();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (URISyntaxException e) {
      throw new IllegalStateException(e);
    }
  }
}
