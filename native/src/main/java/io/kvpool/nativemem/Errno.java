package io.kvpool.nativemem;

/**
 * Names for the errno values that segment creation and memory files report, so that messages are
 * readable.
 */
final class Errno {
  private Errno() {}

  static String describe(int errno) {
    String name =
        switch (errno) {
          case 1 -> "EPERM (operation not permitted)";
          case 2 -> "ENOENT (No such file or directory)";
          case 11 -> "EAGAIN (resource temporarily unavailable)";
          case 12 -> "ENOMEM (out of memory or over a limit)";
          case 13 -> "EACCES (permission denied)";
          case 21 -> "EISDIR (is a directory)";
          case 22 -> "EINVAL (invalid argument)";
          case 27 -> "EFBIG (file too large)";
          case 28 -> "ENOSPC (no space left on the file's filesystem)";
          case 30 -> "EROFS (read-only file system)";
          case 40 -> "ELOOP (the path is a symbolic link)";
          default -> "errno";
        };
    return name + " " + errno;
  }
}
