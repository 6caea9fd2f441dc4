package io.kvpool.admin;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import java.util.List;

/**
 * The leading master's {@code GET /residents} document: every readable object (what a get can find)
 * with the block hashes its KV events name it by — the set a KV-event subscriber that follows the
 * rules holds (docs/events.md). O(objects): for checks and diagnostics, never for a scraper.
 *
 * @param objects each readable object
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record ResidentKeys(String apiVersion, long view, List<Resident> objects) {
  /**
   * @param blockHashes hex of each block hash the events name it by: its put's, or its key's UTF-8
   *     bytes without block metadata
   * @param tier {@code memory} when any replica is in memory, {@code disk} when every replica is on
   *     a disk tier: the medium its events name
   */
  @JsonIgnoreProperties(ignoreUnknown = true)
  public record Resident(String key, long generation, List<String> blockHashes, String tier) {}
}
