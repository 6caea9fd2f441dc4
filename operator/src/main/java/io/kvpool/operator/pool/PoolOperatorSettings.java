package io.kvpool.operator.pool;

import java.time.Duration;

/**
 * Tunables of the pool controller.
 *
 * @param statusInterval how often a pool's status is re-read from its leader without any event
 * @param adminTimeout connect and read timeout of one admin call
 */
public record PoolOperatorSettings(Duration statusInterval, Duration adminTimeout) {}
