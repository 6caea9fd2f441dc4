package io.kvpool.operator.rollout;

import io.kvpool.admin.ImageVersion;
import io.kvpool.api.v1alpha1.RolloutPhase;
import io.kvpool.api.v1alpha1.UpgradeStatus;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * Decides which release the pool's StatefulSets render: {@code spec.version} only once the change
 * is allowed (the {@link VersionPolicy} from every release a pod runs, and the protocols the target
 * image declares in its {@link ImageCheck} against those running), else the release they render
 * now, so that a refused change restarts nothing. A rollout that timed out with {@code onFailure:
 * Rollback} renders the release it started from until {@code spec.version} (or the image) changes.
 * Pure: the same inputs give the same decision in the reconciler and in the dependents that render.
 */
public final class ReleaseGate {
  private ReleaseGate() {}

  /** A release and the image it runs from. */
  public record Release(String version, String image) {}

  /**
   * What the gate decides from.
   *
   * @param target spec.version and the image it means
   * @param allowDowngrade spec.upgrade.allowDowngrade
   * @param deployed what the master StatefulSet renders now (its release and image annotations);
   *     empty before the pool's StatefulSets exist
   * @param podReleases the releases the pool's data-plane pods record
   * @param runningProtocols the wire protocols the leader reports for itself and its storage nodes;
   *     empty while it cannot be read
   * @param checks what each image's check pod says, by image
   * @param previous status.upgrade as last written
   */
  public record Inputs(
      Release target,
      boolean allowDowngrade,
      Optional<Release> deployed,
      Set<String> podReleases,
      Set<String> runningProtocols,
      Map<String, ImageCheck.Result> checks,
      UpgradeStatus previous) {}

  /** Outcomes, from nothing to do to refused. */
  public enum Verdict {
    /**
     * No release change: render the target (template changes of the same release roll through the
     * planner).
     */
    CURRENT,
    /** A release change that passed every check: render the target. */
    PROCEED,
    /** Waiting for the target image's check or the running protocols: keep rendering what runs. */
    CHECKING,
    /** Refused: keep rendering what runs; {@link Decision#reason} is the UpgradeBlocked reason. */
    BLOCKED,
    /** A timed-out rollout returns to the release it started from. */
    ROLLING_BACK
  }

  /**
   * @param render the release the StatefulSets render
   * @param verdict how it was decided
   * @param reason the UpgradeBlocked (or Progressing) reason: VersionPolicy, ProtocolIncompatible,
   *     ImageCheckFailed, ImageReleaseMismatch, RolledBack; null when not blocked
   * @param message what is wrong and what to do, or what is awaited
   * @param checkImage the image whose check pod must exist now, if any
   * @param targetFormat the inventory format the target image declared, when known
   */
  public record Decision(
      Release render,
      Verdict verdict,
      String reason,
      String message,
      Optional<String> checkImage,
      Optional<Integer> targetFormat) {
    public boolean blocked() {
      return verdict == Verdict.BLOCKED;
    }
  }

