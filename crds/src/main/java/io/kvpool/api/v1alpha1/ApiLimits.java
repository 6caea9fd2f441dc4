package io.kvpool.api.v1alpha1;

/**
 * Bounds and formats the CRD schema enforces, in one place so that the operator can check objects
 * stored under an older schema by the same rules. Regular expressions use character classes instead
 * of backslashes so that they can sit inside a CEL string literal unchanged.
 */
public final class ApiLimits {
  /**
   * Longest pool name: its StatefulSets are {@code <pool>-storage} and {@code <pool>-master}, and a
   * StatefulSet name longer than 52 characters cannot label its pods with {@code
   * controller-revision-hash} (63 characters at most).
   */
  public static final int MAX_POOL_NAME = 44;

  /** DNS-1035 label: the pool's Services are named after it. */
  public static final String POOL_NAME_PATTERN = "^[a-z]([-a-z0-9]*[a-z0-9])?$";

  /**
   * The version becomes the {@code app.kubernetes.io/version} label value: 63 characters at most.
   */
  public static final int MAX_VERSION = 63;

  /**
   * Semantic version 2.0.0 without a leading "v" and without build metadata ({@code +} is not
   * allowed in a label value), ending in a letter or digit (as a label value must).
   */
  public static final String VERSION_PATTERN =
      "^(0|[1-9][0-9]*)[.](0|[1-9][0-9]*)[.](0|[1-9][0-9]*)"
          + "(-[0-9A-Za-z-]+([.][0-9A-Za-z-]+)*)?$";

  public static final String ENDS_ALPHANUMERIC = "[0-9A-Za-z]$";

  public static final int MAX_IMAGE = 512;

  /**
   * An image reference: optional registry host (and port), lowercase path components, optional tag
   * and digest. No whitespace anywhere (the kubelet cannot pull such a name).
   */
  public static final String IMAGE_PATTERN =
      "^([A-Za-z0-9]([-A-Za-z0-9.]*[A-Za-z0-9])?(:[0-9]+)?/)?"
          + "[a-z0-9]+([._-]+[a-z0-9]+)*(/[a-z0-9]+([._-]+[a-z0-9]+)*)*"
          + "(:[A-Za-z0-9_][-A-Za-z0-9_.]{0,127})?(@sha256:[a-f0-9]{64})?$";

  /**
   * Durations the data plane parses: whole milliseconds, seconds or minutes, at most seven digits.
   */
  public static final String DURATION_PATTERN = "^[0-9]{1,7}(ms|s|m)$";

  public static final int MAX_DURATION = 9;

  /** One largest KV-cache value (16 MiB, DESIGN.md) must fit in a segment. */
  public static final String MIN_SEGMENT = "16Mi";

  public static final long MIN_SEGMENT_BYTES = 16L << 20;
  public static final String MAX_MEMORY_PER_NODE = "64Ti";
  public static final String MAX_CONTAINER_MEMORY = "64Ti";
  public static final int MAX_STORAGE_REPLICAS = 512;
  public static final int MAX_SEGMENTS = 1024;

  /**
   * A storage node's disk tier: at least a few files of the largest KV value (16 MiB), at most a
   * petabyte; its files 1Mi to 1Gi, whole 4 KiB blocks; the tier keeps {@value #DISK_RESERVE_BYTES}
   * bytes of its cap for the folder and needs room for two files besides.
   */
  public static final String MIN_DISK = "64Mi";

  public static final String MAX_DISK = "1Pi";
  public static final String MIN_DISK_FILE = "1Mi";
  public static final String MAX_DISK_FILE = "1Gi";
  public static final int DISK_FILE_ALIGNMENT = 4096;
  public static final long DISK_RESERVE_BYTES = 64 << 10;

  /** Absolute node path without whitespace, as a hostPath volume takes it. */
  public static final String HOST_PATH_PATTERN = "^/[^\\s]*$";

  /** A StorageClass name (DNS-1123 subdomain). */
  public static final String STORAGE_CLASS_PATTERN =
      "^[a-z0-9]([-a-z0-9]*[a-z0-9])?([.][a-z0-9]([-a-z0-9]*[a-z0-9])?)*$";

  /** Label key: optional DNS-subdomain prefix and a name of at most 63 characters. */
  public static final String LABEL_KEY_PATTERN =
      "^([a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?/)?"
          + "[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$";

  /** Label value: empty, or at most 63 characters starting and ending with a letter or digit. */
  public static final String LABEL_VALUE_PATTERN =
      "^(([A-Za-z0-9][-A-Za-z0-9_.]{0,61})?[A-Za-z0-9])?$";

  /**
   * Resource name in requests and limits: cpu, memory, hugepages-2Mi, or a domain-prefixed extended
   * resource.
   */
  public static final String RESOURCE_NAME_PATTERN =
      "^([a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?/)?"
          + "[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$";

  /**
   * Volume names the operator itself gives the data-plane pods; a driver mount must not reuse them.
   */
  public static final String CONFIG_VOLUME = "pool-config";

  public static final String TMP_VOLUME = "tmp";
  public static final String HUGEPAGES_VOLUME = "hugepages";
  public static final String DISK_VOLUME = "disk-tier";

  /** Paths the operator itself mounts in the data-plane containers. */
  public static final String CONFIG_DIR = "/etc/kvpool";

  public static final String TMP_DIR = "/tmp";
  public static final String HUGEPAGES_DIR = "/dev/hugepages";
  public static final String DISK_DIR = "/var/lib/kvpool/disk";

  private ApiLimits() {}
}
