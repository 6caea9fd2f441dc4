package io.kvpool.bench.it;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.kvpool.testkube.MasterPods;
import io.kvpool.testkube.RealKubeApiServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Masters electing on a real kube-apiserver: their pod objects, no Lease left from an earlier test,
 * a kube config.
 */
final class ElectionKubeconfig {
  private ElectionKubeconfig() {}

  /**
   * Creates pods {@code <masterPrefix>-0..2} in {@code namespace}, deletes the Lease, returns a
   * kube config file.
   */
  static Path prepare(String namespace, String masterPrefix, String lease) {
    KubernetesClient k = RealKubeApiServer.client();
    MasterPods.create(k, namespace, masterPrefix, 3);
    k.leases().inNamespace(namespace).withName(lease).delete();
    try {
      Path file = Files.createTempFile("kvpool-" + namespace + "-kubeconfig", ".yaml");
      Files.writeString(file, RealKubeApiServer.kubeconfigYaml());
      return file;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
