package io.kvpool.bench;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.kvpool.cli.LocalPoolConfig;
import io.kvpool.testkube.KubeTestSetupException;
import io.kvpool.testkube.MasterPods;
import io.kvpool.testkube.RealKubeApiServer;
import io.kvpool.testkube.RepositoryRoot;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;

/**
 * The Kubernetes API server local masters elect their leader on: one reached through a kube config
 * file (a real cluster, or any API server), or the project's test kube-apiserver + etcd ({@code
 * test-kube}, binaries built by {@code e2e/cluster/kube-binaries.sh}) started in this JVM. On the
 * test server the masters also get pod objects to label, as in a deployed pool; on a cluster given
 * by the user nothing but the election's Lease is written (and it is deleted at the end).
 */
public final class ElectionApiServer implements AutoCloseable {
  private final KubernetesClient client;
  private final boolean ownClient;
  private final Path kubeconfig;
  private final boolean deleteKubeconfig;
  private final String description;
  private final boolean testServer;
  private String namespace;
  private String lease;

  private ElectionApiServer(
      KubernetesClient client,
      boolean ownClient,
      Path kubeconfig,
      boolean deleteKubeconfig,
      String description,
      boolean testServer) {
    this.client = client;
    this.ownClient = ownClient;
    this.kubeconfig = kubeconfig;
    this.deleteKubeconfig = deleteKubeconfig;
    this.description = description;
    this.testServer = testServer;
  }

  /** The API server and credentials of a kube config file (its current context). */
  public static ElectionApiServer fromKubeconfig(Path file) {
    String yaml;
    try {
      yaml = Files.readString(file);
    } catch (IOException e) {
      throw new BenchmarkFailedException("cannot read the kube config " + file + ": " + e, e);
    }
    KubernetesClient client;
    try {
      client = new KubernetesClientBuilder().withConfig(Config.fromKubeconfig(yaml)).build();
    } catch (RuntimeException e) {
      throw new BenchmarkFailedException(
          "the kube config " + file + " is not usable: " + e.getMessage(), e);
    }
    return new ElectionApiServer(
        client,
        true,
        file.toAbsolutePath(),
        false,
        "the API server " + client.getMasterUrl() + " (kube config " + file + ")",
        false);
  }

  /**
   * Starts the test kube-apiserver (about a minute on a busy machine); fails with what to do when
   * it cannot.
   */
  public static ElectionApiServer startTestServer() {
    try {
      RepositoryRoot.find();
    } catch (KubeTestSetupException e) {
      throw new BenchmarkFailedException(
          "the test API server is started from the kvpool checkout: run this from "
              + "inside it, or give --kubeconfig FILE for another API server",
          e);
    }
    KubernetesClient client;
    Path file;
    try {
      client = RealKubeApiServer.client();
      file =
          Files.createTempFile(
              "kvpool-bench-kubeconfig-",
              ".yaml",
              PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
      Files.writeString(file, RealKubeApiServer.kubeconfigYaml());
    } catch (KubeTestSetupException e) {
      throw new BenchmarkFailedException(e.getMessage(), e);
    } catch (IOException e) {
      throw new BenchmarkFailedException(
          "cannot write a kube config for the test API server: " + e, e);
    }
    return new ElectionApiServer(
        client,
        false,
        file,
        true,
        "the test kube-apiserver at " + client.getMasterUrl() + " (test-kube)",
        true);
  }

  public String description() {
    return description;
  }

  /**
   * Readies {@code namespace} for an election on Lease {@code leaseName} (a stale Lease of that
   * name is deleted) and, on the test server, creates pod objects {@code podPrefix-0..masters-1}
   * for the leader to label.
   */
  public LocalPoolConfig.Election election(
      String namespace, String leaseName, Duration leaseDuration, String podPrefix, int masters) {
    this.namespace = namespace;
    this.lease = leaseName;
    try {
      if (testServer) {
        MasterPods.create(client, namespace, podPrefix, masters);
      }
      client.leases().inNamespace(namespace).withName(leaseName).delete();
    } catch (KubernetesClientException e) {
      throw new BenchmarkFailedException(
          "cannot prepare Lease "
              + namespace
              + "/"
              + leaseName
              + " on "
              + description
              + ": "
              + e.getMessage(),
          e);
    }
    return new LocalPoolConfig.Election(
        kubeconfig,
        namespace,
        leaseName,
        leaseDuration.toMillis() + "ms",
        testServer ? podPrefix : "");
  }

  @Override
  public void close() {
    try {
      if (lease != null) {
        client.leases().inNamespace(namespace).withName(lease).delete();
      }
    } catch (KubernetesClientException e) {
      // best effort: a Lease left behind expires and is taken over by the next election of that
      // name
    } finally {
      if (ownClient) {
        client.close();
      }
      if (deleteKubeconfig) {
        try {
          Files.deleteIfExists(kubeconfig);
        } catch (IOException e) {
          // a temporary file of the test server's credentials; the server is gone with this JVM
        }
      }
    }
  }
}
