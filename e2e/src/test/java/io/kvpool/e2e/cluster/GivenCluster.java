package io.kvpool.e2e.cluster;

import java.nio.file.Path;
import java.util.List;

/**
 * A cluster someone else runs, given by a kubeconfig. The suite cannot load images into it: they
 * must be there already (e.g. {@code kind load image-archive}, {@code k3s ctr images import}, or
 * pushed to a registry the nodes pull from, with the same names). The suite leaves the cluster
 * running.
 */
final class GivenCluster implements E2eCluster {
  private final Path kubeconfig;

  GivenCluster(Path kubeconfig) {
    this.kubeconfig = kubeconfig;
  }

  @Override
  public String description() {
    return "the cluster of " + kubeconfig;
  }

  @Override
  public Path kubeconfig() {
    return kubeconfig;
  }

  @Override
  public void loadImages(List<Path> tarballs) {
    E2eLog.info(
        "a given cluster: not loading "
            + tarballs.stream().map(p -> p.getFileName().toString()).toList()
            + "; its nodes must already have these images (or pull them)");
  }

  @Override
  public void close() {
    E2eLog.info("leaving " + description() + " running");
  }
}
