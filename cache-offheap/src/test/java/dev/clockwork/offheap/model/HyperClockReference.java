package dev.clockwork.offheap.model;

import dev.clockwork.cache.Cache;
import dev.clockwork.cache.CacheStats;
import dev.clockwork.offheap.HyperClockCache;
import dev.clockwork.offheap.ModelAccess;
import dev.clockwork.offheap.NativeMemory;
import dev.clockwork.offheap.memory.ValueSlabs;
import java.util.ArrayList;
import java.util.List;

/**
 * The reference model of a HyperClock cache (fixed or Auto table), single-threaded.
 *
 * <h2>What a lookup may return</h2>
 * The table may hold several copies of a key: an insert keeps the present entry when its slot
 * search meets it, and stores a second copy when it claims a free slot first. Copies are ordered
 * newest first along the key's probe path (fixed) or chain (Auto), and a lookup returns the first
 * visible one. So the model keeps, per key, the <em>candidates</em>: copies stored in the table
 * ({@code stats().inserts()} tells a stored insert from one that was dropped) and not erased or
 * freed since. The rules:
 * <ul>
 *   <li>a hit returns a candidate of that key (never an erased, freed, refused, dropped or
 *       standalone entry, never another key's value), and no older one than the newest candidate
 *       that is certainly resident; candidates newer than the one returned are gone;</li>
 *   <li>a miss is allowed only if no candidate is certainly resident (pinned, or no eviction
 *       since it was last seen), and proves every candidate gone;</li>
 *   <li>{@code erase} returns true if a candidate is certainly resident, false if there is none;
 *       it makes pinned copies invisible (freed at their last release) and frees the others;</li>
 *   <li>{@code release} returns exactly whether it freed the entry: on the last reference, when
 *       asked to erase, or when the entry was erased, or always for a standalone entry;</li>
 *   <li>{@code insertPinned} returns a table handle (the entry becomes the newest candidate) or
 *       a standalone one ({@code stats().standaloneInserts()}), the latter, like a plain insert
 *       that is not stored, only when the key had a visible candidate or the table was at its
 *       occupancy limit;</li>
 *   <li>a lookup of a pinned entry returns the very handle value it was pinned with.</li>
 * </ul>
 *
 * <h2>Capacity</h2>
 * Per shard, with {@code cap} the shard's capacity and {@code growth} the metadata charge of slots
 * an Auto table added during the step (only with {@code chargeMetadata}: growth is charged outside
 * the strict check, as {@code CacheOptions.chargeMetadata} documents):
 * <ul>
 *   <li>with a strict limit, no step takes usage above {@code max(cap, usageBefore + growth)}:
 *       under the limit it stays under it, and over it (a smaller {@code setCapacity}, pins taken
 *       while not strict) it never grows;</li>
 *   <li>a strict insert is refused (returns false / {@code MISS}, counted in
 *       {@code memoryLimitRejects}) only if it needed to evict: the charge did not fit beside
 *       the shard's usage, or the table was at its occupancy limit. (Whether the clock then finds
 *       enough to evict depends on countdowns the model does not track; RocksDB also gives up
 *       after three sweeps);</li>
 *   <li>without a strict limit, inserts are never refused, and may go over the capacity (a
 *       pinned insert, or any insert whose charge exceeds the present usage: RocksDB's
 *       "not yet enough to evict" rule, or an eviction that gave up on pinned entries); no step
 *       adds more than its own charge plus growth.</li>
 * </ul>
 *
 * <h2>Eviction runs</h2>
 * What an insert's eviction run must free is computed as {@code ClockShard} does (strict: the
 * part of usage + charge over capacity; not strict: the charge, plus a little when already over,
 * unless it fits or exceeds the usage; at least 1 when a slot must be freed), and what it freed
 * follows from usage before and after. Freeing anything takes an eviction
 * ({@code stats().evictions()}), and:
 * <ul>
 *   <li>a run under a strict limit never gives up on the eviction effort cap (no
 *       {@code evictionEffortExceeded}): "strict limits must find room if it exists";</li>
 *   <li>a run that freed less than asked (under a strict limit, or with nothing pinned in the
 *       table, when the effort cap cannot end it) swept the whole table, three times (fixed) or
 *       four (Auto), and so evicted every unpinned entry (Auto) or every unpinned entry whose
 *       countdown was at most 2 (fixed: inserted LOW or BOTTOM and not hit since; the others are
 *       now at 0). The model drops them; the entry counts then prove it right or wrong.</li>
 * </ul>
 *
 * <h2>Accounting</h2>
 * usage of a shard = its charged metadata (every slot of a fixed table, up front; the slots an
 * Auto table has grown to) + charges of its table entries (visible, or erased but pinned) + charges
 * of its standalone entries; {@code standaloneUsage()} and {@code pinnedUsage()} (with 64 bytes per
 * pinned table slot when metadata is charged) match the model exactly after every step; native
 * bytes = the table (fixed) + every live value's footprint ({@code ValueSlabs#footprint}: its slab
 * block, or its length if malloc'd) + 64 per standalone slot, again exactly or within the range the
 * entry counts allow; the value slabs' idle bytes (free blocks, chunk headers and tails) aside.
 */
