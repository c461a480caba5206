package dev.clockwork.cli.common;

/** Exit codes that mean the same for {@code bench} and {@code soak}. */
public final class ExitCodes {
    private ExitCodes() {
    }

    /** A worker thread failed, or the run could not start. */
    public static final int ERROR = 1;
    /** A value read back failed its check (wrong key stamp, size, charge or checksum). */
    public static final int VALUE_CHECK_FAILED = 3;
}
