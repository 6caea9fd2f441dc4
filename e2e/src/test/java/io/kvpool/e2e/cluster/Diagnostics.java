package io.kvpool.e2e.cluster;

import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * What a failed scenario leaves for a person: for each namespace involved, the objects ({@code get
 * -o wide}), events, {@code kubectl describe} of pools and pods, and every container's log (and the
 * previous one after a restart). Written to the suite's log and to {@code
 * target/e2e-diagnostics/<scenario>.txt}.
 */
public final class Diagnostics {
  private final KubernetesClient client;
  private final Kubectl kubectl;
  private final Path outputDir;

  public Diagnostics(KubernetesClient client, Kubectl kubectl, Path outputDir) {
    this.client = client;
    this.kubectl = kubectl;
    this.outputDir = outputDir;
  }

  public void dump(String scenario, List<String> namespaces) {
    StringBuilder out = new StringBuilder();
    out.append("==== diagnostics of scenario '").append(scenario).append("' ====\n");
    section(out, "kubectl get nodes -o wide", kubectl.run("get", "nodes", "-o", "wide"));
    for (String ns : namespaces) {
      section(
          out,
          "kubectl -n "
              + ns
              + " get kvcachepools,statefulsets,deployments,pods,services,endpointslices,configmaps,leases -o wide",
          kubectl.run(
              "-n",
              ns,
              "get",
              "kvcachepools,statefulsets,deployments,pods,services,endpointslices,configmaps,leases",
              "-o",
              "wide"));
      section(
          out,
          "kubectl -n " + ns + " get events --sort-by=.lastTimestamp",
          kubectl.run("-n", ns, "get", "events", "--sort-by=.lastTimestamp"));
      section(
          out,
          "kubectl -n " + ns + " describe kvcachepools",
          kubectl.run("-n", ns, "describe", "kvcachepools"));
      section(
          out, "kubectl -n " + ns + " describe pods", kubectl.run("-n", ns, "describe", "pods"));
      List<Pod> pods;
      try {
        pods = client.pods().inNamespace(ns).list().getItems();
      } catch (RuntimeException e) {
        out.append("cannot list pods of ").append(ns).append(": ").append(e).append('\n');
        continue;
      }
      for (Pod pod : pods) {
        String name = pod.getMetadata().getName();
        List<ContainerStatus> statuses =
            pod.getStatus() == null || pod.getStatus().getContainerStatuses() == null
                ? List.of()
                : pod.getStatus().getContainerStatuses();
        for (ContainerStatus c : statuses) {
          section(
              out,
              "kubectl -n " + ns + " logs " + name + " -c " + c.getName() + " --tail=300",
              kubectl.run("-n", ns, "logs", name, "-c", c.getName(), "--tail=300"));
          if (c.getRestartCount() != null && c.getRestartCount() > 0) {
            section(
                out,
                "kubectl -n "
                    + ns
                    + " logs "
                    + name
                    + " -c "
                    + c.getName()
                    + " --previous --tail=300",
                kubectl.run("-n", ns, "logs", name, "-c", c.getName(), "--previous", "--tail=300"));
          }
        }
      }
    }
    out.append("==== end of diagnostics of scenario '").append(scenario).append("' ====\n");
    E2eLog.info(out.toString());
    try {
      Files.createDirectories(outputDir);
      Path file = outputDir.resolve(scenario.replaceAll("[^A-Za-z0-9._-]+", "-") + ".txt");
      Files.writeString(file, out);
      E2eLog.info("diagnostics also written to " + file);
    } catch (IOException e) {
      E2eLog.info("cannot write diagnostics file: " + e);
    }
  }

  private static void section(StringBuilder out, String title, String body) {
    out.append("---- $ ").append(title).append('\n').append(body);
    if (!body.endsWith("\n")) {
      out.append('\n');
    }
  }
}
