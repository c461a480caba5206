package dev.clockwork.offheap;

import dev.clockwork.cache.AsyncValueLoader;
import dev.clockwork.cache.EntryKind;
import dev.clockwork.cache.KeyPredicate;
import dev.clockwork.cache.Placement;
import dev.clockwork.cache.Priority;
import dev.clockwork.cache.ValueLoader;
import dev.clockwork.cache.admission.Admission;
import dev.clockwork.cache.dump.DumpFormat;
import dev.clockwork.cache.dump.DumpFormatException;
import dev.clockwork.cache.dump.DumpWriter;
import dev.clockwork.cache.internal.Args;
import dev.clockwork.offheap.context.CacheContext;
import dev.clockwork.offheap.shard.Shard;
import dev.clockwork.offheap.stats.KindCounts;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.channels.FileChannel;
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.WritableByteChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.CompletableFuture;

/**
 * What a storage engine asks of its block cache beyond the index's lookup, insert and erase,
 * built on them for every cache type alike: each operation is a class of its own, and this
 * layer only holds it and hands calls to it.
 *
 * <p>Between {@link ShardedCache} (the index, its handles and close) and the cache types, so
 * that the operations see the index's package-private hooks and every type gets them the same.
 */
public abstract class EngineCache extends ShardedCache {
    /** put, putIfAbsent and its pinned form, under the key's stripe. */
    final KeyedPuts puts = new KeyedPuts(this);
    /** Get-or-load, with its loads in flight. */
    final LoadOnce loading = new LoadOnce(this);

    EngineCache(CacheContext context, Shard[] shards, long capacity, long hashSeed,
                Admission admission) {
        super(context, shards, capacity, hashSeed, admission);
    }

    // ---------------------------------------------------------------- dump and load

    /**
     * Writes the cache's entries to {@code out}, hottest first, in the dump format
     * ({@link DumpFormat}), for {@link #load} into a new cache after a restart (RocksDB's
     * {@code CacheDumper}). Each entry's key (as the caller gave it), value, charge and a
     * priority go out: a HyperClock cache writes its entries by clock countdown, highest first,
     * with the priority that starts an entry at that countdown; an LRU cache writes them most
     * recent first, with their insert priority, or HIGH if hit since.
     *
     * <p>The cache stays in use meanwhile. Every entry in the cache (findable by lookup) for the
     * whole dump is written exactly once, whole and as it was; an entry inserted, erased or
     * evicted during the dump is written at most once; as {@link #forEachEntry}, standalone and
     * erased-but-pinned entries are not written. The dump reads entries as a visit does (a
     * HyperClock entry is referenced while copied, not as a use; an LRU shard's lock is held per
     * batch of 64 entries), so it changes neither hit ratio nor eviction order. Memory: one
     * direct buffer of 1 MiB (a block) and one native bit per slot or record; nothing per entry
     * on the Java heap. docs/dump.md has the walks and the format.
     *
     * @param out where the dump goes, a blocking channel; not closed here
     * @return what was written
     * @throws IOException if the channel fails; the bytes written so far are no valid dump
     * @throws IllegalStateException if the cache is closed, or closes during the dump
     * @throws NullPointerException if {@code out} is null
     */
    public final DumpSummary dump(WritableByteChannel out) throws IOException {
        Args.requireNonNull("out", out);
        checkOpen();
        long start = System.nanoTime();
        DumpWriter writer = new DumpWriter(out, dumpOrder(), DumpFormat.DEFAULT_BLOCK_BYTES);
        dumpEntries(writer);
        writer.finish();
        return new DumpSummary(writer.entries(), writer.valueBytes(), writer.fileBytes(),
                System.nanoTime() - start);
    }

