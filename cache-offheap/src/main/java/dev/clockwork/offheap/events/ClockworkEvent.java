package dev.clockwork.offheap.events;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Event;
import jdk.jfr.Label;

/**
 * The fields every Clockwork event carries: which cache (a number, as caches have no names) and
 * which of its shards. JFR records a superclass's fields with each event.
 */
@Category("Clockwork")
abstract class ClockworkEvent extends Event {
    @Label("Cache Id")
    @Description("The cache's number in this JVM (ShardedCache.cacheId(): 1, 2, ... in build "
            + "order)")
    long cacheId;

    @Label("Cache Type")
    @Description("FixedHyperClockCache, AutoHyperClockCache or LruCache")
    String cacheType;

    @Label("Shard")
    @Description("The shard the event happened in")
    int shard;
}
