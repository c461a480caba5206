package dev.clockwork.offheap.model;

import dev.clockwork.cache.Cache;
import dev.clockwork.cache.CacheStats;
import dev.clockwork.offheap.LruCache;
import dev.clockwork.offheap.ModelAccess;
import java.util.ArrayList;
import java.util.List;

/**
 * The reference model of an LRU cache, single-threaded. Every rule below is exact except which
 * unpinned entries an eviction picks (the model does not replay the pools' order).
 *
 * <p>Per shard, with {@code total = charge + 64} when metadata is charged (else the charge),
 * {@code cap} the shard's capacity and {@code pinned} the totals of the entries the sequence holds
 * handles on (in the index or not):
 * <ul>
 *   <li><b>Replacement.</b> A key has at most one entry in the index: the last stored insert's.
 *       A hit returns exactly that entry (a pinned entry: the very handle value it was pinned
 *       with); a miss is allowed only if it is not certainly resident, and proves it gone.</li>
 *   <li><b>Room.</b> An insert evicts unpinned entries, oldest first, until it fits. It does not
 *       fit, whatever is evicted, exactly when {@code pinned + total > cap}; then every unpinned
 *       entry of the shard has been evicted, and the insert is dropped ({@code insert} returns
 *       true, as if inserted and evicted at once; the key's pinned entry, if any, stays in the
 *       index, so a lookup still returns the older value), refused ({@code insertPinned} with a
 *       strict limit: {@code MISS}, {@code memoryLimitRejects}), or stored over capacity
 *       ({@code insertPinned} without a strict limit). {@code stats().inserts()} counts exactly
 *       the stored ones.</li>
 *   <li><b>Release.</b> Returns exactly whether it freed the entry: on its last reference, when
 *       the entry is no longer in the index (erased or replaced), or {@code eraseIfLastRef}, or the
 *       shard's usage is over its capacity at that moment (the entry is freed rather than
 *       listed).</li>
 *   <li><b>Capacity.</b> After every step, in every shard, usage &le; cap or every entry of the
 *       shard is pinned ({@code usage == pinnedUsage}, the list is empty). With a strict limit
 *       this is the "never over capacity" rule: usage can exceed cap only when the pinned entries
 *       alone do (pins taken before a smaller {@code setCapacity} or while not strict), and then
 *       nothing unpinned is kept. Without it, only a pinned insert can go over, by the rule
 *       above. {@code setCapacity} evicts at once: when the pinned entries exceed the new
 *       capacity, every unpinned entry goes.</li>
 *   <li><b>Accounting.</b> usage of a shard = totals of the entries in its index + totals of the
 *       pinned entries no longer in it; pinned usage = the pinned entries' totals; both exact
 *       (usage within the count-allowed range while evictions leave the resident set
 *       uncertain); {@code poolUsage()} adds up to {@code usage()} and {@code pinnedUsage()}, and
 *       the high and low pools stay within their ratios of the capacity.</li>
 * </ul>
 */
final class LruReference extends ReferenceModel {

    LruReference(SequenceConfig cfg, List<Op> ops) {
        super(cfg, ops);
    }

    /** The key's entry in the index, per the model, or null. */
    private Entry current(int key) {
        Entry found = null;
        for (Entry e : live) {
            if (e.key == key && e.visible) {
                check(found == null, "model bookkeeping: two indexed entries " + found + ", " + e);
                found = e;
            }
        }
        return found;
    }

    private long pinnedTotal(int shard) {
        long sum = 0;
        for (Entry e : live) {
            if (e.shard == shard && e.refs > 0) {
                sum += e.charge + metaPerEntry();
            }
        }
        return sum;
    }

    /** The shard's list was emptied by an eviction that could not make room. */
    private void evictAllUnpinned(int shard, String why) {
        for (Entry e : new ArrayList<>(live)) {
            if (e.shard == shard && e.refs == 0) {
                drop(e, why);
            }
        }
    }

