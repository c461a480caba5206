package dev.clockwork.cli.soak;

/**
 * The RSS rule's verdict ({@link SoakMemory#rssFlat}); not judged ({@code known} false) when the
 * OS gave no RSS or the run ended before the warm-up did.
 *
 * @param atWarmupEnd the RSS at the end of the warm-up, or -1
 * @param maxAfterWarmup the largest RSS sampled after it, or -1
 * @param allowance the growth allowed (0 when not judged)
 */
record RssCheck(boolean known, long atWarmupEnd, long maxAfterWarmup, long allowance,
                boolean flat) {

    static RssCheck of(SoakMonitor m, SoakOptions o) {
        long atWarmupEnd = m.atWarmupEnd == null ? -1 : m.atWarmupEnd.rss;
        boolean known = atWarmupEnd >= 0 && m.maxRssAfterWarmup >= 0;
        long allowance = known
                ? SoakMemory.rssAllowance(atWarmupEnd, o.rssTolerancePct, o.rssToleranceMib) : 0;
        boolean flat = !known || SoakMemory.rssFlat(atWarmupEnd, m.maxRssAfterWarmup,
                o.rssTolerancePct, o.rssToleranceMib);
        return new RssCheck(known, atWarmupEnd, m.maxRssAfterWarmup, allowance, flat);
    }
}
