package dev.clockwork.docs;

/**
 * One {@code clockwork memory} line: how many bytes one resident entry of a cache costs, split
 * into the heap part and the native part (exact native bytes when the cache knows them, else the
 * process's RSS growth).
 */
record MemoryRow(String source, String cache, long valueBytes, long keyBytes, long resident,
        long heapBytes, long rssBytes, long nativeBytes, double bytesPerEntry,
        double overheadPerEntry) {

    static final String TOOL = "clockwork memory";

    static MemoryRow from(Obj o, String source) {
        return new MemoryRow(source, String.valueOf(o.string("cache")),
                o.integer("value_bytes", -1), o.integer("key_bytes", 0),
                o.integer("resident", 0), o.integer("heap_bytes", 0), o.integer("rss_bytes", 0),
                o.integer("native_bytes", -1), o.number("bytes_per_entry"),
                o.number("overhead_per_entry"));
    }

    double heapPerEntry() {
        return perEntry(heapBytes);
    }

    /** Native bytes per entry: exact when known, else RSS growth per entry. */
    double nativePerEntry() {
        return perEntry(nativeBytes >= 0 ? nativeBytes : rssBytes);
    }

    long payloadBytes() {
        return keyBytes + valueBytes;
    }

    private double perEntry(long bytes) {
        return resident > 0 ? (double) bytes / resident : Double.NaN;
    }
}
