package dev.clockwork.cli.simulate;

import java.util.HashMap;
import java.util.Map;

/**
 * CLOCK-Pro (Jiang, Chen and Zhang, "CLOCK-Pro: An Effective Improvement of the CLOCK
 * Replacement", USENIX ATC 2005): LIRS's idea, a page's reuse distance against the hot pages'
 * recency, on one clock instead of two LRU stacks. Every page, hot (resident), cold resident or
 * cold non-resident (a ghost), sits on one circular list in access order, newest at the head, each
 * with a reference bit that a hit sets. A cold page starts a test period when it enters; if it is
 * accessed during the period (a resident one is found with its bit set, or a ghost is missed on)
 * its reuse distance is short and it becomes hot, and the target number of resident cold pages
 * grows by one; a period that ends without an access shrinks it. Three hands move from the tail
 * (largest recency) towards the head:
 * <ul>
 *   <li>the cold hand finds the victim: a referenced cold page is promoted (in its period) or
 *       moved to the head for a new period; an unreferenced one is evicted, staying as a ghost
 *       while its period lasts;</li>
 *   <li>the hot hand demotes the least recent unreferenced hot page to cold when a promotion
 *       leaves more hot pages than the capacity less the cold target, clearing bits on the way and
 *       ending the test periods of the cold pages it passes;</li>
 *   <li>the test hand ends the periods of the oldest cold pages when ghosts pass their bound,
 *       forgetting the ghosts.</li>
 * </ul>
 *
 * <p>This follows Caffeine's simulator ({@code irr.ClockProPolicy}, which follows the authors'
 * reference code) and its defaults: the cold target starts at its minimum and stays within
 * [max(2, 1 % of the capacity), min(capacity - that, 99 % of it)], so a capacity under
 * {@value #MIN_CAPACITY} is refused; ghosts are bounded at {@value #NON_RESIDENT_MULTIPLE} times
 * the capacity; an access repeating the one just before is a hit with no other effect (a
 * correlated reference); a ghost is not promoted when the hot hand, making room for it, finds no
 * unreferenced hot page before reaching it. Until the cache is full, pages enter hot until only
 * the cold minimum is free, then cold. Sizes are not supported: CLOCK-Pro counts pages, so
 * {@code simulate} refuses it with {@code -bytes}.
 *
 * <p>Structure: a hash map from key to the pages on the clock, which is a circular doubly linked
 * list through the pages ({@code older} towards the tail). A hand may sweep many pages, so a
 * step is O(1) amortized, not worst case.
 */
final class ClockProPolicy implements SimPolicy {
    /** Ghosts kept, as a multiple of the capacity. */
    static final int NON_RESIDENT_MULTIPLE = 2;
    /** The smallest capacity whose cold target bounds are not empty. */
    static final int MIN_CAPACITY = 4;

    private final int capacity;
    private final int maxNonResident;
    private final int minColdTarget;
    private final int maxColdTarget;
    private final Map<Long, Page> pages = new HashMap<>();
    /** The newest page; the list is circular, so its {@code newer} neighbour is the tail. */
    private Page head;
    private Page handHot;
    private Page handCold;
    private Page handTest;
    private int coldTarget;
    private int free;
    private int hotCount;
    private int residentColdCount;
    private int nonResidentCount;
    private int inTestCount;
    private long lastKey;
    private boolean accessedBefore;

    /** @param capacity at least {@link #MIN_CAPACITY} entries */
    ClockProPolicy(int capacity) {
        if (capacity < MIN_CAPACITY) {
            throw new IllegalArgumentException(refusal(capacity));
        }
        this.capacity = capacity;
        this.maxNonResident = NON_RESIDENT_MULTIPLE * capacity;
        this.minColdTarget = Math.max(2, (int) (capacity * 0.01));
        this.maxColdTarget = Math.min(capacity - minColdTarget, (int) (capacity * 0.99));
        this.coldTarget = minColdTarget;
        this.free = capacity;
    }

    /** Why CLOCK-Pro cannot run at {@code capacity} entries, or null. */
    static String refusal(long capacity) {
        return capacity < MIN_CAPACITY ? "CLOCK-Pro needs at least " + MIN_CAPACITY + " entries"
                + " (a cold target of at least 2 resident cold pages, at most the capacity"
                + " less that)" : null;
    }

    @Override
    public boolean access(long key, long size) {
        if (accessedBefore && key == lastKey) {
            return true; // a correlated reference: the page was resident a moment ago
        }
        accessedBefore = true;
        lastKey = key;
        Page page = pages.get(key);
        if (page != null && page.status.resident) {
            page.referenced = true;
            return true;
        }
        if (page == null) {
            page = new Page(key);
        }
        onMiss(page);
        return false;
    }

    private void onMiss(Page page) {
        if (free > minColdTarget) {
            moveToHead(page, Status.HOT);
        } else if (free > 0) {
            moveToHead(page, Status.COLD_IN_TEST);
        } else {
            boolean ghost = page.status == Status.NON_RESIDENT;
            while (free == 0) {
                runHandCold();
            }
            moveToHead(page, ghost && canPromote(page) ? Status.HOT : Status.COLD_IN_TEST);
        }
        organizeHands();
    }

    /**
     * Whether {@code candidate}, a cold page accessed in its test period, can become hot: counts
     * the access towards the cold target, then has the hot hand demote hot pages until there is
     * room. False if the page's period ended meanwhile or no hot page could be demoted.
     */
    private boolean canPromote(Page candidate) {
        if (!candidate.status.inTest) {
            return false;
        }
        adjustColdTarget(+1);
        candidate.referenced = false;
        while (hotCount >= capacity - coldTarget) {
            if (!candidate.status.inTest || !runHandHot(candidate)) {
                return false;
            }
        }
        return true;
    }

