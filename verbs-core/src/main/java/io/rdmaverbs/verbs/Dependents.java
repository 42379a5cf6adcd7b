package io.rdmaverbs.verbs;

import java.util.Arrays;

/**
 * The live resources created on one resource, in id order, which is creation order (a graph never
 * reuses an id). An array under this object's lock: a context's dependents are every resource of its
 * device and reports read them all, many times a second, where a skip list costs a cache miss per entry
 * and 30-odd bytes. A creation appends; a close removes by shifting the rest, nothing when the newest
 * goes first, as in a teardown, and a pass over the array otherwise, which a destroy verb dwarfs.
 */
final class Dependents {

    private static final VerbsResource[] NONE = {};

    private VerbsResource[] slots = NONE;
    /** Written under the lock; read without it by {@link #size()}. */
    private volatile int size;

    /** Adds {@code r} unless it is there already. */
    synchronized void add(VerbsResource r) {
        int n = size;
        int at = n == 0 || slots[n - 1].id() < r.id() ? n : insertionPoint(r.id(), n);
        if (at < n && slots[at] == r) {
            return;
        }
        if (n == slots.length) {
            slots = Arrays.copyOf(slots, Math.max(4, n + (n >> 1)));
        }
        System.arraycopy(slots, at, slots, at + 1, n - at);
        slots[at] = r;
        size = n + 1;
    }

    /** Removes {@code r}; false if it was not there. */
    synchronized boolean remove(VerbsResource r) {
        int n = size;
        int at = insertionPoint(r.id(), n);
        if (at == n || slots[at] != r) {
            return false;
        }
        System.arraycopy(slots, at + 1, slots, at, n - at - 1);
        slots[n - 1] = null;
        size = n - 1;
        // A context whose 100k resources closed should not keep their slots.
        if (slots.length > 16 && n - 1 < slots.length / 4) {
            slots = Arrays.copyOf(slots, slots.length / 2);
        }
        return true;
    }

    int size() {
        return size;
    }

    /** The dependents now, oldest first, in an array of their own. */
    synchronized VerbsResource[] snapshot() {
        return size == 0 ? NONE : Arrays.copyOf(slots, size);
    }

    /** The first slot whose resource's id is {@code id} or larger. */
    private int insertionPoint(long id, int n) {
        int low = 0;
        int high = n;
        while (low < high) {
            int mid = (low + high) >>> 1;
            if (slots[mid].id() < id) {
                low = mid + 1;
            } else {
                high = mid;
            }
        }
        return low;
    }
}
