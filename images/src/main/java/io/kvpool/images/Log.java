package io.kvpool.images;

/** Where the image build reports its steps (the Maven console when the build runs it). */
@FunctionalInterface
interface Log {
  void info(String message);

  static Log console() {
    return message -> System.out.println("images: " + message);
  }
}