final class HyperClockReference extends ReferenceModel {

    HyperClockReference(SequenceConfig cfg, List<Op> ops) {
        super(cfg, ops);
    }

    private HyperClockCache hcc() {
        return (HyperClockCache) cache;
    }

    /** The key's table copies that lookups can find, oldest first. */
    private List<Entry> candidates(int key) {
        List<Entry> list = new ArrayList<>();
        for (Entry e : live) {
            if (e.key == key && e.visible && !e.standalone) {
                list.add(e);
            }
        }
        return list;
    }

    @Override
    void insert(Op o, boolean pinned, Entry e) {
        int s = e.shard;
        List<Entry> before = candidates(o.key());
        byte[] bytes = Values.of(o.key(), e.version, o.length());
        long handle;
        boolean accepted;
        if (pinned) {
            handle = cache.insertPinned(cfg.key0(o.key()), cfg.key1(o.key()), bytes, 0,
                    bytes.length,
                    o.charge(), o.priority());
            accepted = handle != Cache.MISS;
        } else {
            handle = 0;
            accepted = cache.insert(cfg.key0(o.key()), cfg.key1(o.key()), bytes, 0, bytes.length,
                    o.charge(), o.priority());
        }
        CacheStats d = statsDelta(cache.stats());
        evictions += d.evictions();
        Coverage.count("evictions", d.evictions());
        Coverage.count("eviction effort exceeded", d.evictionEffortExceeded());
        observe();
        long growth = post.metadata[s] - pre.metadata[s];
        boolean occupancyFull = pre.occupancy[s] + 1 > post.occupancyLimit[s];
        boolean hadToEvict = o.charge() > pre.capacity[s]
                || pre.usage[s] + growth + o.charge() > pre.capacity[s] || occupancyFull;
        String situation = "shard " + s + " usage " + pre.usage[s] + " (+" + growth
                + " metadata grown) of capacity " + pre.capacity[s] + ", occupancy "
                + pre.occupancy[s] + " of limit " + post.occupancyLimit[s] + ", candidates "
                + before;
        // The table's entry count moved by the stored entry less the evicted ones.
        long count = 0;
        long countBefore = 0;
        for (int i = 0; i < shards; i++) {
            count += post.occupancy[i];
            countBefore += pre.occupancy[i];
        }
        check(count == countBefore + d.inserts() - d.evictions(), "entryCount went from "
                + countBefore + " to " + count + " with " + d.inserts() + " stored and "
                + d.evictions() + " evicted");
        // What eviction freed, from the usage before and after and what the insert charged.
        boolean charged = accepted && d.inserts() + d.standaloneInserts() == 1;
        long oldUsage = pre.usage[s] + growth;
        long freed = oldUsage + (charged ? o.charge() : 0) - post.usage[s];
        check(freed >= 0 && (freed == 0 || d.evictions() > 0), "usage went from " + pre.usage[s]
                + " to " + post.usage[s] + " with " + d.evictions() + " evictions (" + situation
                + ", charged " + charged + ")");
        // "Strict limits must find room if it exists, so they ignore the cap" (ClockShard; the
        // cap lets usage exceed capacity "non-strict only", HyperClockOptions.evictionEffortCap).
        check(!preStrict || d.evictionEffortExceeded() == 0, "an eviction run under a strict limit"
                + " gave up on the eviction effort cap (evictionEffortExceeded +"
                + d.evictionEffortExceeded() + ", " + d.evictions() + " evicted, freed " + freed
                + "; " + situation + ")");
        fullSweepRule(s, requestedEviction(oldUsage, o.charge(), pre.capacity[s], occupancyFull),
                freed, situation);
        if (!accepted) {
            check(preStrict, "refused without a strict limit (" + situation + ")");
            check(hadToEvict, "a strict insert was refused though it fit (" + situation + ")");
            check(d.memoryLimitRejects() == 1 && d.inserts() == 0 && d.standaloneInserts() == 0,
                    "refused, but stats say " + d);
            e.gone = "refused (step " + step + ")";
            Coverage.count("strict insert refused");
            return;
        }
        check(d.memoryLimitRejects() == 0, "accepted, but memoryLimitRejects went up");
        long stored = d.inserts();
        long standalone = d.standaloneInserts();
        check(stored + standalone <= 1 && (!pinned || stored + standalone == 1)
                        && (pinned || standalone == 0),
                "stats inserts +" + stored + ", standaloneInserts +" + standalone);
        if (stored == 0) {
            // Not in the table: the slot search met a visible copy (so one is still there, and
            // its clock was boosted), or the table was full with nothing to evict.
            List<Entry> after = candidates(o.key());
            check(!after.isEmpty() || occupancyFull, (pinned ? "went standalone" : "was not stored")
                    + " though the key had no visible copy and the table had room (" + situation
                    + "; candidates after the step's evictions " + after + ")");
            Coverage.count((pinned ? "insertPinned went standalone" : "insert not stored")
                    + (occupancyFull ? " (occupancy limit)" : " (copy present)"));
            for (Entry c : after) {
                c.countdown = BOOSTED;
            }
            if (!occupancyFull && after.size() == 1) {
                confirm(after.get(0));
            }
        }
        e.countdown = switch (o.priority()) {
            case HIGH -> 3;
            case LOW -> 2;
            case BOTTOM -> 1;
        };
        if (pinned) {
            e.standalone = standalone == 1;
            e.visible = !e.standalone;
            e.handle = handle;
            live.add(e);
            hold(handle, e);
            verifyValue(handle, e, "insertPinned");
        } else if (stored == 1) {
            if (!before.isEmpty()) {
                Coverage.count("second copy of a key stored");
            }
            e.visible = true;
            confirm(e);
            live.add(e);
        } else {
            e.gone = "not stored: a copy was present, or no slot (step " + step + ")";
        }
    }

