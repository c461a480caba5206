package dev.clockwork.stress;

import dev.clockwork.cache.Cache;

/**
 * The outcome vocabulary every stress test shares, whatever cache it builds: a thread's call
 * turned into a short label (a release as {@code FREED} / {@code KEPT}, an exception as
 * {@code EX_<SimpleName>}), the arbiter's checks joined into {@code OK} or the problems found, and
 * the cache's close. The per-family fixtures ({@link FixedFixture}, {@link AutoFixture},
 * {@link LruFixture}) build on it.
 *
 * <p>Labels use {@code [A-Z0-9_;]} only: jcstress joins result fields with ", ", and outcome ids
 * are regular expressions.
 */
final class Outcomes {
    private Outcomes() {
    }

    /** An arbiter's checks, returning OK or problem labels. */
    interface Check {
        String run();
    }

    /** Releases a handle and labels the result: FREED, KEPT, or the failure's name. */
    static String release(Cache cache, long handle, boolean eraseIfLastRef) {
        try {
            if (handle == Cache.MISS) {
                return "SETUP_MISS";
            }
            return cache.release(handle, eraseIfLastRef) ? "FREED" : "KEPT";
        } catch (RuntimeException | Error e) {
            return failure(e);
        }
    }

    /**
     * A caller's double release: releases a handle holding one reference, then releases it
     * again; {@code first;second}, each FREED, KEPT or the failure's name (e.g.
     * {@code KEPT;EX_IllegalStateException}: the misuse was refused).
     */
    static String releaseTwice(Cache cache, long handle) {
        String first = release(cache, handle, false);
        return first + ";" + release(cache, handle, false);
    }

    /** The label of an exception a cache call threw, so that it shows as an outcome. */
    static String failure(Throwable t) {
        return "EX_" + t.getClass().getSimpleName();
    }

    /** Closes the cache; returns {@code OK} or a failure label. */
    static String close(Cache cache) {
        try {
            cache.close();
            return "OK";
        } catch (RuntimeException | Error e) {
            return failure(e);
        }
    }

    /** Joins non-OK parts with ';', or returns {@code OK}. */
    static String problems(String... parts) {
        StringBuilder sb = new StringBuilder();
        for (String p : parts) {
            if (!"OK".equals(p) && !"DRAINED".equals(p)) {
                if (!sb.isEmpty()) {
                    sb.append(';');
                }
                sb.append(p);
            }
        }
        return sb.isEmpty() ? "OK" : sb.toString();
    }
}

