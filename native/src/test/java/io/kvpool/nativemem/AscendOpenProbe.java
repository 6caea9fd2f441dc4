package io.kvpool.nativemem;

/**
 * Run in a child JVM by {@link DeviceBackendTest}: opens "ascend" and exits 3 with the message when
 * that fails.
 */
public final class AscendOpenProbe {
  private AscendOpenProbe() {}

  public static void main(String[] args) {
    try (DeviceBackend backend = DeviceBackend.open("ascend")) {
      System.out.println("opened " + backend.name());
    } catch (DeviceBackendException e) {
      System.out.println(e);
      System.exit(3);
    }
  }
}