    /**
     * How much the insert's eviction run was asked to free, as {@code ClockShard} computes it
     * (RocksDB's rules): strict, the part of the charge over capacity (nothing if the charge
     * alone exceeds it: refused at once); not strict, the charge (plus a little when already
     * over) unless it fits or exceeds the present usage; at least 1 when the table must free a
     * slot.
     */
    private long requestedEviction(long oldUsage, long charge, long cap, boolean occupancyFull) {
        long need;
        if (preStrict) {
            if (charge > cap) {
                return 0;
            }
            need = oldUsage + charge - Math.min(cap, oldUsage + charge);
        } else if (oldUsage + charge <= cap || charge > oldUsage) {
            need = 0;
        } else {
            need = charge + (oldUsage > cap ? Math.min(cap / 1024, charge) + 1 : 0);
        }
        return need == 0 && occupancyFull ? 1 : need;
    }

    /**
     * An eviction run that freed less than asked swept the whole table: the fixed table three
     * times (every slot, the first four slots of the run four times), the Auto table four times.
     * A sweep step on an unpinned entry decrements its countdown, or evicts it at zero; a new
     * entry's countdown is 3, 2 or 1 by priority and grows only through hits and duplicate
     * inserts. So after a short run every unpinned entry is gone (Auto) or every one whose
     * countdown was at most 2 (fixed; the rest are at 0 now). Without a strict limit this holds
     * only with nothing pinned in the table, since the eviction effort cap may end the run
     * early when it passes pinned entries; a strict limit ignores the cap.
     */
    private void fullSweepRule(int s, long requested, long freed, String situation) {
        if (requested <= 0 || freed >= requested) {
            return;
        }
        boolean pinnedInTable = live.stream().anyMatch(x -> x.shard == s && !x.standalone
                && x.refs > 0);
        if (pinnedInTable && !preStrict) {
            return;
        }
        Coverage.count("eviction run freed less than asked" + (pinnedInTable ? " (pins)" : ""));
        boolean auto = cfg.type() == SequenceConfig.CacheType.AUTO;
        for (Entry x : new ArrayList<>(live)) {
            if (x.shard != s || x.standalone || x.refs > 0) {
                continue;
            }
            if (auto || x.countdown <= 2) {
                drop(x, "must have been evicted: an eviction run asked for " + requested
                        + " freed only " + freed + " (" + situation + "), so it swept the whole"
                        + " table past this unpinned entry with countdown <= " + x.countdown);
            } else {
                x.countdown = 0;
            }
        }
    }