    /**
     * {@link #dump(WritableByteChannel)} to a file, created or replaced: written to a sibling
     * named {@code <file>.partial}, then moved over {@code file} when whole, so that a dump that
     * fails (the cache closed, the disk full) leaves the previous dump as it was. Not synced to
     * the disk: a crash of the machine soon after may leave a file the load refuses.
     *
     * @param file the dump file
     * @return what was written
     * @throws IOException if the file cannot be written
     */
    public final DumpSummary dump(Path file) throws IOException {
        Args.requireNonNull("file", file);
        Path partial = file.resolveSibling(file.getFileName() + ".partial");
        DumpSummary summary;
        try (FileChannel out = FileChannel.open(partial, StandardOpenOption.CREATE,
                StandardOpenOption.TRUNCATE_EXISTING, StandardOpenOption.WRITE)) {
            summary = dump(out);
        } catch (IOException | RuntimeException | Error e) {
            Files.deleteIfExists(partial);
            throw e;
        }
        Files.move(partial, file, StandardCopyOption.REPLACE_EXISTING,
                StandardCopyOption.ATOMIC_MOVE);
        return summary;
    }

    /**
     * Inserts the entries of a dump ({@link #dump}) into this cache, hottest first, and only
     * once the dump proves whole: each block's records are inserted once its checksums agree,
     * and if anything is refused afterwards (a later block corrupt, the stream cut short, the
     * trailer's counts or whole-file check wrong) every key this load inserted is erased again
     * before the exception is thrown, so a refused load leaves a cache that nothing else
     * changed meanwhile as it was: usage and entry count included. Meant for a new cache: a
     * key the cache held already is replaced or kept as {@code insert} does, and a rollback
     * erases it.
     *
     * <p>A cache too small: entries are inserted while they fit in the capacity left (usage is
     * read every 64 entries and counted up in between); from the first entry that does not fit
     * on, the rest of the dump is read and verified but not inserted ({@link
     * LoadSummary#skipped()}), so the hottest entries are the ones loaded and none of them is
     * evicted for a colder one. Inserts go through admission as any insert does.
     *
     * @param in the dump, read to its end; not closed here
     * @return what was read and inserted
     * @throws DumpFormatException if the dump is refused: not a dump, another version, cut
     *     short, or corrupt; its message says what and where
     * @throws IOException if the channel fails (nothing stays inserted either)
     * @throws IllegalStateException if the cache is closed
     */
    public final LoadSummary load(ReadableByteChannel in) throws IOException {
        Args.requireNonNull("in", in);
        checkOpen();
        return DumpLoad.load(this, in);
    }

    /**
     * {@link #load(ReadableByteChannel)} from a file, verified whole before the first insert: the
     * file is read twice, once to check every checksum and count, then to insert. So a refused
     * file changes nothing at all, not even the slots an Auto table would have grown by (which a
     * refused channel load's rollback leaves: see below); the rollback stays for a file changed
     * between the two reads.
     *
     * <p>Why the channel form cannot do the same: its stream may be read once only, and holding
     * it all to verify first would take the dump's size in memory. Its rollback erases what it
     * inserted, which restores usage and entry count exactly on the fixed table and the LRU; an
     * Auto table keeps the slots it grew by (it never shrinks), charged as metadata when
     * metadata is charged, as after any inserts and erases.
     *
     * @param file the dump file
     * @return what was read and inserted
     * @throws DumpFormatException if the file is refused (then the cache is unchanged)
     * @throws IOException if the file cannot be read
     */
    public final LoadSummary load(Path file) throws IOException {
        Args.requireNonNull("file", file);
        checkOpen();
        try (FileChannel in = FileChannel.open(file, StandardOpenOption.READ)) {
            DumpLoad.verify(in);
            in.position(0);
            return DumpLoad.load(this, in);
        }
    }

    /** Writes every entry to the writer, hottest first ({@link #dump}'s walk, per type). */
    abstract void dumpEntries(DumpWriter writer) throws IOException;

    /** {@link DumpFormat#ORDER_CLOCK} or {@link DumpFormat#ORDER_RECENCY}. */
    abstract int dumpOrder();