    @Override
    void insert(Op o, boolean pinned, Entry e) {
        int s = e.shard;
        long total = o.charge() + metaPerEntry();
        long pinnedBefore = pinnedTotal(s);
        boolean noRoom = pinnedBefore + total > pre.capacity[s];
        boolean stored = !noRoom || (pinned && !preStrict);
        Entry old = current(o.key());
        byte[] bytes = Values.of(o.key(), e.version, o.length());
        long handle = 0;
        if (pinned) {
            handle = cache.insertPinned(cfg.key0(o.key()), cfg.key1(o.key()), bytes, 0,
                    bytes.length,
                    o.charge(), o.priority());
        } else {
            boolean accepted = cache.insert(cfg.key0(o.key()), cfg.key1(o.key()), bytes, 0,
                    bytes.length, o.charge(), o.priority());
            check(accepted, "insert returned false (an LRU cache drops what does not fit)");
        }
        CacheStats d = statsDelta(cache.stats());
        evictions += d.evictions();
        Coverage.count("evictions", d.evictions());
        String situation = "shard " + s + " capacity " + pre.capacity[s] + ", pinned "
                + pinnedBefore
                + ", usage " + pre.usage[s] + ", entry total " + total;
        check(d.inserts() == (stored ? 1 : 0), (stored ? "expected stored" : "expected not stored")
                + " (" + situation + "), but stats inserts +" + d.inserts());
        if (pinned) {
            boolean refused = handle == Cache.MISS;
            check(refused == !stored, (refused ? "insertPinned refused" : "insertPinned accepted")
                    + " (" + situation + ", strict " + preStrict + ")");
            check(d.memoryLimitRejects() == (refused ? 1 : 0), "memoryLimitRejects +"
                    + d.memoryLimitRejects());
        }
        if (noRoom) {
            Coverage.count(!stored ? (pinned ? "insertPinned refused (strict)" : "insert dropped")
                    : "insertPinned stored over capacity");
            evictAllUnpinned(s, "evicted (an insert that did not fit emptied the list)");
        }
        if (!stored) {
            e.gone = (pinned ? "refused" : "dropped") + " (step " + step + ")";
            return;
        }
        if (old != null && old.gone == null) {
            Coverage.count(old.refs > 0 ? "replaced a pinned entry" : "replaced an entry");
            if (old.refs > 0) {
                old.visible = false;
            } else {
                drop(old, "replaced");
            }
        }
        e.visible = true;
        confirm(e);
        live.add(e);
        if (pinned) {
            e.handle = handle;
            hold(handle, e);
            verifyValue(handle, e, "insertPinned");
        }
    }

    @Override
    void lookup(int key, boolean hold) {
        Entry cur = current(key);
        long handle = cache.lookup(cfg.key0(key), cfg.key1(key));
        if (handle == Cache.MISS) {
            if (cur != null) {
                check(!sure(cur), "lookup(k" + key + ") missed, but " + cur
                        + " is certainly resident"
                        + (cur.refs > 0 ? " (pinned)" : " (no eviction since it was seen)"));
                drop(cur, "evicted (lookup missed)");
            }
            Coverage.count(cur == null ? "lookup miss" : "lookup miss (entry evicted)");
            return;
        }
        Entry e = identify(handle, key);
        if (e != cur) {
            fail("lookup(k" + key + ") returned " + e + "; the key's entry is "
                    + (cur == null ? "none" : cur.toString()));
        }
        if (e.handle != 0) {
            check(handle == e.handle, "lookup(k" + key + ") returned handle " + handle + " for " + e
                    + ", which had handle " + e.handle);
        }
        e.handle = handle;
        confirm(e);
        Coverage.count("lookup hit");
        if (hold) {
            hold(handle, e);
        } else {
            releaseChecked(handle, e, false);
        }
    }

    @Override
    void release(Held h, boolean eraseIfLastRef) {
        Entry e = h.entry();
        e.refs--; // the handle being released
        releaseChecked(h.handle(), e, eraseIfLastRef);
    }