    @Override
    void lookup(int key, boolean hold) {
        List<Entry> cands = candidates(key);
        long handle = cache.lookup(cfg.key0(key), cfg.key1(key));
        if (handle == Cache.MISS) {
            for (Entry c : cands) {
                if (sure(c)) {
                    fail("lookup(k" + key + ") missed, but " + c + " is certainly resident"
                            + (c.refs > 0 ? " (pinned)" : " (no eviction since it was seen)"));
                }
            }
            for (Entry c : cands) {
                drop(c, "evicted (lookup missed)");
            }
            Coverage.count(cands.isEmpty() ? "lookup miss" : "lookup miss (candidates evicted)");
            return;
        }
        Entry e = identify(handle, key);
        check(!e.standalone, "lookup(k" + key + ") found standalone " + e);
        check(e.visible, "lookup(k" + key + ") found erased " + e);
        for (Entry c : cands) {
            if (c.version > e.version && sure(c)) {
                fail("lookup(k" + key + ") returned " + e + " though the newer copy " + c
                        + " is certainly resident (lookups find the newest copy first)");
            }
        }
        for (Entry c : cands) {
            if (c.version > e.version) {
                Coverage.count("lookup found an older copy (newer evicted)");
                drop(c, "evicted (lookup found an older copy first)");
            }
        }
        if (e.handle != 0) {
            check(handle == e.handle, "lookup(k" + key + ") returned handle " + handle + " for " + e
                    + ", which had handle " + e.handle);
        }
        e.handle = handle;
        confirm(e);
        e.countdown = BOOSTED; // its release is a useful one
        Coverage.count(cands.size() > 1 ? "lookup hit (key has several copies)" : "lookup hit");
        if (hold) {
            hold(handle, e);
        } else {
            boolean freed = cache.release(handle);
            check(!freed, "releasing an unheld lookup of visible " + e + " freed it");
        }
    }

    @Override
    void release(Held h, boolean eraseIfLastRef) {
        Entry e = h.entry();
        boolean last = e.refs == 1;
        boolean expected = last && (e.standalone || !e.visible || eraseIfLastRef);
        boolean freed = cache.release(h.handle(), eraseIfLastRef);
        check(freed == expected, "release(" + e + ", eraseIfLastRef=" + eraseIfLastRef
                + ") returned "
                + freed + ", expected " + expected);
        e.refs--;
        Coverage.count("release " + (freed ? "freed" : "kept") + (e.standalone ? " standalone"
                : e.visible ? "" : " erased") + (eraseIfLastRef ? " (eraseIfLastRef)" : ""));
        if (freed) {
            drop(e, "freed by its last release");
        } else if (e.refs == 0) {
            confirm(e);
        }
    }

    @Override
    void erase(int key) {
        List<Entry> cands = candidates(key);
        boolean found = cache.erase(cfg.key0(key), cfg.key1(key));
        boolean anySure = cands.stream().anyMatch(this::sure);
        check(!anySure || found, "erase(k" + key + ") returned false, but " + cands
                + " has a copy certainly resident");
        check(!cands.isEmpty() || !found, "erase(k" + key
                + ") returned true for a key with no copy");
        for (Entry c : cands) {
            if (c.refs > 0) {
                Coverage.count("erase of a pinned copy");
                c.visible = false;
            } else {
                drop(c, found ? "erased" : "evicted (erase found nothing)");
            }
        }
    }

    @Override
    void afterSetCapacity() {
        // A HyperClock cache reaches a smaller capacity through later inserts' evictions.
    }

    @Override
    boolean doubleReleaseRefused(Held h) {
        Entry e = h.entry();
        // Only a table entry known to sit unpinned in its slot: a freed slot (or a freed
        // standalone entry's memory) may already hold another pinned entry.
        return !e.standalone && e.gone == null && e.refs == 0 && sure(e);
    }

