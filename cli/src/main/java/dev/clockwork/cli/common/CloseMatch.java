package dev.clockwork.cli.common;

import java.util.Collection;

/**
 * The known name closest to a mistyped one, for "did you mean" hints: a typo (one or two letters
 * wrong, missing, extra or swapped) or a part of a longer name ({@code shard_bits} for
 * {@code num_shard_bits}).
 */
public final class CloseMatch {
    private CloseMatch() {
    }

    /** Shortest part of a name that may stand for the whole (shorter parts match too much). */
    private static final int MIN_PART = 4;

    /** The closest of {@code known} to {@code typed}, or null when none is close. */
    public static String of(String typed, Collection<String> known) {
        String best = null;
        int bestDistance = Integer.MAX_VALUE;
        for (String name : known) {
            int d = distance(typed, name);
            if (d < bestDistance) {
                best = name;
                bestDistance = d;
            }
        }
        // a third of the name may be wrong, at most 3 edits: beyond that it is a different word
        int allowed = Math.min(3, Math.max(1, typed.length() / 3));
        if (best != null && bestDistance <= allowed) {
            return best;
        }
        return onlyContaining(typed, known);
    }

    /** The one name of {@code known} that contains {@code typed}, or null (none, or several). */
    private static String onlyContaining(String typed, Collection<String> known) {
        if (typed.length() < MIN_PART) {
            return null;
        }
        String found = null;
        for (String name : known) {
            if (name.contains(typed)) {
                if (found != null) {
                    return null;
                }
                found = name;
            }
        }
        return found;
    }

    /**
     * Edits from {@code a} to {@code b}: insertions, deletions, substitutions and swaps of two
     * adjacent letters (each counts 1; the optimal string alignment distance).
     */
    static int distance(String a, String b) {
        int[][] d = new int[a.length() + 1][b.length() + 1];
        for (int i = 0; i <= a.length(); i++) {
            d[i][0] = i;
        }
        for (int j = 0; j <= b.length(); j++) {
            d[0][j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            for (int j = 1; j <= b.length(); j++) {
                int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
                int v = Math.min(Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1), d[i - 1][j - 1]
                        + cost);
                if (i > 1 && j > 1 && a.charAt(i - 1) == b.charAt(j - 2)
                        && a.charAt(i - 2) == b.charAt(j - 1)) {
                    v = Math.min(v, d[i - 2][j - 2] + 1);
                }
                d[i][j] = v;
            }
        }
        return d[a.length()][b.length()];
    }
}
