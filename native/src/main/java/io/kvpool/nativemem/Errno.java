package io.kvpool.nativemem;

/** Names for the errno values that segment creation reports, so that messages are readable. */
final class Errno {
    private Errno() {
    }

    static String describe(int errno) {
        String name = switch (errno) {
            case 1 -> "EPERM (operation not permitted)";
            case 11 -> "EAGAIN (resource temporarily unavailable)";
            case 12 -> "ENOMEM (out of memory or over a limit)";
            case 22 -> "EINVAL (invalid argument)";
            default -> "errno";
        };
        return name + " " + errno;
    }
}
