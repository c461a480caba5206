package dev.clockwork.offheap.model;

import dev.clockwork.cache.Priority;

/**
 * One step of a generated sequence. Steps name keys by index into the sequence's key space and
 * held handles by a number taken modulo the handles held when the step runs, so any sub-list of a
 * sequence is still a runnable sequence (which is what shrinking needs); a step that finds nothing
 * to act on does nothing.
 *
 * @param kind what to do
 * @param key key index (insert, lookup, erase)
 * @param charge the charge (inserts)
 * @param length value length in bytes, at least {@link Values#HEADER} (inserts)
 * @param priority insert priority
 * @param pick which held handle, modulo the number held (release, ref, read)
 * @param flag lookup: keep the handle; release: eraseIfLastRef; setStrict: the new setting
 * @param capacity the new capacity (setCapacity)
 */
record Op(Kind kind, int key, long charge, int length, Priority priority, int pick, boolean flag,
          long capacity) {

    enum Kind {
        /** {@code insert} without a handle. */
        INSERT,
        /** {@code insertPinned}: the handle is held. */
        INSERT_PINNED,
        /** {@code lookup}; a hit is checked, then held ({@code flag}) or released at once. */
        LOOKUP,
        /** {@code release(handle, eraseIfLastRef = flag)} of a held handle. */
        RELEASE,
        /** {@code ref} on a held handle: one more handle to release. */
        REF,
        /** Re-reads a held handle: value bytes, size and charge unchanged since it was taken. */
        READ,
        /** {@code erase}. */
        ERASE,
        /** {@code setCapacity}. */
        SET_CAPACITY,
        /** {@code setStrictCapacityLimit(flag)}. */
        SET_STRICT,
        /** Looks up every key of the key space (and releases): confirms what is resident. */
        AUDIT,
        /**
         * Releases the most recently released handle again, where that is certain to be refused
         * (its entry unpinned and not freed, or LRU); expects {@link IllegalStateException} and no
         * change.
         */
        DOUBLE_RELEASE
    }

    static Op insert(int key, long charge, int length, Priority priority) {
        return new Op(Kind.INSERT, key, charge, length, priority, 0, false, 0);
    }

    static Op insertPinned(int key, long charge, int length, Priority priority) {
        return new Op(Kind.INSERT_PINNED, key, charge, length, priority, 0, false, 0);
    }

    static Op lookup(int key, boolean hold) {
        return new Op(Kind.LOOKUP, key, 0, 0, null, 0, hold, 0);
    }

    static Op release(int pick, boolean eraseIfLastRef) {
        return new Op(Kind.RELEASE, 0, 0, 0, null, pick, eraseIfLastRef, 0);
    }

    static Op ref(int pick) {
        return new Op(Kind.REF, 0, 0, 0, null, pick, false, 0);
    }

    static Op read(int pick) {
        return new Op(Kind.READ, 0, 0, 0, null, pick, false, 0);
    }

    static Op erase(int key) {
        return new Op(Kind.ERASE, key, 0, 0, null, 0, false, 0);
    }

    static Op setCapacity(long capacity) {
        return new Op(Kind.SET_CAPACITY, 0, 0, 0, null, 0, false, capacity);
    }

    static Op setStrict(boolean strict) {
        return new Op(Kind.SET_STRICT, 0, 0, 0, null, 0, strict, 0);
    }

    static Op audit() {
        return new Op(Kind.AUDIT, 0, 0, 0, null, 0, false, 0);
    }

    static Op doubleRelease() {
        return new Op(Kind.DOUBLE_RELEASE, 0, 0, 0, null, 0, false, 0);
    }

    @Override
    public String toString() {
        return switch (kind) {
            case INSERT -> "insert(k" + key + ", charge=" + charge + ", len=" + length + ", "
                    + priority + ")";
            case INSERT_PINNED -> "insertPinned(k" + key + ", charge=" + charge + ", len=" + length
                    + ", " + priority + ")";
            case LOOKUP -> "lookup(k" + key + (flag ? ", hold)" : ")");
            case RELEASE -> "release(#" + pick + (flag ? ", eraseIfLastRef)" : ")");
            case REF -> "ref(#" + pick + ")";
            case READ -> "read(#" + pick + ")";
            case ERASE -> "erase(k" + key + ")";
            case SET_CAPACITY -> "setCapacity(" + capacity + ")";
            case SET_STRICT -> "setStrictCapacityLimit(" + flag + ")";
            case AUDIT -> "audit()";
            case DOUBLE_RELEASE -> "doubleRelease()";
        };
    }
}
