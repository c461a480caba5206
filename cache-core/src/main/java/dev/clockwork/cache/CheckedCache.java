package dev.clockwork.cache;

import dev.clockwork.cache.internal.Args;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A checked mode for any {@link Cache}, for tests and debugging: it tracks every pin, so that
 * handle misuse the cache itself cannot tell from correct use is refused too.
 *
 * <p>A cache counts references per entry, so a second release of a handle while other callers
 * also hold its entry looks like one of their releases, and is accepted (see "Misuse" on
 * {@link Cache}). Wrapped in a {@code CheckedCache}, every {@link #lookup} and
 * {@link #insertPinned} returns a handle of its own: a <em>pin</em>, which holds one reference of
 * the underlying entry per {@link #ref} plus one, and which every later call checks. Releasing a
 * pin more often than it was referenced, using it after its last release, or using a number that
 * was never a live pin throws {@link IllegalStateException} before the wrapped cache is touched,
 * whoever else holds the entry. {@link #outstandingPins()} counts the pins not yet released, so a
 * test can also catch a handle that was never released.
 *
 * <h2>Costs</h2>
 * Each pin is an entry in a {@link ConcurrentHashMap} (one boxed key and one small object, about
 * 80 bytes of heap while the pin lives), and each use of a pin one map lookup; a pin's count
 * changes under the pin's own monitor. So the checked mode allocates on every lookup and is
 * several times slower than the cache it wraps (figures in docs/correctness.md): meant for tests,
 * debugging and soak runs, not for production.
 *
 * <h2>Pins are unique in the process</h2>
 * Pin numbers come from one counter shared by every {@code CheckedCache} in the process, passed
 * through an odd multiplier (a bijection on 64 bits): no two pins handed out by any two instances,
 * from any threads, are equal until the counter wraps after 2^64 pins, and none is
 * {@link #MISS}. An instance finds only its own live pins in its map, so a pin of another
 * {@code CheckedCache} is refused as a never-handed-out number is, before the wrapped cache is
 * touched, even when both wrap the same cache. (A counter per instance would make every
 * instance's first pin the same number, which another instance would accept as its own.) Pin
 * numbers mean nothing to the wrapped cache.
 */
public final class CheckedCache implements Cache {
    /** Odd, so that counter values map to distinct pin numbers. */
    private static final long PIN_MULTIPLIER = 0x9E37_79B9_7F4A_7C15L;
    /** Pins handed out by every instance in the process: what makes pin numbers unique. */
    private static final AtomicLong PIN_COUNTER = new AtomicLong();

    private final Cache cache;
    private final ConcurrentHashMap<Long, Pin> pins = new ConcurrentHashMap<>();

    /** One pin: the wrapped cache's handle and how many references the pin holds on it. */
    private static final class Pin {
        final long handle;
        int references = 1; // guarded by this

        Pin(long handle) {
            this.handle = handle;
        }
    }

    /**
     * Wraps {@code cache}; closing this cache closes it.
     *
     * @param cache the cache whose handles to check
     * @throws NullPointerException if {@code cache} is null
     */
    public CheckedCache(Cache cache) {
        this.cache = Args.requireNonNull("cache", cache);
    }

    /**
     * The wrapped cache.
     *
     * @return the cache given to the constructor
     */
    public Cache cache() {
        return cache;
    }

    /**
     * Pins handed out and not yet released (by their last release).
     *
     * @return the number of live pins; 0 once every handle has been released, and after close
     */
    public long outstandingPins() {
        return pins.size();
    }

    // ---------------------------------------------------------------- pins

    private long newPin(long handle) {
        if (handle == MISS) {
            return MISS;
        }
        long pin;
        do {
            pin = PIN_COUNTER.incrementAndGet() * PIN_MULTIPLIER;
        } while (pin == MISS);
        pins.put(pin, new Pin(handle));
        return pin;
    }

    /** The live pin {@code pin} names; throws if there is none. */
    private Pin pinOf(long pin) {
        Pin p = pins.get(pin);
        if (p == null) {
            throw new IllegalStateException("handle " + pin
                    + " is not pinned (released already, or never handed out by this cache)");
        }
        return p;
    }

    // ---------------------------------------------------------------- pinning calls

    @Override
    public long newId() {
        return cache.newId();
    }

    @Override
    public long lookup(long key0, long key1) {
        return newPin(cache.lookup(key0, key1));
    }

    @Override
    public long lookup(long key0, long key1, EntryKind kind) {
        return newPin(cache.lookup(key0, key1, kind));
    }

    @Override
    public long insertPinned(long key0, long key1, MemorySegment value, long charge,
                             Placement placement) {
        return newPin(cache.insertPinned(key0, key1, value, charge, placement));
    }

    @Override
    public long insertPinned(long key0, long key1, byte[] value, int offset, int length,
                             long charge, Placement placement) {
        return newPin(cache.insertPinned(key0, key1, value, offset, length, charge, placement));
    }

    @Override
    public void ref(long pin) {
        Pin p = pinOf(pin);
        synchronized (p) {
            if (p.references == 0) {
                throw notPinned(pin); // a racing release took the last reference first
            }
            cache.ref(p.handle); // may refuse (too many references): then nothing changed
            p.references++;
        }
    }

    @Override
    public boolean release(long pin, boolean eraseIfLastRef) {
        Pin p = pinOf(pin);
        synchronized (p) {
            if (p.references == 0) {
                throw notPinned(pin); // a racing release took the last reference first
            }
            if (--p.references == 0) {
                pins.remove(pin, p);
            }
        }
        return cache.release(p.handle, eraseIfLastRef);
    }

    private static IllegalStateException notPinned(long pin) {
        return new IllegalStateException("handle " + pin + " is not pinned (released already)");
    }

    // ---------------------------------------------------------------- reads through pins

    @Override
    public MemorySegment value(long pin) {
        return cache.value(pinOf(pin).handle);
    }

    @Override
    public long valueSize(long pin) {
        return cache.valueSize(pinOf(pin).handle);
    }

    @Override
    public int copyValue(long pin, byte[] dst, int offset) {
        return cache.copyValue(pinOf(pin).handle, dst, offset);
    }

    @Override
    public long copyValue(long pin, MemorySegment dst, long offset) {
        return cache.copyValue(pinOf(pin).handle, dst, offset);
    }

    /**
     * {@inheritDoc}
     *
     * <p>Holds no handle, so nothing to check: the wrapped cache's own read (write-free there).
     */
    @Override
    public int get(long key0, long key1, byte[] dst, int offset) {
        return cache.get(key0, key1, dst, offset);
    }

    @Override
    public long get(long key0, long key1, MemorySegment dst, long offset) {
        return cache.get(key0, key1, dst, offset);
    }

    /**
     * {@inheritDoc}
     *
     * <p>Holds no handle afterwards, so nothing to check: the wrapped cache's own read.
     */
    @Override
    public long read(long key0, long key1, ValueReader reader, long ifAbsent) {
        return cache.read(key0, key1, reader, ifAbsent);
    }

    @Override
    public long lookupOrLoad(long key0, long key1, ValueLoader loader, Placement placement) {
        return newPin(cache.lookupOrLoad(key0, key1, loader, placement));
    }

    /** Holds no handle afterwards, so nothing to check: the wrapped cache's own get-or-load. */
    @Override
    public int getOrLoad(long key0, long key1, byte[] dst, int offset, ValueLoader loader,
                         Placement placement) {
        return cache.getOrLoad(key0, key1, dst, offset, loader, placement);
    }

    @Override
    public long getOrLoad(long key0, long key1, MemorySegment dst, long offset,
                          ValueLoader loader, Placement placement) {
        return cache.getOrLoad(key0, key1, dst, offset, loader, placement);
    }

    /** Its futures hold copies, no handle: nothing to check. */
    @Override
    public CompletableFuture<byte[]> getOrLoadAsync(long key0, long key1,
                                                    AsyncValueLoader loader, Placement placement) {
        return cache.getOrLoadAsync(key0, key1, loader, placement);
    }

    @Override
    public long charge(long pin) {
        return cache.charge(pinOf(pin).handle);
    }

    // ---------------------------------------------------------------- everything else

    @Override
    public boolean insert(long key0, long key1, MemorySegment value, long charge,
                          Placement placement) {
        return cache.insert(key0, key1, value, charge, placement);
    }

    @Override
    public boolean insert(long key0, long key1, byte[] value, int offset, int length,
                          long charge, Placement placement) {
        return cache.insert(key0, key1, value, offset, length, charge, placement);
    }

    @Override
    public boolean erase(long key0, long key1) {
        return cache.erase(key0, key1);
    }

    @Override
    public boolean put(long key0, long key1, MemorySegment value, long charge,
                       Placement placement) {
        return cache.put(key0, key1, value, charge, placement);
    }

    @Override
    public boolean put(long key0, long key1, byte[] value, int offset, int length, long charge,
                       Placement placement) {
        return cache.put(key0, key1, value, offset, length, charge, placement);
    }

    @Override
    public boolean putIfAbsent(long key0, long key1, MemorySegment value, long charge,
                               Placement placement) {
        return cache.putIfAbsent(key0, key1, value, charge, placement);
    }

    @Override
    public boolean putIfAbsent(long key0, long key1, byte[] value, int offset, int length,
                               long charge, Placement placement) {
        return cache.putIfAbsent(key0, key1, value, offset, length, charge, placement);
    }

    @Override
    public void clear() {
        cache.clear();
    }

    @Override
    public long eraseIf(KeyPredicate predicate) {
        return cache.eraseIf(predicate);
    }

    @Override
    public long capacity() {
        return cache.capacity();
    }

    @Override
    public void setCapacity(long capacity) {
        cache.setCapacity(capacity);
    }

    @Override
    public long usage() {
        return cache.usage();
    }

    @Override
    public long pinnedUsage() {
        return cache.pinnedUsage();
    }

    @Override
    public boolean strictCapacityLimit() {
        return cache.strictCapacityLimit();
    }

    @Override
    public void setStrictCapacityLimit(boolean strict) {
        cache.setStrictCapacityLimit(strict);
    }

    @Override
    public long entryCount() {
        return cache.entryCount();
    }

    @Override
    public CacheStats stats() {
        return cache.stats();
    }

    @Override
    public void forEachEntry(EntryVisitor visitor, int entriesPerLock) {
        cache.forEachEntry(visitor, entriesPerLock);
    }

    /** Closes the wrapped cache; pins still outstanding become invalid, as its handles do. */
    @Override
    public void close() {
        cache.close();
        pins.clear();
    }
}
