package io.kvpool.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvpool.admin.AdminJson;
import io.kvpool.admin.MasterStatus;
import org.junit.jupiter.api.Test;

class StatusTableTest {

  @Test
  void rendersNodesSortedWithTotalsAndHitRatio() throws Exception {
    String json =
        """
        {"apiVersion":"kvpool.io/admin/v1","poolId":"demo","role":"LEADER","view":1,"releaseVersion":"0.1.0","protocolVersion":"1.0",
         "nodes":[{"id":"node-2","endpoint":"127.0.0.1:2","state":"DEAD","capacityBytes":1048576,"usedBytes":0,
                   "version":"0.1.0","lastHeartbeatMillisAgo":12000},
                  {"id":"node-1","endpoint":"127.0.0.1:1","state":"ALIVE","capacityBytes":1048576,
                   "usedBytes":524288,"version":"0.1.0","lastHeartbeatMillisAgo":10}],
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
        .contains("12000 ms ago");
    assertThat(table).contains("2.0 MiB").contains("25%");
    assertThat(table).contains("puts 3  gets 4  hit ratio 0.75  evictions 0  repairs 2");
  }

  @Test
  void formatsBinaryUnits() {
    assertThat(StatusTable.bytes(5)).isEqualTo("5 B");
    assertThat(StatusTable.bytes(1536)).isEqualTo("1.5 KiB");
    assertThat(StatusTable.bytes(3L << 30)).isEqualTo("3.0 GiB");
  }
}
