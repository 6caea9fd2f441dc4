package io.kvpool.testkube.kubelet;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.KeyToPath;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.api.model.authentication.TokenRequest;
import io.fabric8.kubernetes.api.model.authentication.TokenRequestBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A pod's volumes as folders of this machine, and the mounts of its container: ConfigMaps and
 * Secrets written out once at start (a real kubelet refreshes them about every minute), emptyDirs,
 * hostPaths, the service-account token of a real TokenRequest (so the API server's RBAC applies to
 * the pod as in a cluster), and the pod's /etc/hosts.
 */
final class PodVolumes {
  static final String SERVICE_ACCOUNT_DIR = "/var/run/secrets/kubernetes.io/serviceaccount";

  private PodVolumes() {}

  /** A folder (or file) of this machine bind-mounted at {@code target} in the pod. */
  record Mount(Path source, String target, boolean readOnly) {}

  static List<Mount> prepare(
      Pod pod,
      Container container,
      ContainerImage image,
      Path podDir,
      byte[] caCertificate,
      KubernetesClient client) {
    Map<String, Path> volumes = new LinkedHashMap<>();
    String ns = pod.getMetadata().getNamespace();
    for (Volume v :
        pod.getSpec().getVolumes() == null ? List.<Volume>of() : pod.getSpec().getVolumes()) {
      Path dir = podDir.resolve("volumes").resolve(v.getName());
      if (v.getConfigMap() != null) {
        writeFiles(
            dir,
            PodEnvironment.configMap(client, ns, v.getConfigMap().getName()),
            v.getConfigMap().getItems());
      } else if (v.getSecret() != null) {
        writeFiles(
            dir,
            PodEnvironment.secret(client, ns, v.getSecret().getSecretName()),
            v.getSecret().getItems());
      } else if (v.getEmptyDir() != null) {
        mkdirs(dir);
      } else if (v.getHostPath() != null) {
        dir = Path.of(v.getHostPath().getPath());
        if (!Files.exists(dir)) {
          if ("DirectoryOrCreate".equals(v.getHostPath().getType())) {
            mkdirs(dir);
          } else {
            throw new PodStartException(
                "ContainerCreating",
                "hostPath "
                    + dir
                    + " of volume "
                    + v.getName()
                    + " does not exist on this machine");
          }
        }
      } else {
        throw new PodStartException(
            "CreateContainerConfigError",
            "volume " + v.getName() + " is of a kind the test kubelet does not support");
      }
      volumes.put(v.getName(), dir);
    }
    List<Mount> mounts = new ArrayList<>();
    image.paths().forEach((target, source) -> mounts.add(new Mount(source, target, true)));
    for (VolumeMount m :
        container.getVolumeMounts() == null
            ? List.<VolumeMount>of()
            : container.getVolumeMounts()) {
      Path source = volumes.get(m.getName());
      if (source == null) {
        throw new PodStartException(
            "CreateContainerConfigError",
            "volume mount " + m.getMountPath() + " names no volume " + m.getName());
      }
      if (m.getSubPath() != null && !m.getSubPath().isEmpty()) {
        source = source.resolve(m.getSubPath());
      }
      mounts.add(new Mount(source, m.getMountPath(), Boolean.TRUE.equals(m.getReadOnly())));
    }
    if (!Boolean.FALSE.equals(pod.getSpec().getAutomountServiceAccountToken())) {
      mounts.add(
          new Mount(serviceAccount(pod, podDir, caCertificate, client), SERVICE_ACCOUNT_DIR, true));
    }
    return mounts;
  }

  private static Path serviceAccount(
      Pod pod, Path podDir, byte[] caCertificate, KubernetesClient client) {
    String ns = pod.getMetadata().getNamespace();
    String account =
        pod.getSpec().getServiceAccountName() == null
            ? "default"
            : pod.getSpec().getServiceAccountName();
    if (client.serviceAccounts().inNamespace(ns).withName(account).get() == null) {
      throw new PodStartException(
          "CreateContainerConfigError", "serviceaccount \"" + account + "\" not found");
    }
    TokenRequest request =
        new TokenRequestBuilder()
            .withNewSpec()
            .withExpirationSeconds(3600L)
            .withAudiences()
            .endSpec()
            .build();
    String token =
        client
            .serviceAccounts()
            .inNamespace(ns)
            .withName(account)
            .tokenRequest(request)
            .getStatus()
            .getToken();
    Path dir = podDir.resolve("serviceaccount");
    mkdirs(dir);
    try {
      Files.writeString(dir.resolve("token"), token, StandardCharsets.UTF_8);
      Files.write(dir.resolve("ca.crt"), caCertificate);
      Files.writeString(dir.resolve("namespace"), ns, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return dir;
  }

  private static void writeFiles(Path dir, Map<String, String> data, List<KeyToPath> items) {
    mkdirs(dir);
    try {
      if (items == null || items.isEmpty()) {
        for (Map.Entry<String, String> e : data.entrySet()) {
          Files.writeString(dir.resolve(e.getKey()), e.getValue(), StandardCharsets.UTF_8);
        }
      } else {
        for (KeyToPath item : items) {
          Path file = dir.resolve(item.getPath());
          mkdirs(file.getParent());
          Files.writeString(file, data.getOrDefault(item.getKey(), ""), StandardCharsets.UTF_8);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static void mkdirs(Path dir) {
    try {
      Files.createDirectories(dir);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