    /** Releases a reference not counted in {@code e.refs} any more, predicting the result. */
    private void releaseChecked(long handle, Entry e, boolean eraseIfLastRef) {
        long usage = ModelAccess.lruShardUsage(cache, e.shard);
        long cap = pre.capacity[e.shard];
        boolean expected = e.refs == 0 && (!e.visible || eraseIfLastRef || usage > cap);
        boolean freed = cache.release(handle, eraseIfLastRef);
        check(freed == expected, "release(" + e + ", eraseIfLastRef=" + eraseIfLastRef
                + ") returned "
                + freed + ", expected " + expected + " (shard usage " + usage + ", capacity " + cap
                + ")");
        if (e.refs == 0) {
            Coverage.count("last release " + (freed ? "freed" : "kept")
                    + (!e.visible ? " (not indexed)" : eraseIfLastRef ? " (eraseIfLastRef)"
                    : usage > cap ? " (over capacity)" : ""));
        }
        if (freed) {
            drop(e, "freed by its last release");
        } else if (e.refs == 0) {
            confirm(e);
        }
    }

    @Override
    void erase(int key) {
        Entry cur = current(key);
        boolean found = cache.erase(cfg.key0(key), cfg.key1(key));
        if (cur == null) {
            check(!found, "erase(k" + key + ") returned true for a key with no entry");
            return;
        }
        check(found || !sure(cur), "erase(k" + key + ") returned false, but " + cur
                + " is certainly resident");
        if (found && cur.refs > 0) {
            cur.visible = false;
        } else {
            drop(cur, found ? "erased" : "evicted (erase found nothing)");
        }
    }

    @Override
    void afterSetCapacity() {
        long perShard = ModelAccess.perShardCapacity(cache.capacity(), shards);
        for (int s = 0; s < shards; s++) {
            if (pinnedTotal(s) > perShard) {
                evictAllUnpinned(s, "evicted (setCapacity below the pinned entries)");
            }
        }
    }

    @Override
    boolean doubleReleaseRefused(Held h) {
        // Refused whether the entry still exists (not pinned) or was freed (its record's
        // generation moved on), as long as nobody took the same handle again.
        return h.entry().refs == 0;
    }

    @Override
    void checkStep() {
        for (int s = 0; s < shards; s++) {
            long pinned = 0;
            long unindexedPinned = 0;
            List<Entry> indexed = new ArrayList<>();
            for (Entry e : live) {
                if (e.shard != s) {
                    continue;
                }
                if (e.refs > 0) {
                    pinned += e.charge + metaPerEntry();
                }
                if (e.visible) {
                    indexed.add(e);
                } else {
                    check(e.refs > 0, "model bookkeeping: unindexed unpinned " + e);
                    unindexedPinned += e.charge + metaPerEntry();
                }
            }
            check(post.pinnedUsage[s] == pinned, "shard " + s + ": pinned usage "
                    + post.pinnedUsage[s] + ", the model's pinned entries total " + pinned);
            long usage = post.usage[s];
            if (usage > post.capacity[s]) {
                Coverage.count(preStrict ? "steps over capacity, strict"
                        : "steps over capacity, not strict");
            }
            check(usage <= post.capacity[s] || usage == post.pinnedUsage[s], "shard " + s
                    + ": usage " + usage + " over capacity " + post.capacity[s]
                    + " while unpinned entries are kept (pinned " + post.pinnedUsage[s] + ")");
            checkShardAccounting(s, unindexedPinned, indexed, metaPerEntry(),
                    "the index's entry count");
        }
        // The pools: together they are the usage, and neither high nor low pool holds more than
        // its share of a shard's capacity (overflow is passed down at once).
        LruCache.PoolUsage pools = ((LruCache) cache).poolUsage();
        check(pools.total() == cache.usage() && pools.pinned() == cache.pinnedUsage(), pools
                + " does not add up to usage " + cache.usage() + ", pinned " + cache.pinnedUsage());
        long highCap = 0;
        long lowCap = 0;
        for (int s = 0; s < shards; s++) {
            highCap += (long) (post.capacity[s] * cfg.highPriPoolRatio());
            lowCap += (long) (post.capacity[s] * cfg.lowPriPoolRatio());
        }
        check(pools.high() <= highCap && pools.low() <= lowCap, pools
                + " exceeds the pools' shares "
                + highCap + " (high) and " + lowCap + " (low)");
    }

    @Override
    void checkEmpty() {
        LruCache.PoolUsage pools = ((LruCache) cache).poolUsage();
        check(pools.total() == 0, "pools not empty: " + pools);
        check(cache.usage() == 0, "usage() " + cache.usage() + " after erasing everything");
    }
}
