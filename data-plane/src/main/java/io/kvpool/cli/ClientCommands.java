package io.kvpool.cli;

import io.kvpool.client.ClientConfig;
import io.kvpool.client.KvPoolClient;
import io.kvpool.common.HostPort;
import java.time.Duration;

/** How the single-operation commands reach the pool. */
final class ClientCommands {

  private ClientCommands() {
  }

  static KvPoolClient connect(CliArguments args) {
    HostPort master = args.endpoint("master")
        .orElseThrow(() -> new UsageException("needs --master HOST:PORT, the master RPC address that "
            + "'kvpool local' prints"));
    return KvPoolClient.connect(ClientConfig.builder().master(master.toString()).clientId("kvpool-cli")
        .timeout(Duration.ofSeconds(30)).build());
  }
}
