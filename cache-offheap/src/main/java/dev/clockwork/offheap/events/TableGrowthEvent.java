package dev.clockwork.offheap.events;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;

/**
 * An Auto HyperClock table doubled, or reached the end of its reservation. The table grows one
 * slot at a time, so one event per slot would flood a recording while a cache fills: this is one
 * event per batch, from {@code fromSlots} to {@code toSlots}. No stack: whichever insert grew it
 * is incidental.
 */
@Name("dev.clockwork.TableGrowth")
@Label("Auto Table Growth")
@Description("An Auto HyperClock table doubled its slots, or grew to its reservation's end")
@Category("Clockwork")
@StackTrace(false)
final class TableGrowthEvent extends ClockworkEvent {
    @Label("From Slots")
    long fromSlots;

    @Label("To Slots")
    long toSlots;

    @Label("Reserved Slots")
    @Description("Slots the table's reservation holds: it grows no further")
    long maxSlots;

    @Label("Entries")
    @Description("Entries in the shard's table when it reached toSlots")
    long entries;
}
