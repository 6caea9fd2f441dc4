package io.kvpool.e2e.cluster;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Which cluster the end-to-end suite runs on, decided from what {@link ClusterProbe} found, in this
 * order:
 *
 * <ol>
 *   <li>a cluster given by {@value #KUBECONFIG_ENV}, else by {@code KUBECONFIG} (the suite installs
 *       kvpool into it and leaves the cluster running);
 *   <li>a K3s container (Testcontainers) where Docker runs privileged containers and has or can
 *       pull the {@code rancher/k3s} image;
 *   <li>the local single-node cluster of {@code e2e/cluster/up.sh} (Linux, root).
 * </ol>
 *
 * {@value #FORCE_ENV}={@code kubeconfig|k3s|local} skips the order. The decision is a pure function
 * of the probe's findings, so every branch is unit-tested with plain values.
 */
public final class ClusterChoice {
  public static final String KUBECONFIG_ENV = "KVPOOL_E2E_KUBECONFIG";
  public static final String FORCE_ENV = "KVPOOL_E2E_CLUSTER";

  public enum Kind {
    KUBECONFIG,
    K3S,
    LOCAL
  }

  /**
   * What was found on the machine.
   *
   * @param forced the value of {@value #FORCE_ENV}, or null
   * @param e2eKubeconfig the value of {@value #KUBECONFIG_ENV}, or null
   * @param kubeconfig the value of {@code KUBECONFIG}, or null
   * @param readableFiles which of those two paths are readable files
   * @param docker Docker's answers (never asked when a kubeconfig decides)
   * @param local whether the local cluster can start here, and if not why
   */
  public record Findings(
      String forced,
      String e2eKubeconfig,
      String kubeconfig,
      List<String> readableFiles,
      Docker docker,
      Local local) {}

  /**
   * @param reason why not, when {@code usable} is false
   */
  public record Docker(
      boolean reachable, boolean privilegedAllowed, boolean k3sImageAvailable, String reason) {
    public boolean usable() {
      return reachable && privilegedAllowed && k3sImageAvailable;
    }

    public static Docker unreachable(String reason) {
      return new Docker(false, false, false, reason);
    }
  }

  /**
   * @param reason why not, when {@code possible} is false
   */
  public record Local(boolean possible, String reason) {}

  /**
   * The decision: the kind, the kubeconfig file for {@link Kind#KUBECONFIG}, and why, for the log.
   */
  public record Decision(Kind kind, String kubeconfig, String reason) {}

  private ClusterChoice() {}

  public static Decision decide(Findings f) {
    if (present(f.forced())) {
      return forced(f, f.forced().trim().toLowerCase(Locale.ROOT));
    }
    if (present(f.e2eKubeconfig())) {
      return given(f, f.e2eKubeconfig(), KUBECONFIG_ENV);
    }
    if (present(f.kubeconfig()) && !"/dev/null".equals(f.kubeconfig().trim())) {
      return given(f, f.kubeconfig(), "KUBECONFIG");
    }
    List<String> rejected = new ArrayList<>();
    rejected.add("no " + KUBECONFIG_ENV + " or KUBECONFIG");
    if (f.docker().usable()) {
      return new Decision(
          Kind.K3S,
          null,
          "Docker runs privileged containers and has rancher/k3s ("
              + String.join("; ", rejected)
              + ")");
    }
    rejected.add("no K3s container: " + f.docker().reason());
    if (f.local().possible()) {
      return new Decision(
          Kind.LOCAL,
          null,
          "the local cluster of e2e/cluster/up.sh (" + String.join("; ", rejected) + ")");
    }
    rejected.add("no local cluster: " + f.local().reason());
    throw new IllegalStateException(
        "no cluster for the end-to-end suite: "
            + String.join("; ", rejected)
            + ". Point "
            + KUBECONFIG_ENV
            + " at a cluster that has the kvpool images.");
  }

  private static Decision forced(Findings f, String forced) {
    return switch (forced) {
      case "kubeconfig" -> {
        String file = present(f.e2eKubeconfig()) ? f.e2eKubeconfig() : f.kubeconfig();
        if (!present(file)) {
          throw new IllegalStateException(
              FORCE_ENV + "=kubeconfig but neither " + KUBECONFIG_ENV + " nor KUBECONFIG is set");
        }
        yield given(f, file, FORCE_ENV + "=kubeconfig");
      }
      case "k3s" -> {
        if (!f.docker().usable()) {
          throw new IllegalStateException(
              FORCE_ENV + "=k3s but K3s cannot run here: " + f.docker().reason());
        }
        yield new Decision(Kind.K3S, null, FORCE_ENV + "=k3s");
      }
      case "local" -> {
        if (!f.local().possible()) {
          throw new IllegalStateException(
              FORCE_ENV + "=local but the local cluster cannot start: " + f.local().reason());
        }
        yield new Decision(Kind.LOCAL, null, FORCE_ENV + "=local");
      }
      default ->
          throw new IllegalStateException(
              FORCE_ENV + "=" + forced + " is none of kubeconfig, k3s, local");
    };
  }

  private static Decision given(Findings f, String file, String source) {
    if (!f.readableFiles().contains(file)) {
      throw new IllegalStateException(source + " names " + file + ", which is not a readable file");
    }
    return new Decision(Kind.KUBECONFIG, file, "the cluster of " + file + " (from " + source + ")");
  }

  private static boolean present(String value) {
    return value != null && !value.isBlank();
  }
}
