package io.kvpool.admin;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;

/**
 * What a data-plane image declares about itself, printed by {@code
 * io.kvpool.server.ImageVersionMain} and written to the container's termination message, so that
 * the operator learns it from a short-lived pod before it rolls any pod to that image.
 *
 * @param release the release (semver) the image runs as
 * @param protocol its wire protocol, {@code major.minor}
 * @param inventoryFormat the format of the inventory its storage nodes leave next to their memory
 *     files; a warm restart across releases needs the same format on both sides
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record ImageVersion(
    String apiVersion, String release, String protocol, int inventoryFormat) {}
