package dev.clockwork.cli.common;

import dev.clockwork.cli.GFlags;
import dev.clockwork.cli.workload.OpMix;
import picocli.CommandLine.Option;

/**
 * cache_bench's five operation percentages, shared by {@code bench} and {@code soak} as a picocli
 * mixin; the command's {@link FlagLayout} gives their defaults and what each operation does
 * there. {@link OpMix#check} checks them (with bench's -scan_percent).
 */
public final class OpMixFlags {
    @Option(names = "-lookup_insert_percent", paramLabel = "<uint32>",
            converter = GFlags.UInt32.class)
    public long lookupInsertPercent;

    @Option(names = "-insert_percent", paramLabel = "<uint32>", converter = GFlags.UInt32.class)
    public long insertPercent;

    @Option(names = "-blind_insert_percent", paramLabel = "<uint32>",
            converter = GFlags.UInt32.class)
    public long blindInsertPercent;

    @Option(names = "-lookup_percent", paramLabel = "<uint32>", converter = GFlags.UInt32.class)
    public long lookupPercent;

    @Option(names = "-erase_percent", paramLabel = "<uint32>", converter = GFlags.UInt32.class)
    public long erasePercent;

    /** A copy of every flag's value. */
    public OpMixFlags copy() {
        OpMixFlags c = new OpMixFlags();
        c.lookupInsertPercent = lookupInsertPercent;
        c.insertPercent = insertPercent;
        c.blindInsertPercent = blindInsertPercent;
        c.lookupPercent = lookupPercent;
        c.erasePercent = erasePercent;
        return c;
    }

    /** The five percentages and {@code scanPercent} of one-off scan steps. */
    public OpMix opMix(long scanPercent) {
        return new OpMix(lookupInsertPercent, insertPercent, blindInsertPercent, lookupPercent,
                erasePercent, scanPercent);
    }
}
