package io.kvpool.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import org.junit.jupiter.api.Test;

class SocketBuffersTest {
  private static InetSocketAddress at(String ip, int port) {
    return new InetSocketAddress(ip, port);
  }

  @Test
  void loopbackAndTheSocketsOwnAddressAreLocalPeers() {
    assertThat(SocketBuffers.isLocalPeer(at("127.0.0.1", 1), at("127.0.0.1", 2))).isTrue();
    assertThat(SocketBuffers.isLocalPeer(at("10.0.0.5", 1), at("127.0.0.9", 2))).isTrue();
    assertThat(SocketBuffers.isLocalPeer(at("::1", 1), at("::1", 2))).isTrue();
    assertThat(SocketBuffers.isLocalPeer(at("10.0.0.5", 7000), at("10.0.0.5", 40000))).isTrue();
  }

  @Test
  void anotherAddressIsARemotePeer() {
    assertThat(SocketBuffers.isLocalPeer(at("10.0.0.5", 7000), at("10.0.0.6", 40000))).isFalse();
    assertThat(SocketBuffers.isLocalPeer(at("0.0.0.0", 7000), at("10.0.0.6", 40000))).isFalse();
    assertThat(
            SocketBuffers.isLocalPeer(
                at("10.0.0.5", 7000), InetSocketAddress.createUnresolved("x", 1)))
        .isFalse();
    assertThat(SocketBuffers.isLocalPeer(at("10.0.0.5", 7000), null)).isFalse();
  }

  @Test
  void aLocalPeerGetsTheSmallSendBufferAndBothKeepTheLargeReceiveBuffer() throws Exception {
    try (ServerSocketChannel server =
            ServerSocketChannel.open().bind(new InetSocketAddress("127.0.0.1", 0));
        SocketChannel client = SocketChannel.open(server.getLocalAddress());
        SocketChannel accepted = server.accept()) {
      for (SocketChannel ch : new SocketChannel[] {client, accepted}) {
        new FrameChannel(ch, 1, 0);
        // Linux doubles what is asked (and caps it at the system's maximum)
        assertThat(ch.getOption(StandardSocketOptions.SO_SNDBUF))
            .isBetween(
                SocketBuffers.LOCAL_PEER_SEND_BYTES, 2 * SocketBuffers.LOCAL_PEER_SEND_BYTES);
        assertThat(ch.getOption(StandardSocketOptions.SO_RCVBUF))
            .isGreaterThan(2 * SocketBuffers.LOCAL_PEER_SEND_BYTES);
      }
    }
  }

  @Test
  void aServedLocalPeersSendBufferFollowsWhatTheServerAsksForEachReply() throws Exception {
    try (ServerSocketChannel server =
            ServerSocketChannel.open().bind(new InetSocketAddress("127.0.0.1", 0));
        SocketChannel client = SocketChannel.open(server.getLocalAddress());
        SocketChannel accepted = server.accept()) {
      FrameChannel served = new FrameChannel(accepted, 1, 0);

      served.fitSendBuffer(SocketBuffers.LOCAL_PEER_SOLE_SEND_BYTES);
      // Linux doubles what is asked, capped at twice net.core.wmem_max (4 MiB on the machines this
      // ran on)
      assertThat(served.sendBufferBytes())
          .isGreaterThan(2 * SocketBuffers.LOCAL_PEER_SEND_BYTES)
          .isLessThanOrEqualTo(2 * SocketBuffers.LOCAL_PEER_SOLE_SEND_BYTES);

      served.fitSendBuffer(SocketBuffers.LOCAL_PEER_CROWDED_SEND_BYTES);
      assertThat(served.sendBufferBytes())
          .isBetween(
              SocketBuffers.LOCAL_PEER_CROWDED_SEND_BYTES,
              2 * SocketBuffers.LOCAL_PEER_CROWDED_SEND_BYTES);

      served.fitSendBuffer(SocketBuffers.LOCAL_PEER_SEND_BYTES);
      assertThat(served.sendBufferBytes())
          .isBetween(SocketBuffers.LOCAL_PEER_SEND_BYTES, 2 * SocketBuffers.LOCAL_PEER_SEND_BYTES);
    }
  }
}
