package io.kvpool.protocol;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collection;
import java.util.List;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.TrustManagerFactory;

/**
 * TLS 1.3 for data-plane connections, from the files of a Kubernetes TLS Secret: {@code tls.crt}
 * (the chain), {@code tls.key} (PKCS#8 PEM, as {@code openssl genpkey} and cert-manager with {@code
 * encoding: PKCS8} write it) and {@code ca.crt} (the pool's CA, which every peer's certificate must
 * chain to). Servers present their certificate; connecting sides verify it against the CA. Host
 * names are not checked: peers are dialled by pod IP, and the pool's key, proven in the handshake,
 * is what admits a peer.
 */
public final class TlsContext {
  private final SSLContext context;

  private TlsContext(SSLContext context) {
    this.context = context;
  }

  /**
   * TLS from {@code dir} (tls.crt, tls.key, ca.crt); null when {@code dir} is empty (plaintext).
   */
  public static TlsContext fromDirectory(String dir) {
    if (dir == null || dir.isBlank()) {
      return null;
    }
    Path d = Path.of(dir);
    try {
      List<Certificate> chain = certificates(d.resolve("tls.crt"));
      PrivateKey key = privateKey(d.resolve("tls.key"), chain.get(0).getPublicKey().getAlgorithm());
      KeyStore identity = KeyStore.getInstance("PKCS12");
      identity.load(null, null);
      identity.setKeyEntry("kvpool", key, new char[0], chain.toArray(new Certificate[0]));
      KeyManagerFactory kmf =
          KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
      kmf.init(identity, new char[0]);
      SSLContext context = SSLContext.getInstance("TLSv1.3");
      context.init(kmf.getKeyManagers(), trustManagers(d.resolve("ca.crt")), null);
      return new TlsContext(context);
    } catch (IOException | GeneralSecurityException | RuntimeException e) {
      throw new IllegalArgumentException(
          "cannot load TLS from "
              + d
              + " (expected tls.crt, tls.key in PKCS#8 PEM,"
              + " ca.crt): "
              + e.getMessage(),
          e);
    }
  }

  /**
   * TLS for a client that only verifies servers: it trusts the CA in {@code caFile} and presents no
   * certificate.
   */
  public static TlsContext trusting(Path caFile) {
    try {
      SSLContext context = SSLContext.getInstance("TLSv1.3");
      context.init(null, trustManagers(caFile), null);
      return new TlsContext(context);
    } catch (IOException | GeneralSecurityException e) {
      throw new IllegalArgumentException(
          "cannot load the CA certificate " + caFile + ": " + e.getMessage(), e);
    }
  }

  private static javax.net.ssl.TrustManager[] trustManagers(Path caFile)
      throws IOException, GeneralSecurityException {
    KeyStore trust = KeyStore.getInstance("PKCS12");
    trust.load(null, null);
    int i = 0;
    for (Certificate ca : certificates(caFile)) {
      trust.setCertificateEntry("ca-" + i++, ca);
    }
    TrustManagerFactory tmf =
        TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    tmf.init(trust);
    return tmf.getTrustManagers();
  }

  SSLEngine engine(boolean server) {
    SSLEngine engine = context.createSSLEngine();
    engine.setUseClientMode(!server);
    SSLParameters p = engine.getSSLParameters();
    p.setProtocols(new String[] {"TLSv1.3"});
    engine.setSSLParameters(p);
    return engine;
  }

  private static List<Certificate> certificates(Path file)
      throws IOException, GeneralSecurityException {
    Collection<? extends Certificate> certs =
        CertificateFactory.getInstance("X.509")
            .generateCertificates(new ByteArrayInputStream(Files.readAllBytes(file)));
    if (certs.isEmpty()) {
      throw new GeneralSecurityException(file + " holds no certificate");
    }
    return new ArrayList<>(certs);
  }

  private static PrivateKey privateKey(Path file, String algorithm)
      throws IOException, GeneralSecurityException {
    String pem = Files.readString(file, StandardCharsets.US_ASCII);
    int begin = pem.indexOf("-----BEGIN PRIVATE KEY-----");
    int end = pem.indexOf("-----END PRIVATE KEY-----");
    if (begin < 0 || end < 0) {
      throw new GeneralSecurityException(
          file
              + " is not a PKCS#8 PEM key ('BEGIN PRIVATE KEY'); convert it with"
              + " 'openssl pkcs8 -topk8 -nocrypt'");
    }
    byte[] der = Base64.getMimeDecoder().decode(pem.substring(begin + 27, end));
    return KeyFactory.getInstance(algorithm).generatePrivate(new PKCS8EncodedKeySpec(der));
  }
}