    private void runHandCold() {
        Page page = handCold;
        if (page.referenced) {
            moveToHead(page, page.status.inTest && canPromote(page) ? Status.HOT
                    : Status.COLD_IN_TEST);
        } else {
            if (page.status.inTest) {
                setStatus(page, Status.NON_RESIDENT);
                handCold = page.newer;
            } else {
                removeFromClock(page);
            }
            while (nonResidentCount > maxNonResident) {
                endTestPeriod(handTest);
                nextHandTest();
            }
        }
        nextHandCold();
    }

    /** Demotes the least recent unreferenced hot page before {@code trigger}; whether it did. */
    private boolean runHandHot(Page trigger) {
        boolean demoted = false;
        while (handHot != trigger) {
            Page page = handHot;
            if (page.status == Status.HOT) {
                if (page.referenced) {
                    moveToHead(page, Status.HOT);
                } else {
                    moveToHead(page, Status.COLD);
                    demoted = true;
                    break;
                }
            } else {
                handHot = page.newer;
                endTestPeriod(page);
            }
        }
        nextHandHot();
        return demoted;
    }

    /** Ends a cold page's test period: a ghost leaves the clock; the target follows its bit. */
    private void endTestPeriod(Page page) {
        if (!page.status.inTest) {
            return;
        }
        if (page.status.resident) {
            setStatus(page, Status.COLD);
        } else {
            removeFromClock(page);
        }
        adjustColdTarget(page.referenced ? +1 : -1);
    }

    private void adjustColdTarget(int change) {
        coldTarget = Math.clamp(coldTarget + change, minColdTarget, maxColdTarget);
    }

    private void organizeHands() {
        nextHandCold();
        nextHandHot();
        nextHandTest();
    }

    /** Moves the cold hand to the resident cold page of largest recency from where it is. */
    private void nextHandCold() {
        if (residentColdCount == 0) {
            handCold = null;
            return;
        }
        if (handCold == null) {
            handCold = head.newer;
        }
        while (!handCold.status.residentCold) {
            handCold = handCold.newer;
        }
    }

    /** Moves the hot hand to the next hot page, ending the periods of cold pages it passes. */
    private void nextHandHot() {
        if (hotCount == 0) {
            handHot = null;
            return;
        }
        if (handHot == null) {
            handHot = head.newer;
        }
        while (handHot.status != Status.HOT) {
            Page passed = handHot;
            handHot = passed.newer;
            endTestPeriod(passed);
        }
        nextHandTest();
    }

    /** Moves the test hand to the next page in its test period. */
    private void nextHandTest() {
        if (inTestCount == 0) {
            handTest = null;
            return;
        }
        if (handTest == null) {
            handTest = handHot == null ? head.newer : handHot;
        }
        while (!handTest.status.inTest) {
            handTest = handTest.newer;
        }
    }

    private void moveToHead(Page page, Status status) {
        if (page.status != Status.OUT) {
            removeFromClock(page);
        }
        pages.put(page.key, page);
        if (head != null) {
            page.older = head;
            page.newer = head.newer;
            head.newer.older = page;
            head.newer = page;
        }
        setStatus(page, status);
        head = page;
    }

    /** Unlinks {@code page}, moving any hand on it one page newer; it is forgotten. */
    private void removeFromClock(Page page) {
        if (page == head) {
            head = page.older;
        }
        if (page == handCold) {
            handCold = page.newer;
        }
        if (page == handHot) {
            handHot = page.newer;
        }
        if (page == handTest) {
            handTest = page.newer;
        }
        page.older.newer = page.newer;
        page.newer.older = page.older;
        page.newer = page;
        page.older = page;
        setStatus(page, Status.OUT);
        page.referenced = false;
        pages.remove(page.key);
    }

    private void setStatus(Page page, Status status) {
        count(page.status, -1);
        page.status = status;
        count(status, +1);
    }

    private void count(Status status, int change) {
        if (status.resident) {
            free -= change;
        }
        if (status.inTest) {
            inTestCount += change;
        }
        if (status.residentCold) {
            residentColdCount += change;
        }
        if (status == Status.NON_RESIDENT) {
            nonResidentCount += change;
        }
        if (status == Status.HOT) {
            hotCount += change;
        }
    }

    /** Resident pages (for tests). */
    int entryCount() {
        return capacity - free;
    }

    /** Ghosts on the clock (for tests). */
    int nonResidentCount() {
        return nonResidentCount;
    }

    /** Hot pages (for tests). */
    int hotCount() {
        return hotCount;
    }

    /** The target number of resident cold pages (for tests). */
    int coldTarget() {
        return coldTarget;
    }

    /** Whether {@code key} is a hot page (for tests). */
    boolean isHot(long key) {
        Page page = pages.get(key);
        return page != null && page.status == Status.HOT;
    }

    private enum Status {
        HOT(true, false, false),
        COLD(true, false, true),
        COLD_IN_TEST(true, true, true),
        NON_RESIDENT(false, true, false),
        OUT(false, false, false);

        final boolean resident;
        final boolean inTest;
        final boolean residentCold;

        Status(boolean resident, boolean inTest, boolean residentCold) {
            this.resident = resident;
            this.inTest = inTest;
            this.residentCold = residentCold;
        }
    }

    private static final class Page {
        final long key;
        Status status = Status.OUT;
        /** Towards the head (smaller recency); the head's is the tail. */
        Page newer = this;
        /** Towards the tail (larger recency); the tail's is the head. */
        Page older = this;
        boolean referenced;

        Page(long key) {
            this.key = key;
        }
    }
}
