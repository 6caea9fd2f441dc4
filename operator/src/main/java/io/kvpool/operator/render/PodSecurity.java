package io.kvpool.operator.render;

import io.fabric8.kubernetes.api.model.PodSecurityContext;
import io.fabric8.kubernetes.api.model.PodSecurityContextBuilder;
import io.fabric8.kubernetes.api.model.SecurityContext;
import io.fabric8.kubernetes.api.model.SecurityContextBuilder;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeBuilder;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.api.model.VolumeMountBuilder;
import io.kvpool.api.v1alpha1.ApiLimits;
import io.kvpool.operator.transferengine.TransportSettings;
import java.util.Locale;

/**
 * The security settings of every data-plane pod, chosen so that it passes the {@code restricted}
 * Pod Security Standard: a fixed non-root user, no privilege escalation, every capability dropped,
 * the runtime's default seccomp profile and a read-only root filesystem. The one writable place is
 * an {@code emptyDir} at /tmp: the JVM keeps its perf data there and JNA extracts libkvpool there
 * before loading it.
 *
 * <p>Only what a TransferEngine asks for goes beyond {@code restricted}, and then the namespace
 * must allow {@code privileged}, because {@code baseline} already refuses it: host networking and
 * the driver host paths of device transports ({@link #storageLevel}).
 */
public final class PodSecurity {
  /**
   * The data-plane image's files must be readable by this user (and group); 65532 is the usual
   * "nonroot".
   */
  public static final long USER = 65532L;

  public static final String TMP_SIZE = "64Mi";

  /** Pod Security Standard levels, from the most to the least restricted. */
  public enum Level {
    RESTRICTED,
    BASELINE,
    PRIVILEGED;

    /** The value of the pod-security.kubernetes.io/enforce label of a namespace. */
    public String label() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  private PodSecurity() {}

  public static PodSecurityContext pod() {
    return new PodSecurityContextBuilder()
        .withRunAsNonRoot(true)
        .withRunAsUser(USER)
        .withRunAsGroup(USER)
        .withFsGroup(USER)
        .withNewSeccompProfile()
        .withType("RuntimeDefault")
        .endSeccompProfile()
        .build();
  }

  public static SecurityContext container() {
    return new SecurityContextBuilder()
        .withAllowPrivilegeEscalation(false)
        .withPrivileged(false)
        .withReadOnlyRootFilesystem(true)
        .withRunAsNonRoot(true)
        .withNewCapabilities()
        .withDrop("ALL")
        .endCapabilities()
        .build();
  }

  /** The writable /tmp behind the read-only root filesystem. */
  public static Volume tmpVolume() {
    return new VolumeBuilder()
        .withName(ApiLimits.TMP_VOLUME)
        .withNewEmptyDir()
        .withNewSizeLimit(TMP_SIZE)
        .endEmptyDir()
        .build();
  }

  public static VolumeMount tmpMount() {
    return new VolumeMountBuilder()
        .withName(ApiLimits.TMP_VOLUME)
        .withMountPath(ApiLimits.TMP_DIR)
        .build();
  }

  /** The masters never need more than {@code restricted}. */
  public static Level masterLevel() {
    return Level.RESTRICTED;
  }

  /**
   * The least Pod Security level the storage pods of a pool using {@code transport} are admitted
   * under: host networking and host paths (device driver mounts) are refused by {@code baseline}
   * and {@code restricted} alike.
   */
  public static Level storageLevel(TransportSettings transport) {
    boolean hostPaths =
        transport.devices().map(devices -> !devices.driverMounts().isEmpty()).orElse(false);
    return transport.hostNetwork() || hostPaths ? Level.PRIVILEGED : Level.RESTRICTED;
  }
}
