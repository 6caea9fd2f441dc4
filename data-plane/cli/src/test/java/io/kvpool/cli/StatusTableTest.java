package io.kvpool.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvpool.admin.AdminJson;
import io.kvpool.admin.MasterStatus;
import io.kvpool.client.PoolStats;
import org.junit.jupiter.api.Test;

class StatusTableTest {

  @Test
  void rendersNodesSortedWithTotalsAndHitRatio() throws Exception {
    String json =
        """
        {"apiVersion":"kvpool.io/admin/v1","poolId":"demo","role":"LEADER","view":1,"releaseVersion":"0.1.0","protocolVersion":"1.0",
         "nodes":[{"id":"node-2","endpoint":"127.0.0.1:2","state":"DEAD","capacityBytes":1048576,"usedBytes":0,
                   "version":"0.1.0","lastHeartbeatMillisAgo":12000,
                   "disk":{"capacityBytes":4194304,"usedBytes":0,"healthy":false,"message":"No space left on device"}},
                  {"id":"node-1","endpoint":"127.0.0.1:1","state":"ALIVE","capacityBytes":1048576,
                   "usedBytes":524288,"version":"0.1.0","lastHeartbeatMillisAgo":10,
                   "disk":{"capacityBytes":4194304,"usedBytes":1048576,"healthy":true}},
                  {"id":"node-3","endpoint":"127.0.0.1:3","state":"ALIVE","capacityBytes":1048576,"usedBytes":0,
                   "version":"0.1.0","lastHeartbeatMillisAgo":4200,"silent":true}],
         "capacityBytes":2097152,"usedBytes":524288,"objectCount":3,
         "counters":{"puts":3,"gets":4,"getHits":3,"getMisses":1,"evictions":0,"repairs":2}}
        """;
    String table = StatusTable.render(AdminJson.read(json, MasterStatus.class));
    assertThat(table).contains("pool demo  role LEADER  view 1  release 0.1.0  protocol 1.0");
    assertThat(table.indexOf("node-1")).isLessThan(table.indexOf("node-2"));
    assertThat(table)
        .contains("512.0 KiB")
        .contains("50%")
        .contains("DEAD")
        .contains("12000 ms ago")
        .contains("10 ms ago" + System.lineSeparator())
        .contains("4200 ms ago, silent");
    assertThat(table).contains("2.0 MiB").contains("25%");
    assertThat(table).contains("puts 3  gets 4  hit ratio 0.75  evictions 0  repairs 2");
    assertThat(table)
        .contains("disk node-1: 1.0 MiB of 4.0 MiB (25%) healthy")
        .contains("disk node-2: 0 B of 4.0 MiB (0%) degraded: No space left on device");
  }

  @Test
  void summarySaysTheDiskTiersWhenThePoolHasThem() {
    assertThat(StatusTable.summary(new PoolStats(4096, 1024, 7, 2, PoolStats.DiskTier.NONE)))
        .isEqualTo("nodes 2  capacity 4.0 KiB  used 1.0 KiB (25%)  objects 7");
    assertThat(
            StatusTable.summary(
                new PoolStats(4096, 1024, 7, 2, new PoolStats.DiskTier(8L << 30, 2L << 30, 2, 1))))
        .isEqualTo(
            "nodes 2  capacity 4.0 KiB  used 1.0 KiB (25%)  objects 7"
                + System.lineSeparator()
                + "disk tiers 2  capacity 8.0 GiB  used 2.0 GiB (25%)  degraded 1");
  }

  @Test
  void formatsBinaryUnits() {
    assertThat(StatusTable.bytes(5)).isEqualTo("5 B");
    assertThat(StatusTable.bytes(1536)).isEqualTo("1.5 KiB");
    assertThat(StatusTable.bytes(3L << 30)).isEqualTo("3.0 GiB");
  }
}
