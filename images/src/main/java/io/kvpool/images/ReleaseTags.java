package io.kvpool.images;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.kvpool.common.VersionInfo;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;
import org.apache.commons.compress.archivers.tar.TarArchiveOutputStream;

/**
 * The data-plane image under other release tags, for upgrade tests: {@code
 * kvpool/data-plane:1.0.0}, {@code :1.1.0}, {@code :2.0.0} are the data-plane image of this build
 * whose config declares another release: the environment variable {@value VersionInfo#RELEASE_ENV}
 * (which every kvpool process, and so the operator's image check, reads as its release) and the
 * release labels. Everything else (layers, user, command, the other variables) is the data-plane
 * image's, byte for byte.
 *
 * <p>All tags go into one tarball in the layout {@code docker save} writes for several images: the
 * layer blobs once, one config and one {@code manifest.json} entry per tag. It costs the data-plane
 * image's size once on disk (not once per tag) and well under a second to write; a runtime that
 * already imported the data-plane image stores no new layer.
 */
final class ReleaseTags {
  /**
   * Two minors of one major and the next major: what upgrade tests need (a rolling upgrade, a
   * blocked one).
   */
  static final List<String> RELEASES = List.of("1.0.0", "1.1.0", "2.0.0");

  static final String TARBALL = "kvpool-data-plane-releases.tar";
  private static final ObjectMapper JSON = new ObjectMapper();

  private ReleaseTags() {}

  /** {@code kvpool/data-plane:<release>}. */
  static String reference(String release) {
    return KvpoolImages.DATA_PLANE_REPOSITORY + ":" + release;
  }

  /** What was written: the tarball and, per release tag, the image id (the config's digest). */
  record Written(Path tarball, Map<String, String> imageIds) {}

  /**
   * Writes {@code target} holding the image of {@code dataPlaneTarball} (a one-image archive as Jib
   * writes it) once per release of {@code releases}, each declaring its release.
   */
  static Written write(Path dataPlaneTarball, List<String> releases, Path target)
      throws IOException {
    Map<String, byte[]> small = new LinkedHashMap<>();
    List<String> blobs = new ArrayList<>();
    try (TarArchiveInputStream in =
        new TarArchiveInputStream(Files.newInputStream(dataPlaneTarball))) {
      for (TarArchiveEntry e; (e = in.getNextEntry()) != null; ) {
        if (!e.isFile()) {
          continue;
        }
        if (e.getName().endsWith(".json")) {
          small.put(e.getName(), in.readAllBytes());
        } else {
          blobs.add(e.getName());
        }
      }
    }
    JsonNode manifests = JSON.readTree(required(small, "manifest.json", dataPlaneTarball));
    if (!manifests.isArray() || manifests.size() != 1) {
      throw new IllegalStateException(
          dataPlaneTarball + " holds " + manifests.size() + " images, expected one");
    }
    JsonNode manifest = manifests.get(0);
    String configName = manifest.get("Config").asText();
    ObjectNode config = (ObjectNode) JSON.readTree(required(small, configName, dataPlaneTarball));

    Map<String, byte[]> configs = new LinkedHashMap<>();
    Map<String, String> imageIds = new LinkedHashMap<>();
    ArrayNode outManifest = JSON.createArrayNode();
    for (String release : releases) {
      byte[] declared = JSON.writeValueAsBytes(declaring(config, release));
      String digest = sha256(declared);
      configs.put(digest + ".json", declared);
      imageIds.put(reference(release), "sha256:" + digest);
      ObjectNode entry = outManifest.addObject();
      entry.put("Config", digest + ".json");
      entry.putArray("RepoTags").add(reference(release));
      entry.set("Layers", manifest.get("Layers").deepCopy());
    }

    Files.createDirectories(target.getParent());
    Path partial = target.resolveSibling(target.getFileName() + ".partial");
    try (TarArchiveOutputStream out = new TarArchiveOutputStream(Files.newOutputStream(partial));
        TarArchiveInputStream in =
            new TarArchiveInputStream(Files.newInputStream(dataPlaneTarball))) {
      out.setLongFileMode(TarArchiveOutputStream.LONGFILE_POSIX);
      for (TarArchiveEntry e; (e = in.getNextEntry()) != null; ) {
        if (e.isFile() && blobs.contains(e.getName())) {
          copy(out, e.getName(), e.getSize(), in);
        }
      }
      for (Map.Entry<String, byte[]> c : configs.entrySet()) {
        put(out, c.getKey(), c.getValue());
      }
      put(out, "manifest.json", JSON.writeValueAsBytes(outManifest));
      out.finish();
    }
    Files.move(partial, target, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
    return new Written(target, imageIds);
  }

  /**
   * {@code config} (an image config) declaring {@code release}: {@value VersionInfo#RELEASE_ENV}
   * set (replaced if present) and the release labels; nothing else changes.
   */
  static ObjectNode declaring(ObjectNode config, String release) {
    ObjectNode copy = config.deepCopy();
    ObjectNode container = (ObjectNode) copy.get("config");
    ArrayNode env = JSON.createArrayNode();
    String prefix = VersionInfo.RELEASE_ENV + "=";
    if (container.get("Env") != null) {
      container
          .get("Env")
          .forEach(
              v -> {
                if (!v.asText().startsWith(prefix)) {
                  env.add(v.asText());
                }
              });
    }
    env.add(prefix + release);
    container.set("Env", env);
    ObjectNode labels =
        container.get("Labels") instanceof ObjectNode l ? l : container.putObject("Labels");
    labels.put(KvpoolImages.RELEASE_LABEL, release);
    labels.put("org.opencontainers.image.version", release);
    return copy;
  }

  private static byte[] required(Map<String, byte[]> files, String name, Path tarball) {
    byte[] bytes = files.get(name);
    if (bytes == null) {
      throw new IllegalStateException(
          tarball + " has no " + name + " (not an image archive as docker save writes)");
    }
    return bytes;
  }

  private static void copy(TarArchiveOutputStream out, String name, long size, InputStream in)
      throws IOException {
    out.putArchiveEntry(entry(name, size));
    in.transferTo(out);
    out.closeArchiveEntry();
  }

  private static void put(TarArchiveOutputStream out, String name, byte[] bytes)
      throws IOException {
    out.putArchiveEntry(entry(name, bytes.length));
    ((OutputStream) out).write(bytes);
    out.closeArchiveEntry();
  }

  /** Fixed times and modes: the same inputs write the same tarball. */
  private static TarArchiveEntry entry(String name, long size) {
    TarArchiveEntry entry = new TarArchiveEntry(name);
    entry.setSize(size);
    entry.setMode(0100644);
    entry.setModTime(ImageWriter.FILE_TIME.toEpochMilli());
    return entry;
  }

  private static String sha256(byte[] bytes) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
