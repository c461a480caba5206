package dev.clockwork.offheap.stats;

import dev.clockwork.cache.EntryKind;
import dev.clockwork.cache.EntryVisitor;
import dev.clockwork.cache.KindStats;
import dev.clockwork.cache.Placement;
import dev.clockwork.cache.internal.Args;
import dev.clockwork.offheap.entry.ChargeWord;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.ArrayList;
import java.util.List;

/**
 * A cache's declared {@link EntryKind}s and their counters: usage and entries, kept where usage
 * is (an entry is counted when stored and uncounted when freed, by its record's
 * {@link ChargeWord}), and hits and misses of the lookups that name a kind.
 *
 * <pre>
 *   long[]:  | pad (128 B) | stripe 0: kind 0..15 x (usage, entries, hits, misses) | ... |
 *   stripe of a thread = threadId mod n      (n a power of two, about 2 per processor)
 * </pre>
 *
 * <p>Striped as {@link LookupCounts} is, so a thread's adds go to its own 512 bytes and threads
 * on distinct stripes never write one cache line. Usage and entries are changed by atomic adds:
 * they go up on one thread and down on another (an eviction), so only atomic adds keep the sums
 * exact; an add on the thread's own stripe is uncontended. Hits and misses are the lookup path's
 * and take opaque adds, as {@link LookupCounts}'s do (approximate only when threads share a
 * stripe at the same moment).
 *
 * <p>Nil when no kinds are declared: no counters are allocated, every entry's word has kind 0,
 * and the entry paths test the kind they already read before calling here ({@link #stored},
 * {@link #freed}).
 */
public final class KindCounts {
    /** A cache that declares no kinds. */
    public static final KindCounts NONE = new KindCounts(List.of());

    private static final int KINDS = EntryKind.MAX_INDEX + 1;
    private static final int USAGE = 0;
    private static final int ENTRIES = 1;
    private static final int HITS = 2;
    private static final int MISSES = 3;
    private static final int PER_KIND = 4;
    /** Longs per stripe: 512 bytes, a multiple of the 128 that keeps prefetched pairs apart. */
    private static final int STRIDE = KINDS * PER_KIND;
    private static final int MAX_STRIPES = 256;
    private static final VarHandle COUNT = MethodHandles.arrayElementVarHandle(long[].class);

    /** The declared kinds by index; index 0 is {@link EntryKind#DEFAULT}, unused ones null. */
    private final EntryKind[] byIndex;
    private final List<EntryKind> declared;
    /** Null when no kind is declared. */
    private final long[] counts;
    private final int stripeMask;

    /**
     * Counters for a cache that counts {@code kinds}, checked by {@link #byIndex(List)}.
     */
    public KindCounts(List<EntryKind> kinds) {
        this.byIndex = byIndex(kinds);
        this.declared = List.copyOf(kinds);
        int processors = Runtime.getRuntime().availableProcessors();
        int stripes = Integer.highestOneBit(Math.clamp(processors * 2L, 1, MAX_STRIPES) * 2 - 1);
        this.counts = kinds.isEmpty() ? null : new long[STRIDE * (stripes + 1)];
        this.stripeMask = stripes - 1;
    }

    /**
     * The kinds by index, {@link EntryKind#DEFAULT} at 0.
     *
     * @throws NullPointerException if a kind is null
     * @throws IllegalArgumentException if two share an index or one is {@link EntryKind#DEFAULT}
     */
    public static EntryKind[] byIndex(List<EntryKind> kinds) {
        EntryKind[] byIndex = new EntryKind[KINDS];
        byIndex[0] = EntryKind.DEFAULT;
        for (EntryKind kind : kinds) {
            Args.requireNonNull("kinds[i]", kind);
            int index = kind.kindIndex();
            if (index == 0) {
                throw new IllegalArgumentException("kinds: " + kind + " is every cache's kind 0"
                        + " (untagged entries), it cannot be declared");
            }
            if (byIndex[index] != null) {
                throw new IllegalArgumentException("kinds: " + kind + " and " + byIndex[index]
                        + " have the same index " + index);
            }
            byIndex[index] = kind;
        }
        return byIndex;
    }