    /**
     * A lookup counted under the kind it names as well as in the totals ({@link KindCounts}:
     * two adds to this thread's own stripes, no atomic instruction). {@link EntryKind#DEFAULT}
     * is counted in the totals only.
     */
    @Override
    public final long lookup(long key0, long key1, EntryKind kind) {
        Args.requireNonNull("kind", kind);
        KindCounts kinds = stats.kinds;
        kinds.check(kind);
        long handle = lookup(key0, key1);
        if (stats.recordLookups) {
            kinds.lookedUp(kind, handle != MISS);
        }
        return handle;
    }

    // ---------------------------------------------------------------- uniform writes

    /** Under the key's stripe: erases the key, then inserts ({@link KeyedPuts}). */
    @Override
    public final boolean put(long key0, long key1, MemorySegment value, long charge,
                             Placement placement) {
        Args.requireNonNull("value", value);
        int length = ValueCopies.checkLength(value.byteSize());
        return puts.put(key0, key1, value, null, 0, length, charge, placement);
    }

    @Override
    public final boolean put(long key0, long key1, byte[] value, int offset, int length,
                             long charge, Placement placement) {
        ValueCopies.checkArray(value, offset, length);
        return puts.put(key0, key1, null, value, offset, length, charge, placement);
    }

    /** Under the key's stripe: a presence check, then an insert ({@link KeyedPuts}). */
    @Override
    public final boolean putIfAbsent(long key0, long key1, MemorySegment value, long charge,
                                     Placement placement) {
        Args.requireNonNull("value", value);
        int length = ValueCopies.checkLength(value.byteSize());
        return puts.putIfAbsent(key0, key1, value, null, 0, length, charge, placement);
    }

    @Override
    public final boolean putIfAbsent(long key0, long key1, byte[] value, int offset, int length,
                                     long charge, Placement placement) {
        ValueCopies.checkArray(value, offset, length);
        return puts.putIfAbsent(key0, key1, null, value, offset, length, charge, placement);
    }

    /**
     * Pins the entry now under the key: the present one, or else a copy of {@code value} stored
     * now; {@link #MISS} if the key was absent and the insert was refused (strict capacity limit,
     * size limit or admission, counted in the stats as an insert's refusal). Runs under the key's
     * stripe ({@link KeyStripes}), ordered against {@code put}, {@code putIfAbsent} and every
     * other call of this method on the key: of racing calls on an absent key, exactly one stores,
     * and the others pin what it stored. In a HyperClock cache whose table has no free slot the
     * new entry is standalone (see {@link #insertPinned}): the handle reads the value, lookups do
     * not find it. Finding the present entry is not counted as a lookup. Internal, for the
     * engine's get-or-load; not API.
     *
     * @return a pinned handle, to be released once, or {@link #MISS}
     * @throws IllegalArgumentException as {@link #insertPinned}, before anything changes
     * @throws NullPointerException as {@link #insertPinned}, before anything changes
     * @throws IllegalStateException if the cache is closed, or if called from inside an
     *     admission policy (see {@link KeyStripes})
     */
    final long putIfAbsentPinned(long key0, long key1, MemorySegment value, long charge,
                                 Placement placement) {
        Args.requireNonNull("value", value);
        int length = ValueCopies.checkLength(value.byteSize());
        return puts.putIfAbsentPinned(key0, key1, value, null, 0, length, charge, placement);
    }

    /** As {@link #putIfAbsentPinned(long, long, MemorySegment, long, Placement)}, from an array. */
    final long putIfAbsentPinned(long key0, long key1, byte[] value, int offset, int length,
                                 long charge, Placement placement) {
        ValueCopies.checkArray(value, offset, length);
        return puts.putIfAbsentPinned(key0, key1, null, value, offset, length, charge, placement);
    }

