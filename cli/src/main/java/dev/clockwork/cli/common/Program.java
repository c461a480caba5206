package dev.clockwork.cli.common;

import java.util.List;

/**
 * What every tool may know of the program it runs in: its version, the class a child JVM starts
 * (a run of {@code bench -compare}) and the tools only the {@code ./clockwork} launcher runs.
 * The entry point itself ({@code Main}) depends on the tools, never the other way round.
 */
public final class Program {
    /** The entry point's class, by name: a forked run starts it; a test holds it to Main's. */
    public static final String MAIN_CLASS = "dev.clockwork.cli.Main";

    /** Tools the ./clockwork launcher runs itself, without this jar. */
    public static final List<String> LAUNCHER_TOOLS = List.of("jmh", "jmh-class");

    private Program() {
    }

    /** The version string: from the jar manifest, or "dev" when run from classes. */
    public static String version() {
        String v = Program.class.getPackage().getImplementationVersion();
        return v == null ? "dev" : v;
    }
}