    /** The kinds declared, in the order given. */
    public List<EntryKind> declared() {
        return declared;
    }

    /**
     * Checks an insert's placement: not null, and if a kind, one this cache counts.
     *
     * @throws NullPointerException naming {@code placement}
     * @throws IllegalArgumentException for a kind not declared on the builder
     */
    public void check(Placement placement) {
        int index = Args.requireNonNull("placement", placement).kindIndex();
        if (index != 0 && !placement.equals(byIndex[index])) {
            throw notDeclared(placement);
        }
    }

    private IllegalArgumentException notDeclared(Placement kind) {
        return new IllegalArgumentException("kind " + kind + " is not one this cache was built"
                + " with (" + declared + "): declare it on the builder, kinds(...)");
    }

    /** The kind a record's charge word names: a declared one, or {@link EntryKind#DEFAULT}. */
    public EntryKind kindOf(long chargeWord) {
        return byIndex[ChargeWord.kind(chargeWord)];
    }

    /**
     * Calls a visitor with an entry's charge and kind, both from its record's charge word;
     * {@link EntryKind#DEFAULT} for an untagged entry.
     */
    public void visit(EntryVisitor visitor, long key0, long key1, MemorySegment value,
                      long chargeWord) {
        visitor.visit(key0, key1, value, ChargeWord.charge(chargeWord), kindOf(chargeWord));
    }

    /** The index of this thread's counter {@code which} of kind {@code kind}. */
    private int index(int kind, int which) {
        int stripe = (int) Thread.currentThread().threadId() & stripeMask;
        return STRIDE * (1 + stripe) + kind * PER_KIND + which;
    }

    /** An entry whose record holds {@code chargeWord} was stored: counted if tagged. */
    public void stored(long chargeWord) {
        int kind = ChargeWord.kind(chargeWord);
        if (kind != 0) {
            add(kind, ChargeWord.charge(chargeWord), 1);
        }
    }

    /** An entry whose record holds {@code chargeWord} was freed: uncounted if tagged. */
    public void freed(long chargeWord) {
        int kind = ChargeWord.kind(chargeWord);
        if (kind != 0) {
            add(kind, -ChargeWord.charge(chargeWord), -1);
        }
    }

    private void add(int kind, long charge, long entries) {
        int usage = index(kind, USAGE);
        long ignored = (long) COUNT.getAndAdd(counts, usage, charge);
        ignored = (long) COUNT.getAndAdd(counts, usage + ENTRIES - USAGE, entries);
    }

    /**
     * Counts a lookup that names {@code kind}; the caller has {@link #check checked} it.
     */
    public void lookedUp(EntryKind kind, boolean hit) {
        int k = kind.kindIndex();
        if (k == 0) {
            return; // the default kind has no counters of its own
        }
        int i = index(k, hit ? HITS : MISSES);
        long count = (long) COUNT.getOpaque(counts, i);
        COUNT.setOpaque(counts, i, count + 1);
    }

    /** The declared kinds' figures, summed over the stripes. */
    public List<KindStats> snapshot() {
        if (counts == null) {
            return List.of();
        }
        List<KindStats> result = new ArrayList<>(declared.size());
        for (EntryKind kind : declared) {
            int k = kind.kindIndex();
            result.add(new KindStats(kind, sum(k, HITS), sum(k, MISSES), sum(k, USAGE),
                    sum(k, ENTRIES)));
        }
        return result;
    }

    private long sum(int kind, int which) {
        long sum = 0;
        for (int stripe = 0; stripe <= stripeMask; stripe++) {
            sum += (long) COUNT.getVolatile(counts,
                    STRIDE * (1 + stripe) + kind * PER_KIND + which);
        }
        return sum;
    }
}
