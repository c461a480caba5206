/**
 * Clockwork's API, whatever holds the entries: the {@link dev.clockwork.cache.Cache} contract,
 * its checked and byte-key wrappers, the seeded key hash, stable cache keys and the admission
 * hook.
 */
module dev.clockwork.cache {
    exports dev.clockwork.cache;
    exports dev.clockwork.cache.admission;
    exports dev.clockwork.cache.dump;
    exports dev.clockwork.cache.hash;
    exports dev.clockwork.cache.key;
    // Argument checks shared with the caches; not API.
    exports dev.clockwork.cache.internal to dev.clockwork.offheap;
}