    // ---------------------------------------------------------------- get-or-load (LoadOnce)

    /** A hit is {@link #lookup}'s, and costs what it costs: the rest is the miss's. */
    @Override
    public final long lookupOrLoad(long key0, long key1, ValueLoader loader, Placement placement) {
        checkLoad(loader, placement);
        long handle = lookup(key0, key1);
        countUnderKind(placement, handle != MISS);
        return handle != MISS ? handle : loading.lookupMissed(key0, key1, loader, placement);
    }

    /** A hit is {@link #get(long, long, byte[], int)}'s; the rest is the miss's. */
    @Override
    public final int getOrLoad(long key0, long key1, byte[] dst, int offset, ValueLoader loader,
                               Placement placement) {
        checkLoad(loader, placement);
        int length = get(key0, key1, dst, offset);
        countUnderKind(placement, length != ABSENT);
        return length != ABSENT ? length
                : (int) loading.getMissed(key0, key1, null, dst, offset, loader, placement);
    }

    /** A hit is {@link #get(long, long, MemorySegment, long)}'s; the rest is the miss's. */
    @Override
    public final long getOrLoad(long key0, long key1, MemorySegment dst, long offset,
                                ValueLoader loader, Placement placement) {
        checkLoad(loader, placement);
        long length = get(key0, key1, dst, offset);
        countUnderKind(placement, length != ABSENT);
        return length != ABSENT ? length
                : loading.getMissed(key0, key1, dst, null, offset, loader, placement);
    }

    /**
     * Checks a get-or-load's arguments before its lookup: a loader and a placement, whose kind,
     * if it names one, the cache was built with (the loaded value is stored under it).
     */
    final void checkLoad(Object loader, Placement placement) {
        LoadOnce.checkArguments(loader, placement);
        stats.kinds.check(placement);
    }

    /**
     * Counts a get-or-load's lookup under the kind its placement names, as
     * {@link #lookup(long, long, EntryKind)} does; a {@link Priority} names none.
     */
    final void countUnderKind(Placement placement, boolean hit) {
        if (placement instanceof EntryKind kind && stats.recordLookups) {
            stats.kinds.lookedUp(kind, hit);
        }
    }

    @Override
    public final CompletableFuture<byte[]> getOrLoadAsync(long key0, long key1,
                                                          AsyncValueLoader loader,
                                                          Placement placement) {
        return loading.getOrLoadAsync(key0, key1, loader, placement);
    }

    /** Loads in flight now, for tests: 0 once every caller of a load has returned. */
    final int loadsInFlight() {
        return loading.loads.inFlight();
    }

    /**
     * Keeps a loaded value that the cache refused (a strict limit, admission) for the callers
     * that asked for it: stores it outside the index, pinned once, as a HyperClock cache's
     * standalone entry is (found by no lookup, charged to usage while pinned, over capacity if
     * need be, freed by its last release). Returns its handle, or {@link #MISS} if even that
     * cannot be (the shard's usage at its share of {@link CacheOptions#MAX_USAGE}, or every
     * record of an LRU shard pinned); then, and when it throws, the value at
     * {@code valueAddress} is still the caller's. The entry is tagged and counted with the
     * placement's kind, as a stored one would be.
     */
    abstract long pinOutsideIndex(long h0, long h1, long valueAddress, int length, long charge,
                                  Placement placement);

    // ---------------------------------------------------------------- erasing by key

    @Override
    public final void clear() {
        eraseIf(KeySweep.EVERY_KEY);
    }

    /** One walk of the entries, erasing what the predicate picks ({@link KeySweep}). */
    @Override
    public final long eraseIf(KeyPredicate predicate) {
        Args.requireNonNull("predicate", predicate);
        checkOpen();
        return eraseMatching(predicate);
    }

    /** {@link #eraseIf} after its checks: the type's way of {@link KeySweep}. */
    abstract long eraseMatching(KeyPredicate predicate);
}
