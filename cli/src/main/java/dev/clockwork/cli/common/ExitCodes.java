package dev.clockwork.cli.common;

/** Exit codes that mean the same for every tool. */
public final class ExitCodes {
    private ExitCodes() {
    }

    /** A worker thread failed, or the run could not start. */
    public static final int ERROR = 1;
    /** The command line is wrong: an unknown tool or flag, or a flag's value it cannot use. */
    public static final int USAGE = 2;
    /** A value read back failed its check (wrong key stamp, size, charge or checksum). */
    public static final int VALUE_CHECK_FAILED = 3;
}
