package dev.clockwork.offheap.model;

import dev.clockwork.cache.Cache;
import dev.clockwork.cache.CacheStats;
import dev.clockwork.offheap.ModelAccess;
import dev.clockwork.offheap.ModelAccess.ShardState;
import dev.clockwork.offheap.NativeMemory;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Runs one sequence of {@link Op}s against a fresh cache and, in lock step, against a reference
 * model of what the cache may hold; checks the cache against the model after every step.
 *
 * <h2>What the model knows</h2>
 * The model keeps every entry that may still exist ({@link #live}): an entry is <em>sure</em>
 * when it certainly exists, because it is pinned by a handle the sequence holds, or because it
 * was last seen resident (stored, found by a lookup, released unerased) and the cache's eviction
 * counter ({@code stats().evictions()}) has not moved since; otherwise it is <em>unsure</em>:
 * an eviction may have taken it. Evictions are the only way an entry leaves a cache without the
 * sequence asking, and every eviction is counted, so this split is exact. Entries leave the model
 * when the cache proves them gone (a lookup miss; a newer copy found first; the entry count of
 * their shard leaving no room for them) or when the sequence frees them (erase, a release that
 * returns {@code true}, an LRU insert replacing them).
 *
 * <h2>What is checked after every step (both kinds of cache)</h2>
 * <ul>
 *   <li>every value read through a handle is byte-exact the value of the insert it names (values
 *       carry their key and a unique version, {@link Values}), with the right size and charge; a
 *       held handle reads the same bytes until it is released;</li>
 *   <li>per shard, the entry count lies between the number of sure and of possible entries, and
 *       usage equals the charged metadata plus the charges of the pinned entries plus those of
 *       the resident ones: exactly when the count pins down which entries are resident, else
 *       between the smallest and largest charges the uncertain entries could add up to (given
 *       how many of them the count says are there);</li>
 *   <li>pinned usage per shard equals the model's pinned entries exactly;</li>
 *   <li>the cache-wide {@code usage()}, {@code pinnedUsage()} and {@code entryCount()} are the
 *       sums of the shards';</li>
 *   <li>the type's capacity rule ({@link HyperClockReference}, {@link LruReference});</li>
 *   <li>a charge above the capacity throws {@link IllegalArgumentException} and leaves no
 *       trace;</li>
 *   <li>at the end: all handles released (each release's result predicted), a full lookup
 *       audit, every key erased; then usage is back to the metadata baseline, nothing is pinned
 *       or counted, and after close every native byte is returned.</li>
 * </ul>
 */
abstract class ReferenceModel {
    /** One insert's entry, as the model sees it. */
    static final class Entry {
        final int key;
        final long version;
        final long charge;
        final int length;
        final int shard;
        final int bornAt;
        /** HyperClock: a standalone entry (not in the table, never findable). */
        boolean standalone;
        /** HyperClock: findable (not erased); LRU: in the index (not erased or replaced). */
        boolean visible;
        /** Handles the sequence holds on it (the cache sees no others). */
        int refs;
        /** The eviction count when it was last known resident; sure while it still is. */
        long confirmedAt = -1;
        /** The handle value last returned for it (0: none yet); the same while it lives. */
        long handle;
        /** Why the model dropped it, or null while it may exist. */
        String gone;
        /**
         * HyperClock: an upper bound of the entry's clock countdown ({@link #BOOSTED} once a hit,
         * ref or duplicate insert may have raised it).
         */
        int countdown;

        Entry(int key, long version, long charge, int length, int shard, int bornAt) {
            this.key = key;
            this.version = version;
            this.charge = charge;
            this.length = length;
            this.shard = shard;
            this.bornAt = bornAt;
        }

        @Override
        public String toString() {
            return "k" + key + "v" + version + "(charge " + charge + ", len " + length
                    + (standalone ? ", standalone" : "") + (visible ? "" : ", erased")
                    + (refs > 0 ? ", refs " + refs : "") + ", from step " + bornAt + ")";
        }
    }

    record Held(long handle, Entry entry) {
    }

    /** {@link Entry#countdown} of an entry whose clock may have been raised without bound. */
    static final int BOOSTED = Integer.MAX_VALUE;

    final SequenceConfig cfg;
    final List<Op> ops;
    Cache cache;
    int shards;
    private int[] shardOfKey;

    /** Entries that may exist (sure or unsure), oldest first. */
    final List<Entry> live = new ArrayList<>();
    /** Every entry of the sequence, by version: identifies values read back. */
    final Map<Long, Entry> byVersion = new HashMap<>();
    /** Handles held, in the order taken; a key may appear more than once (ref, lookups). */
    final List<Held> held = new ArrayList<>();
    Held lastReleased;
    private long nextVersion = 1;
    /** {@code stats().evictions()} as of the last cache call that could evict. */
    long evictions;

    /** Readings before and after the current step. */
    ShardState pre;
    ShardState post;
    CacheStats preStats;
    boolean preStrict;
    long preNative;

    int step;
    Op op;
    private long nativeBeforeBuild;
    long nativeAfterBuild;

    ReferenceModel(SequenceConfig cfg, List<Op> ops) {
        this.cfg = cfg;
        this.ops = ops;
    }

    // ---------------------------------------------------------------- running

    /** Runs the sequence and its finale; returns the first failure, or null. */
    final Throwable run() {
        nativeBeforeBuild = NativeMemory.outstandingBytes();
        try {
            cache = cfg.build();
        } catch (Throwable t) {
            return t;
        }
        Throwable failure = null;
        try {
            nativeAfterBuild = NativeMemory.outstandingBytes();
            shards = ModelAccess.shards(cache);
            shardOfKey = new int[cfg.keys()];
            for (int k = 0; k < cfg.keys(); k++) {
                shardOfKey[k] = ModelAccess.shardOf(cache, cfg.hashSeed(), cfg.key0(k),
                        cfg.key1(k));
            }
            post = ModelAccess.read(cache);
            evictions = cache.stats().evictions();
            for (step = 0; step < ops.size(); step++) {
                runStep(ops.get(step));
            }
            finale();
        } catch (Throwable t) {
            failure = t;
        } finally {
            try {
                cache.close();
            } catch (Throwable t) {
                if (failure == null) {
                    failure = t;
                }
            }
        }
        if (failure == null) {
            long leaked = NativeMemory.outstandingBytes() - nativeBeforeBuild;
            if (leaked != 0) {
                failure = new AssertionError("after close: " + leaked
                        + " native bytes not returned (NativeMemory.outstandingBytes)");
            }
        }
        return failure;
    }

    private void runStep(Op o) {
        op = o;
        pre = post;
        preStats = cache.stats();
        preStrict = cache.strictCapacityLimit();
        preNative = NativeMemory.outstandingBytes();
        post = null;
        switch (o.kind()) {
            case INSERT, INSERT_PINNED -> {
                if (o.charge() > cache.capacity()) {
                    insertTooLarge(o);
                } else {
                    insert(o, o.kind() == Op.Kind.INSERT_PINNED, newEntry(o));
                }
            }
            case LOOKUP -> lookup(o.key(), o.flag());
            case RELEASE -> {
                if (!held.isEmpty()) {
                    Held h = held.remove(o.pick() % held.size());
                    verifyHeld(h, "before release");
                    release(h, o.flag());
                    lastReleased = h;
                }
            }
            case REF -> {
                if (!held.isEmpty()) {
                    Held h = held.get(o.pick() % held.size());
                    cache.ref(h.handle());
                    h.entry().refs++;
                    h.entry().countdown = BOOSTED; // released usefully
                    held.add(new Held(h.handle(), h.entry()));
                }
            }
            case READ -> {
                if (!held.isEmpty()) {
                    verifyHeld(held.get(o.pick() % held.size()), "re-read while held");
                }
            }
            case ERASE -> erase(o.key());
            case SET_CAPACITY -> {
                cache.setCapacity(o.capacity());
                check(cache.capacity() == o.capacity(), "capacity() is " + cache.capacity());
                evictions = cache.stats().evictions();
                afterSetCapacity();
            }
            case SET_STRICT -> {
                cache.setStrictCapacityLimit(o.flag());
                check(cache.strictCapacityLimit() == o.flag(), "strictCapacityLimit() unchanged");
            }
            case AUDIT -> {
                for (Held h : held) {
                    verifyHeld(h, "held during an audit");
                }
                for (int k = 0; k < cfg.keys(); k++) {
                    lookup(k, false);
                }
            }
            case DOUBLE_RELEASE -> doubleRelease();
        }
        observe();
        checkCommon();
        checkStep();
        Coverage.count("steps");
    }

    /** Releases every handle, audits, erases every key; then everything must be back at zero. */
    private void finale() {
        while (!held.isEmpty()) {
            step++;
            runStep(Op.release(0, false));
        }
        step++;
        runStep(Op.audit());
        for (int k = 0; k < cfg.keys(); k++) {
            step++;
            runStep(Op.erase(k));
        }
        step++;
        op = null;
        check(live.isEmpty(), "after erasing every key the model still has " + live);
        long metadata = Arrays.stream(post.metadata).sum();
        check(cache.entryCount() == 0, "entryCount() " + cache.entryCount() + " after erasing all");
        check(cache.usage() == metadata, "usage() " + cache.usage()
                + " after erasing all; expected the metadata baseline " + metadata);
        check(cache.pinnedUsage() == 0, "pinnedUsage() " + cache.pinnedUsage()
                + " with nothing held");
        checkEmpty();
    }

    // ---------------------------------------------------------------- per type

    abstract void insert(Op o, boolean pinned, Entry e);

    abstract void lookup(int key, boolean hold);

    abstract void release(Held h, boolean eraseIfLastRef);

    abstract void erase(int key);

    abstract void afterSetCapacity();

    /** Whether releasing {@link #lastReleased} again is certain to be refused. */
    abstract boolean doubleReleaseRefused(Held h);

    /** The type's own checks after a step ({@link #pre}, {@link #post} are set). */
    abstract void checkStep();

    /** Type-specific checks once everything is erased. */
    abstract void checkEmpty();

    // ---------------------------------------------------------------- shared steps

    private Entry newEntry(Op o) {
        long version = nextVersion++;
        Entry e = new Entry(o.key(), version, o.charge(), o.length(), shardOf(o.key()), step);
        byVersion.put(version, e);
        return e;
    }

    private void insertTooLarge(Op o) {
        byte[] bytes = Values.of(o.key(), 0, o.length());
        try {
            if (o.kind() == Op.Kind.INSERT_PINNED) {
                long h = cache.insertPinned(cfg.key0(o.key()), cfg.key1(o.key()), bytes, 0,
                        bytes.length, o.charge(), o.priority());
                fail("a charge above capacity " + cache.capacity() + " was accepted: handle " + h);
            } else {
                boolean r = cache.insert(cfg.key0(o.key()), cfg.key1(o.key()), bytes, 0,
                        bytes.length, o.charge(), o.priority());
                fail("a charge above capacity " + cache.capacity() + " was accepted: " + r);
            }
        } catch (IllegalArgumentException expected) {
            Coverage.count("charge above capacity refused (IAE)");
        }
        observe();
        check(Arrays.equals(pre.usage, post.usage), "a refused charge changed usage");
        check(NativeMemory.outstandingBytes() == preNative,
                "a refused charge changed native bytes");
    }

    private void doubleRelease() {
        Held h = lastReleased;
        if (h == null || !doubleReleaseRefused(h)) {
            return;
        }
        try {
            boolean r = cache.release(h.handle());
            fail("releasing " + h.entry() + "'s handle " + h.handle()
                    + " a second time was accepted (returned " + r + ")");
        } catch (IllegalStateException expected) {
            Coverage.count("double release refused (ISE)");
        }
        observe();
        check(Arrays.equals(pre.usage, post.usage) && Arrays.equals(pre.pinnedUsage,
                post.pinnedUsage)
                        && Arrays.equals(pre.occupancy, post.occupancy),
                "a refused double release changed usage, pinned usage or the entry count");
    }

    /** Reads a held handle: its value, size and charge must be those of its entry. */
    final void verifyHeld(Held h, String when) {
        Entry e = h.entry();
        check(e.gone == null, "the model dropped " + e + " while a handle was held (" + e.gone
                + ")");
        verifyValue(h.handle(), e, when);
    }

    final void verifyValue(long handle, Entry e, String when) {
        byte[] got = cache.value(handle).toArray(ValueLayout.JAVA_BYTE);
        byte[] want = Values.of(e.key, e.version, e.length);
        if (!Arrays.equals(got, want)) {
            fail(when + ": handle " + handle + " of " + e + " reads " + describe(got)
                    + " (differs at byte " + Arrays.mismatch(got, want) + ")");
        }
        check(cache.valueSize(handle) == e.length, when + ": valueSize " + cache.valueSize(handle)
                + " for " + e);
        check(cache.charge(handle) == e.charge, when + ": charge " + cache.charge(handle)
                + " for " + e);
    }

    /** Identifies the entry whose value a lookup of {@code key} returned, checking its bytes. */
    final Entry identify(long handle, int key) {
        byte[] got = cache.value(handle).toArray(ValueLayout.JAVA_BYTE);
        Entry e = got.length >= Values.HEADER ? byVersion.get(Values.version(got)) : null;
        if (e == null || Values.key(got) != key) {
            fail("lookup(k" + key + ") returned a value no insert of k" + key + " wrote: "
                    + describe(got));
        }
        if (e.gone != null) {
            fail("lookup(k" + key + ") returned " + e + ", which cannot be there: " + e.gone);
        }
        verifyValue(handle, e, "lookup(k" + key + ")");
        return e;
    }

    private static String describe(byte[] b) {
        if (b.length < Values.HEADER) {
            return b.length + " bytes";
        }
        return b.length + " bytes naming k" + Values.key(b) + "v" + Values.version(b);
    }

    final void hold(long handle, Entry e) {
        e.refs++;
        held.add(new Held(handle, e));
    }

    /** Drops an entry from the model: the cache has shown or been told that it is gone. */
    final void drop(Entry e, String why) {
        e.gone = why + " (step " + step + ")";
        live.remove(e);
    }

    final boolean sure(Entry e) {
        return e.refs > 0 || e.confirmedAt == evictions;
    }

    final void confirm(Entry e) {
        e.confirmedAt = evictions;
    }

    final int shardOf(int key) {
        return shardOfKey[key];
    }

    final long metaPerEntry() {
        return cfg.chargeMetadata() ? 64 : 0;
    }

    final void observe() {
        if (post == null) {
            post = ModelAccess.read(cache);
        }
    }

    final CacheStats statsDelta(CacheStats after) {
        CacheStats b = preStats;
        return new CacheStats(after.hits() - b.hits(), after.misses() - b.misses(),
                after.inserts() - b.inserts(), after.standaloneInserts() - b.standaloneInserts(),
                after.memoryLimitRejects() - b.memoryLimitRejects(),
                after.admissionRejects() - b.admissionRejects(), after.evictions() - b.evictions(),
                after.evictionEffortExceeded() - b.evictionEffortExceeded(),
                after.yields() - b.yields());
    }

    // ---------------------------------------------------------------- the shared checks

    private void checkCommon() {
        long usage = 0;
        long pinned = 0;
        long count = 0;
        for (int s = 0; s < shards; s++) {
            usage += post.usage[s];
            pinned += post.pinnedUsage[s] + post.standaloneUsage[s];
            count += post.occupancy[s];
        }
        check(cache.usage() == usage, "usage() " + cache.usage() + " is not the shards' sum "
                + usage);
        check(cache.pinnedUsage() == pinned, "pinnedUsage() " + cache.pinnedUsage()
                + " is not the shards' sum " + pinned);
        check(cache.entryCount() == count, "entryCount() " + cache.entryCount()
                + " is not the shards' sum " + count);
        for (Entry e : live) {
            check(e.refs >= 0 && e.gone == null, "model bookkeeping: " + e);
        }
    }

    /**
     * Usage and count of one shard against the model: {@code fixed} is what the shard is charged
     * for certain besides its resident entries (metadata, pinned entries not in the index, ...);
     * {@code indexed} are the entries the shard's count covers. Resolves the unsure ones when the
     * count leaves no doubt, then checks usage exactly or within the range the count allows.
     */
    final void checkShardAccounting(int s, long fixed, List<Entry> indexed, long metaEach,
                                    String counted) {
        List<Entry> unsure = new ArrayList<>();
        long sureCharge = 0;
        int sureCount = 0;
        for (Entry e : indexed) {
            if (sure(e)) {
                sureCount++;
                sureCharge += e.charge + metaEach;
            } else {
                unsure.add(e);
            }
        }
        long n = post.occupancy[s];
        if (n < sureCount || n > sureCount + unsure.size()) {
            fail("shard " + s + ": " + counted + " is " + n + " but the model has " + sureCount
                    + " entries certainly there and " + unsure.size() + " possibly: " + indexed);
        }
        int m = (int) (n - sureCount);
        if (m == 0) {
            Coverage.count("entries proven evicted by the count", unsure.size());
            for (Entry e : unsure) {
                drop(e, "evicted (the entry count leaves no room for it)");
            }
            unsure.clear();
        } else if (m == unsure.size()) {
            Coverage.count("entries proven resident by the count", unsure.size());
            for (Entry e : unsure) {
                confirm(e);
            }
            sureCharge += unsure.stream().mapToLong(e -> e.charge + metaEach).sum();
            unsure.clear();
            m = 0;
        }
        long base = fixed + sureCharge;
        long usage = post.usage[s];
        if (unsure.isEmpty()) {
            Coverage.count("shard usage checked exactly");
            if (usage != base) {
                fail("shard " + s + ": usage " + usage + ", expected exactly " + base + " = "
                        + fixed + " (metadata, pinned or standalone) + " + sureCharge
                        + " (resident entries " + indexed + ")");
            }
            return;
        }
        Coverage.count("shard usage checked within a range");
        long[] charges = unsure.stream().mapToLong(e -> e.charge + metaEach).sorted().toArray();
        long lo = base;
        long hi = base;
        for (int i = 0; i < m; i++) {
            lo += charges[i];
            hi += charges[charges.length - 1 - i];
        }
        if (usage < lo || usage > hi) {
            fail("shard " + s + ": usage " + usage + " is outside [" + lo + ", " + hi + "]: "
                    + fixed
                    + " fixed + " + sureCharge + " certain + " + m + " of the uncertain " + unsure);
        }
    }

    // ---------------------------------------------------------------- failing

    final void check(boolean ok, String message) {
        if (!ok) {
            fail(message);
        }
    }

    final void fail(String message) {
        String where = op == null ? "finale" : "step " + step + " " + op;
        throw new AssertionError(where + ": " + message);
    }
}