    @Override
    void checkStep() {
        long metaSlot = metaPerEntry();
        long nativeLo = 0;
        long nativeHi = 0;
        for (int s = 0; s < shards; s++) {
            long standalone = 0;
            long standaloneNative = 0;
            long pinned = 0;
            List<Entry> table = new ArrayList<>();
            for (Entry e : live) {
                if (e.shard != s) {
                    continue;
                }
                if (e.standalone) {
                    standalone += e.charge;
                    standaloneNative += ValueSlabs.footprint(e.length);
                } else {
                    table.add(e);
                    if (e.refs > 0) {
                        pinned += e.charge + metaSlot;
                    }
                }
            }
            check(post.standaloneUsage[s] == standalone, "shard " + s + ": standaloneUsage "
                    + post.standaloneUsage[s] + ", the model's standalone entries charge "
                    + standalone);
            check(post.pinnedUsage[s] == pinned, "shard " + s + ": pinned table usage "
                    + post.pinnedUsage[s] + ", the model's pinned table entries charge " + pinned
                    + " (" + metaSlot + " metadata each)");
            checkShardAccounting(s, post.metadata[s] + standalone, table, 0,
                    "the table's occupancy");
            // Native bytes: table entries resident (those left unsure after accounting are counted
            // by the same rule) and values of standalone entries; their records apart, below.
            long[] lengths = nativeRange(s, table);
            nativeLo += lengths[0] + standaloneNative;
            nativeHi += lengths[1] + standaloneNative;
            checkCapacity(s);
        }
        long nativeNow = NativeMemory.outstandingBytes() - nativeAfterBuild
                - ModelAccess.standaloneRecordBytes(cache) - ModelAccess.idleValueBytes(cache);
        check(nativeNow >= nativeLo && nativeNow <= nativeHi, "native bytes beyond the table, the"
                + " standalone records and idle slab bytes: " + nativeNow
                + ", the model's live values need "
                + (nativeLo == nativeHi ? "exactly " + nativeLo : nativeLo + ".." + nativeHi));
    }

    /** Value bytes the shard's table entries hold: exact, or the range the count allows. */
    private long[] nativeRange(int s, List<Entry> table) {
        long sure = 0;
        int sureCount = 0;
        List<Long> unsure = new ArrayList<>();
        for (Entry e : table) {
            if (e.gone != null) {
                continue; // dropped by the accounting check just now
            }
            if (sure(e)) {
                sure += ValueSlabs.footprint(e.length);
                sureCount++;
            } else {
                unsure.add(ValueSlabs.footprint(e.length));
            }
        }
        int m = (int) (post.occupancy[s] - sureCount);
        unsure.sort(null);
        long lo = sure;
        long hi = sure;
        for (int i = 0; i < m && i < unsure.size(); i++) {
            lo += unsure.get(i);
            hi += unsure.get(unsure.size() - 1 - i);
        }
        return new long[] {lo, hi};
    }

    private void checkCapacity(int s) {
        long growth = post.metadata[s] - pre.metadata[s];
        check(growth >= 0, "shard " + s + ": charged metadata shrank by " + -growth);
        long usage = post.usage[s];
        if (usage > post.capacity[s]) {
            Coverage.count(preStrict ? "steps over capacity, strict"
                    : "steps over capacity, not strict");
        }
        if (preStrict) {
            long limit = Math.max(post.capacity[s], pre.usage[s] + growth);
            check(usage <= limit, "shard " + s + ": strict limit broken: usage " + usage
                    + " > max(capacity " + post.capacity[s] + ", usage before " + pre.usage[s]
                    + " + metadata grown " + growth + ")");
        } else {
            long added = (op.kind() == Op.Kind.INSERT || op.kind() == Op.Kind.INSERT_PINNED)
                    && shardOf(op.key()) == s ? op.charge() : 0;
            check(usage <= pre.usage[s] + growth + added, "shard " + s + ": usage went from "
                    + pre.usage[s] + " to " + usage + ", more than the step's charge " + added
                    + " and metadata grown " + growth);
        }
    }

    @Override
    void checkEmpty() {
        check(hcc().standaloneUsage() == 0, "standaloneUsage() " + hcc().standaloneUsage()
                + " with nothing held");
        // The value slabs keep their chunks until close, every block of them free by now.
        long kept = ModelAccess.standaloneRecordBytes(cache) + ModelAccess.idleValueBytes(cache);
        check(ModelAccess.valueChunkBytes(cache) == ModelAccess.idleValueBytes(cache),
                "value slab blocks still handed out after erasing everything");
        check(NativeMemory.outstandingBytes() == nativeAfterBuild + kept, "native bytes "
                + (NativeMemory.outstandingBytes() - nativeAfterBuild - kept)
                + " above the empty cache's, its standalone records' and its value slabs' after"
                + " erasing everything");
    }
}
