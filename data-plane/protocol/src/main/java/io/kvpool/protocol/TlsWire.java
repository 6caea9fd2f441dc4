package io.kvpool.protocol;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLEngineResult;
import javax.net.ssl.SSLException;

/**
 * TLS over a blocking socket with the JDK's {@link SSLEngine}: records are read into and written
 * from direct buffers, so value bytes cross no Java heap array here either (they are decrypted into
 * a direct staging buffer and copied native to native). The handshake runs in the constructor; a
 * deadline closing the socket interrupts it like any other read.
 */
final class TlsWire implements FrameChannel.Wire {
  private final SocketChannel socket;
  private final SSLEngine engine;
  private final ByteBuffer netIn; // received records not yet decrypted: position..limit after flip
  private final ByteBuffer netOut; // encrypted bytes to send
  private final ByteBuffer appIn; // decrypted bytes not yet handed out: position..limit

  TlsWire(SocketChannel socket, SSLEngine engine) throws IOException {
    this.socket = socket;
    this.engine = engine;
    int packet = engine.getSession().getPacketBufferSize();
    int app = engine.getSession().getApplicationBufferSize();
    this.netIn = ByteBuffer.allocateDirect(packet).flip();
    this.netOut = ByteBuffer.allocateDirect(packet);
    this.appIn = ByteBuffer.allocateDirect(app).flip();
    engine.beginHandshake();
    handshake();
  }

  @Override
  public SocketChannel socket() {
    return socket;
  }

  private void handshake() throws IOException {
    while (true) {
      switch (engine.getHandshakeStatus()) {
        case NEED_WRAP -> {
          SSLEngineResult r;
          synchronized (
              netOut) { // a reader answering a post-handshake message shares netOut with a writer
            netOut.clear();
            r = engine.wrap(ByteBuffer.allocate(0), netOut);
            flush();
          }
          if (r.getStatus() == SSLEngineResult.Status.CLOSED) {
            throw new EOFException("TLS peer closed during the handshake");
          }
        }
        case NEED_UNWRAP, NEED_UNWRAP_AGAIN -> unwrapSome();
        case NEED_TASK -> {
          Runnable task;
          while ((task = engine.getDelegatedTask()) != null) {
            task.run();
          }
        }
        default -> {
          return; // FINISHED or NOT_HANDSHAKING
        }
      }
    }
  }

  /**
   * Decrypts at least one record into appIn, reading from the socket when a whole record is not
   * buffered yet.
   */
  private void unwrapSome() throws IOException {
    while (true) {
      appIn.compact();
      SSLEngineResult r;
      try {
        r = engine.unwrap(netIn, appIn);
      } finally {
        appIn.flip();
      }
      switch (r.getStatus()) {
        case OK -> {
          return;
        }
        case BUFFER_UNDERFLOW -> {
          netIn.compact();
          int n;
          try {
            n = socket.read(netIn);
          } finally {
            netIn.flip();
          }
          if (n < 0) {
            throw new EOFException("TLS peer closed the connection");
          }
        }
        case BUFFER_OVERFLOW ->
            throw new SSLException("TLS record larger than the application buffer");
        case CLOSED -> throw new EOFException("TLS peer closed the connection");
        default -> throw new SSLException("unexpected TLS state " + r.getStatus());
      }
    }
  }

  @Override
  public int read(ByteBuffer dst) throws IOException {
    while (!appIn.hasRemaining()) {
      try {
        unwrapSome();
      } catch (EOFException e) {
        return -1;
      }
      if (engine.getHandshakeStatus() != SSLEngineResult.HandshakeStatus.NOT_HANDSHAKING
          && engine.getHandshakeStatus() != SSLEngineResult.HandshakeStatus.FINISHED) {
        handshake(); // TLS 1.3 post-handshake messages (session tickets, key updates)
      }
    }
    int n = Math.min(dst.remaining(), appIn.remaining());
    dst.put(dst.position(), appIn, appIn.position(), n);
    dst.position(dst.position() + n);
    appIn.position(appIn.position() + n);
    return n;
  }

  @Override
  public long write(ByteBuffer[] srcs) throws IOException {
    long total = 0;
    for (ByteBuffer b : srcs) {
      if (b != null) {
        total += b.remaining();
      }
    }
    long left = total;
    synchronized (netOut) {
      while (left > 0) {
        netOut.clear();
        SSLEngineResult r = engine.wrap(nonNull(srcs), netOut);
        if (r.getStatus() == SSLEngineResult.Status.CLOSED) {
          throw new EOFException("TLS connection closed");
        }
        left -= r.bytesConsumed();
        flush();
      }
    }
    return total;
  }

  private static ByteBuffer[] nonNull(ByteBuffer[] srcs) {
    int n = 0;
    for (ByteBuffer b : srcs) {
      if (b != null) {
        n++;
      }
    }
    if (n == srcs.length) {
      return srcs;
    }
    ByteBuffer[] out = new ByteBuffer[n];
    int i = 0;
    for (ByteBuffer b : srcs) {
      if (b != null) {
        out[i++] = b;
      }
    }
    return out;
  }

  private void flush() throws IOException {
    netOut.flip();
    while (netOut.hasRemaining()) {
      socket.write(netOut);
    }
  }
}
