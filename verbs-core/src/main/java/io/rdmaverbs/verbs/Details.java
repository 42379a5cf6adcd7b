package io.rdmaverbs.verbs;

import java.util.AbstractMap;
import java.util.AbstractSet;
import java.util.Arrays;
import java.util.Iterator;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.Set;

import org.jspecify.annotations.Nullable;

/**
 * The map a resource's {@link VerbsResource#details()} returns: its few attributes in the order they were
 * put, in one array. A health report asks every resource of the graph for its details at once (100k maps
 * at the scale docs/performance.md measures), and holds them all until it returns: a {@code LinkedHashMap}
 * of seven entries is about 420 bytes (a table and an entry object per attribute), this is under 100, and the
 * collector copies what is live. Lookups are linear, which is what a handful of keys costs least with.
 * Entries can be put (a new key is added at the end, a key put again keeps its place) but not removed.
 */
final class Details extends AbstractMap<String, Object> {

    /** Keys at even indexes, each followed by its value. */
    private @Nullable Object[] slots;
    private int size;

    Details() {
        this(4);
    }

    /** Room for {@code expected} entries before the array grows. */
    Details(int expected) {
        slots = new Object[2 * expected];
    }

    @Override
    public @Nullable Object put(String key, @Nullable Object value) {
        Objects.requireNonNull(key, "key");
        int at = indexOf(key);
        if (at >= 0) {
            Object old = slots[at + 1];
            slots[at + 1] = value;
            return old;
        }
        if (2 * size == slots.length) {
            slots = Arrays.copyOf(slots, Math.max(4, 2 * slots.length));
        }
        slots[2 * size] = key;
        slots[2 * size + 1] = value;
        size++;
        return null;
    }

    @Override
    public @Nullable Object get(Object key) {
        int at = indexOf(key);
        return at < 0 ? null : slots[at + 1];
    }

    @Override
    public boolean containsKey(Object key) {
        return indexOf(key) >= 0;
    }

    @Override
    public int size() {
        return size;
    }

    private int indexOf(Object key) {
        for (int i = 0; i < 2 * size; i += 2) {
            if (slots[i].equals(key)) {
                return i;
            }
        }
        return -1;
    }

    @Override
    public Set<Entry<String, Object>> entrySet() {
        return new AbstractSet<>() {
            @Override
            public Iterator<Entry<String, Object>> iterator() {
                return new Iterator<>() {
                    private int next;

                    @Override
                    public boolean hasNext() {
                        return next < size;
                    }

                    @Override
                    public Entry<String, Object> next() {
                        if (next >= size) {
                            throw new NoSuchElementException();
                        }
                        int at = 2 * next++;
                        return new SimpleImmutableEntry<>((String) slots[at], slots[at + 1]);
                    }
                };
            }

            @Override
            public int size() {
                return size;
            }
        };
    }
}
