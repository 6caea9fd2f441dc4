package io.kvpool.operator.pool;

import io.javaoperatorsdk.operator.api.config.LeaderElectionConfiguration;
import io.kvpool.operator.admin.HttpPoolAdminClient;
import io.kvpool.operator.admin.MasterAddressResolver;
import io.kvpool.operator.admin.PoolAdminClient;
import io.kvpool.operator.common.LeadershipLoss;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;
import java.time.Clock;
import java.time.Duration;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * Wires the reconcilers' collaborators for the Quarkus application from {@code kvpool.operator.*}
 * settings.
 */
public class OperatorBeans {

  @Produces
  @Singleton
  PoolOperatorSettings settings(
      @ConfigProperty(name = "kvpool.operator.status-interval", defaultValue = "10s")
          Duration statusInterval,
      @ConfigProperty(name = "kvpool.operator.admin-timeout", defaultValue = "3s")
          Duration adminTimeout) {
    return new PoolOperatorSettings(statusInterval, adminTimeout);
  }

  @Produces
  @Singleton
  PoolAdminClient poolAdminClient(PoolOperatorSettings settings) {
    return new HttpPoolAdminClient(settings.adminTimeout());
  }

  @Produces
  @Singleton
  MasterAddressResolver masterAddressResolver(
      @ConfigProperty(
              name = "kvpool.operator.master-admin-url",
              defaultValue = MasterAddressResolver.LEADER_SERVICE_TEMPLATE)
          String template) {
    return MasterAddressResolver.fromTemplate(template);
  }

  @Produces
  @Singleton
  Clock clock() {
    return Clock.systemUTC();
  }

  /**
   * One active operator per cluster; QOSDK activates it only in the profiles listed in {@code
   * quarkus.operator-sdk.activate-leader-election-for-profiles} (prod), so dev mode runs alone. The
   * SDK's own exit on losing the lease is off: {@link LeadershipLoss} exits instead, but never from
   * the shutdown hook.
   */
  @Produces
  @Singleton
  LeaderElectionConfiguration leaderElection(
      @ConfigProperty(name = "kvpool.operator.lease-name", defaultValue = "kvpool-operator")
          String leaseName,
      LeadershipLoss leadershipLoss) {
    return new LeaderElectionConfiguration(
        leaseName,
        null,
        LeaderElectionConfiguration.LEASE_DURATION_DEFAULT_VALUE,
        LeaderElectionConfiguration.RENEW_DEADLINE_DEFAULT_VALUE,
        LeaderElectionConfiguration.RETRY_PERIOD_DEFAULT_VALUE,
        null,
        leadershipLoss.callbacks(),
        false);
  }
}
