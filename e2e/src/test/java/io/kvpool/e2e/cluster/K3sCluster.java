package io.kvpool.e2e.cluster;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.testcontainers.containers.Container;
import org.testcontainers.k3s.K3sContainer;
import org.testcontainers.utility.DockerImageName;
import org.testcontainers.utility.MountableFile;

/**
 * K3s in a privileged Docker container (Testcontainers), for machines with a Docker daemon and a
 * registry (developers' laptops, their CI). Images go into K3s' own containerd with {@code ctr
 * images import}.
 */
final class K3sCluster implements E2eCluster {
  private final K3sContainer k3s;
  private final Path kubeconfig;

  private K3sCluster(K3sContainer k3s, Path kubeconfig) {
    this.k3s = k3s;
    this.kubeconfig = kubeconfig;
  }

  static K3sCluster start(String image) {
    E2eLog.info("starting K3s (" + image + ") in Docker");
    K3sContainer k3s =
        new K3sContainer(DockerImageName.parse(image).asCompatibleSubstituteFor("rancher/k3s"));
    k3s.start();
    try {
      Path kubeconfig = Files.createTempFile("kvpool-e2e-k3s", ".kubeconfig");
      Files.writeString(kubeconfig, k3s.getKubeConfigYaml());
      return new K3sCluster(k3s, kubeconfig);
    } catch (IOException e) {
      k3s.stop();
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public String description() {
    return "K3s " + k3s.getDockerImageName() + " in container " + k3s.getContainerId();
  }

  @Override
  public Path kubeconfig() {
    return kubeconfig;
  }

  @Override
  public void loadImages(List<Path> tarballs) {
    for (Path tarball : tarballs) {
      String inside = "/tmp/" + tarball.getFileName();
      k3s.copyFileToContainer(MountableFile.forHostPath(tarball), inside);
      try {
        Container.ExecResult r =
            k3s.execInContainer("ctr", "-n", "k8s.io", "images", "import", inside);
        if (r.getExitCode() != 0) {
          throw new IllegalStateException(
              "ctr images import " + tarball + " in K3s failed: " + r.getStderr());
        }
        k3s.execInContainer("rm", "-f", inside);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException(e);
      }
      E2eLog.info("imported " + tarball.getFileName() + " into K3s");
    }
  }

  /**
   * Docker gives a container a /dev/shm of 64 MB, less than the upgrade pool's memory files: a
   * folder of its disk.
   */
  @Override
  public String memoryFolder() {
    return "/var/lib/kvpool-e2e/memory";
  }

  @Override
  public void close() {
    k3s.stop();
    try {
      Files.deleteIfExists(kubeconfig);
    } catch (IOException ignored) {
      // a temp file
    }
  }
}
