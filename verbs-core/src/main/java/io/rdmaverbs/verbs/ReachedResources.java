package io.rdmaverbs.verbs;

import java.util.Collections;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;

import org.jspecify.annotations.Nullable;

/**
 * The resources a walk of the graph has reached. A graph hands out ids in sequence and never reuses
 * them, so its live resources mostly fill one range of ids: there the set is a bit per id (12.5 KB
 * for a graph of 100k resources, read without a cache miss, where a hash set takes megabytes and a
 * miss per lookup). A resource outside that range (created during the walk, or of another graph) and a
 * range too sparse to be worth its bits go to a hash set instead.
 */
final class ReachedResources {

    /** A range of ids more than this many times the resources expected is left to the hash set. */
    private static final long SPARSE = 64;

    private final @Nullable Verbs graph;
    private final long first;
    private final long[] bits;
    private final Set<VerbsResource> others = Collections.newSetFromMap(new IdentityHashMap<>());
    /** The ids of {@link #others}, for {@link #containsId}. */
    private final Set<Long> otherIds = new HashSet<>();

    private ReachedResources(@Nullable Verbs graph, long first, long last) {
        this.graph = graph;
        this.first = first;
        this.bits = new long[graph == null ? 0 : (int) ((last - first) / Long.SIZE + 1)];
    }

    /**
     * An empty set for a walk from {@code roots}, oldest first: its bits span the ids of the oldest root's
     * graph from that root's to the newest.
     */
    static ReachedResources from(List<? extends VerbsResource> roots) {
        if (roots.isEmpty()) {
            return new ReachedResources(null, 0, 0);
        }
        VerbsResource oldest = roots.getFirst();
        long last = oldest.verbs.lastId();
        boolean dense = last - oldest.id() < SPARSE * Math.max(roots.size(), Long.SIZE);
        return dense ? new ReachedResources(oldest.verbs, oldest.id(), last) : new ReachedResources(null, 0, 0);
    }

    /** Adds {@code r}; false if it was reached before. */
    boolean add(VerbsResource r) {
        int word = word(r);
        if (word < 0) {
            if (!others.add(r)) {
                return false;
            }
            otherIds.add(r.id());
            return true;
        }
        long mask = 1L << (r.id() - first);
        long before = bits[word];
        bits[word] = before | mask;
        return (before & mask) == 0;
    }

    boolean contains(VerbsResource r) {
        int word = word(r);
        return word < 0 ? others.contains(r) : (bits[word] & (1L << (r.id() - first))) != 0;
    }

    /** Whether a resource with {@code id} was reached (ids are unique within one graph). */
    boolean containsId(long id) {
        long offset = id - first;
        if (graph != null && offset >= 0 && offset / Long.SIZE < bits.length
                && (bits[(int) (offset / Long.SIZE)] & (1L << offset)) != 0) {
            return true;
        }
        return otherIds.contains(id);
    }

    /** The word of {@code r}'s bit, or -1 when {@code r} is kept in the hash set. */
    private int word(VerbsResource r) {
        long offset = r.id() - first;
        if (r.verbs != graph || offset < 0 || offset / Long.SIZE >= bits.length) {
            return -1;
        }
        return (int) (offset / Long.SIZE);
    }
}