  public static Decision decide(Inputs in) {
    if (in.deployed().isEmpty()) {
      return decision(
          in.target(),
          Verdict.CURRENT,
          null,
          "creating the pool at release " + in.target().version(),
          Optional.empty(),
          Optional.empty());
    }
    Release deployed = in.deployed().get();
    UpgradeStatus prev = in.previous();
    if (prev != null
        && (prev.getPhase() == RolloutPhase.RollingBack
            || prev.getPhase() == RolloutPhase.RolledBack)
        && in.target().version().equals(prev.getTo())
        && in.target().image().equals(prev.getToImage())
        && prev.getFrom() != null
        && prev.getFromImage() != null) {
      Release back = new Release(prev.getFrom(), prev.getFromImage());
      boolean done = prev.getPhase() == RolloutPhase.RolledBack;
      return decision(
          back,
          done ? Verdict.BLOCKED : Verdict.ROLLING_BACK,
          done ? "RolledBack" : null,
          (done ? "rolled back" : "rolling back")
              + " to "
              + back.version()
              + " after a step of the rollout to "
              + prev.getTo()
              + " timed out"
              + (prev.getMessage() == null ? "" : " (" + prev.getMessage() + ")")
              + "; change spec.version or spec.image to try again",
          Optional.empty(),
          Optional.empty());
    }
    if (in.target().equals(deployed)
        && in.podReleases().stream().allMatch(r -> r.equals(deployed.version()))) {
      return decision(
          in.target(),
          Verdict.CURRENT,
          null,
          "no release change",
          Optional.empty(),
          Optional.empty());
    }
    if (in.target().version().equals(deployed.version())
        && in.target().image().equals(deployed.image())) {
      // the StatefulSets already render the target: a rollout to it is under way, it was allowed
      // when it started
      return decision(
          in.target(),
          Verdict.PROCEED,
          null,
          "rolling out release " + deployed.version(),
          Optional.empty(),
          Optional.empty());
    }
    Set<String> running = new TreeSet<>(in.podReleases());
    running.add(deployed.version());
    for (String from : running) {
      Optional<String> refusal =
          VersionPolicy.refusal(from, in.target().version(), in.allowDowngrade());
      if (refusal.isPresent()) {
        return hold(
            deployed,
            Verdict.BLOCKED,
            "VersionPolicy",
            refusal.get() + keeps(deployed),
            Optional.empty());
      }
    }
    ImageCheck.Result check = in.checks().get(in.target().image());
    if (check == null || check.state() == ImageCheck.Result.State.PENDING) {
      return hold(
          deployed,
          Verdict.CHECKING,
          null,
          check == null
              ? "checking what image "
                  + in.target().image()
                  + " declares before any pod is replaced"
              : check.message(),
          Optional.of(in.target().image()));
    }
    if (check.state() == ImageCheck.Result.State.FAILED) {
      return hold(
          deployed,
          Verdict.BLOCKED,
          "ImageCheckFailed",
          check.message() + keeps(deployed),
          Optional.of(in.target().image()));
    }
    ImageVersion declared = check.declared();
    if (!in.target().version().equals(declared.release())) {
      return hold(
          deployed,
          Verdict.BLOCKED,
          "ImageReleaseMismatch",
          "image "
              + in.target().image()
              + " declares release "
              + declared.release()
              + ", not spec.version "
              + in.target().version()
              + "; use the image of release "
              + in.target().version()
              + keeps(deployed),
          Optional.of(in.target().image()));
    }
    if (in.runningProtocols().isEmpty()) {
      return hold(
          deployed,
          Verdict.CHECKING,
          null,
          "waiting for the leader to report the protocols the pods speak",
          Optional.of(in.target().image()));
    }
    for (String protocol : in.runningProtocols()) {
      Optional<String> refusal =
          VersionPolicy.protocolRefusal(
              deployed.version(), protocol, declared.release(), declared.protocol());
      if (refusal.isPresent()) {
        return hold(
            deployed,
            Verdict.BLOCKED,
            "ProtocolIncompatible",
            refusal.get() + keeps(deployed),
            Optional.of(in.target().image()));
      }
    }
    return decision(
        in.target(),
        Verdict.PROCEED,
        null,
        "release "
            + String.join(", ", running)
            + " -> "
            + in.target().version()
            + " allowed; "
            + check.message(),
        Optional.of(in.target().image()),
        Optional.of(declared.inventoryFormat()));
  }

  private static String keeps(Release deployed) {
    return "; the pool keeps running " + deployed.version();
  }

  private static Decision hold(
      Release deployed,
      Verdict verdict,
      String reason,
      String message,
      Optional<String> checkImage) {
    return decision(deployed, verdict, reason, message, checkImage, Optional.empty());
  }

  private static Decision decision(
      Release render,
      Verdict verdict,
      String reason,
      String message,
      Optional<String> checkImage,
      Optional<Integer> format) {
    return new Decision(render, verdict, reason, message, checkImage, format);
  }
}
