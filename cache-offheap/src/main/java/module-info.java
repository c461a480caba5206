/**
 * The off-heap caches: {@link dev.clockwork.offheap.FixedHyperClockCache},
 * {@link dev.clockwork.offheap.AutoHyperClockCache} and {@link dev.clockwork.offheap.LruCache},
 * their builders and reports. Only {@code dev.clockwork.offheap} is API; the clock protocol and
 * tables ({@code .clock}), the LRU shards ({@code .lru}) and native memory ({@code .memory}) are
 * internal.
 *
 * <p>The caches record JFR events on rare paths (eviction effort exceeded, refused inserts, an
 * Auto table's growth), named {@code dev.clockwork.*}; see docs/metrics.md.
 *
 * <p>The caches call libc through FFM: run with
 * {@code --enable-native-access=dev.clockwork.offheap} on the module path, or
 * {@code --enable-native-access=ALL-UNNAMED} on the class path.
 */
module dev.clockwork.offheap {
    requires transitive dev.clockwork.cache;
    // JFR events on rare paths (dev.clockwork.offheap.events, internal: JFR opens it itself).
    requires jdk.jfr;

    exports dev.clockwork.offheap;
}
