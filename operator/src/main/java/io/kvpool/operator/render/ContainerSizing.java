package io.kvpool.operator.render;

import io.fabric8.kubernetes.api.model.ResourceRequirements;

/** The resources of a data-plane container and the JVM limits that fit in them. */
public record ContainerSizing(ResourceRequirements resources, JvmMemory jvm) {}
