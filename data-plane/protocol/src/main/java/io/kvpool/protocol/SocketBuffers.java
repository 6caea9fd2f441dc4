package io.kvpool.protocol;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.StandardSocketOptions;
import java.nio.channels.SocketChannel;

/**
 * Socket buffer sizes of a data-plane connection, chosen by where the peer is.
 *
 * <p>A peer on another machine gets large buffers: a value moves at the network's speed only if a
 * bandwidth-delay product of bytes can be in flight. A peer on this machine (a loopback address, or
 * the socket's own address) gets a small send buffer: there the kernel copies every value twice
 * through this machine's caches, the sender into socket buffers and the receiver out of them, and
 * with megabytes queued per connection those buffers have left the cache before they are read or
 * reused, so each copy runs at memory speed. Measured on loopback with 1 MiB replies to 4 clients
 * (2 cores): a 4 MiB send buffer cost the storage node 550–575 µs of CPU per read, 128 KiB cost
 * 270–313 µs, and reads went from 2.3 to 3.2–4.0 GB/s (data-plane/README.md, "Socket buffers").
 * Receive buffers stay large either way: a small one throttled the same reads to 1.8–2.4 GB/s. A
 * server sizes the buffer again for each large reply, by how many requests it is answering ({@link
 * FrameChannel#fitSendBuffer}): larger for one peer served alone ({@link
 * #LOCAL_PEER_SOLE_SEND_BYTES}), smaller when it is crowded ({@link
 * #LOCAL_PEER_CROWDED_SEND_BYTES}).
 */
public final class SocketBuffers {
  /** Receive buffer of every connection, and send buffer to a peer on another machine. */
  public static final int LARGE_BYTES = 4 << 20;

  /**
   * Send buffer to a peer on this machine (the kernel doubles it for its bookkeeping). Large enough
   * for several of loopback's 64 KiB segments in flight: a 32 KiB one left a loopback sender
   * waiting for room that never freed.
   */
  public static final int LOCAL_PEER_SEND_BYTES = 128 << 10;

  /**
   * Send buffer to a peer on this machine while a server answers that peer alone, request after
   * request, and the reply is one large value ({@link FrameChannel#fitSendBuffer}). One
   * connection's gets of 1 MiB then go at 0.65–0.68 of a loopback stream instead of 0.50–0.60 (512
   * KiB: 0.62–0.64, 4 MiB: 0.61); with the small buffer a sender fills it and waits on every reply
   * (data-plane/README.md, "A send buffer for a peer served alone").
   */
  public static final int LOCAL_PEER_SOLE_SEND_BYTES = 2 << 20;

  /**
   * Send buffer to a peer on this machine for a large reply while the server answers three requests
   * or more at once (a storage node's four connections when 8 clients read). The less each
   * connection may queue, the more of what the kernel copies stays in the caches (an inference from
   * the CPU figures, not traced). 1 MiB gets from 8 clients cost a node 236–247 µs of CPU instead
   * of 285–290 (data-plane/README.md, "A send buffer for a crowded server"). Not smaller: a 32 KiB
   * buffer stalled a loopback connection for good.
   */
  public static final int LOCAL_PEER_CROWDED_SEND_BYTES = 64 << 10;

  /**
   * Send buffer to a peer on this machine for a large reply sent from memory files ({@code
   * sendfile}), whatever the server's load. Such a buffer holds references to the files' pages, not
   * copies of the bytes, so the cache argument for the small local buffers does not hold; a small
   * one instead makes {@code sendfile}, which moves 64 KiB per round, sleep and wake for every
   * round or two (data-plane/README.md, "Zero-copy gets").
   */
  public static final int LOCAL_PEER_FILE_SEND_BYTES = 2 << 20;

  private SocketBuffers() {}

  /**
   * Sets the buffers of a connected {@code channel} for where its peer is; returns whether it is on
   * this machine.
   */
  static boolean apply(SocketChannel channel) throws IOException {
    boolean local = isLocalPeer(channel.getLocalAddress(), channel.getRemoteAddress());
    channel.setOption(StandardSocketOptions.SO_SNDBUF, local ? LOCAL_PEER_SEND_BYTES : LARGE_BYTES);
    channel.setOption(StandardSocketOptions.SO_RCVBUF, LARGE_BYTES);
    return local;
  }

  /**
   * Whether the peer at {@code remote} is on this machine as seen from a socket bound to {@code
   * local}: a loopback address, or the socket's own address (a process reaching this host's address
   * is routed locally). A peer on this machine behind another address (another network namespace)
   * counts as remote: the large buffer is the safe side.
   */
  public static boolean isLocalPeer(SocketAddress local, SocketAddress remote) {
    if (!(remote instanceof InetSocketAddress r) || r.getAddress() == null) {
      return false;
    }
    InetAddress peer = r.getAddress();
    if (peer.isLoopbackAddress()) {
      return true;
    }
    return local instanceof InetSocketAddress l && peer.equals(l.getAddress());
  }
}
