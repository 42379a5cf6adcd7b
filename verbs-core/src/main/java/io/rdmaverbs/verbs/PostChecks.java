package io.rdmaverbs.verbs;

import org.jspecify.annotations.Nullable;

/**
 * What the last full check of a request or a batch before a post found, so that posting it again unchanged
 * checks only what can change without the request being touched: whether its regions are still open and their
 * memory alive, and whether its address handles are still open. Everything else a full check reads is either
 * the request's own (entries set, opcode, flags, the atomic's remote address: their setters call
 * {@link #changed()}) or fixed for the QP or context it was checked for (a region's and an address handle's
 * device context, the QP's {@code max_inline_data}, the device's {@code atomic_cap}), so it holds until the
 * request changes or is posted elsewhere.
 *
 * <p>A post of an unchanged 16-request batch into one region then costs one region's checks, not sixteen
 * requests' walks (docs/performance.md, section 6). A request or batch naming more than {@value #MOST}
 * distinct regions and handles is walked in full every time. One per standalone request, one shared by the
 * requests of a batch; not thread-safe, as they are not.
 */
final class PostChecks {

    /** The distinct regions and address handles kept; beyond, every post walks the requests. */
    static final int MOST = 8;

    /** The QP (sends) or device context (receives) the last full check passed for; null since a change. */
    private @Nullable Object passedFor;
    private final MemoryRegion[] regions = new MemoryRegion[MOST];
    private int regionCount;
    private final AddressHandle[] handles = new AddressHandle[MOST];
    private int handleCount;
    private boolean tooMany;

    /** A request changed in a way a full check reads: the next post checks in full. */
    void changed() {
        passedFor = null;
    }

    /**
     * Whether a full check is due before a post to {@code target}: true, having forgotten what the last one
     * found, unless the last full check passed for {@code target} and nothing it read has changed since; then
     * the regions and handles it found are checked again here (closed, freed) and false is returned. A due
     * check calls {@link #found} for what it checks and ends with {@link #passed}.
     *
     * @throws IllegalStateException as the full check would, naming a region or handle closed since
     */
    boolean due(Object target) {
        if (passedFor != target) {
            passedFor = null;
            regionCount = 0;
            handleCount = 0;
            tooMany = false;
            return true;
        }
        for (int i = 0; i < regionCount; i++) {
            MemoryRegion r = regions[i];
            r.checkOpen();
            r.checkMemoryAlive();
        }
        for (int i = 0; i < handleCount; i++) {
            handles[i].checkOpen();
        }
        return false;
    }

    /** The full check passed {@code r}. */
    void found(MemoryRegion r) {
        regionCount = add(regions, regionCount, r);
    }

    /** The full check passed {@code ah}. */
    void found(AddressHandle ah) {
        handleCount = add(handles, handleCount, ah);
    }

    /** The full check passed for {@code target}: until a change, a post there checks only what it found. */
    void passed(Object target) {
        passedFor = tooMany ? null : target;
    }

    private <T> int add(T[] found, int count, T resource) {
        for (int i = 0; i < count; i++) {
            if (found[i] == resource) {
                return count;
            }
        }
        if (count == found.length) {
            tooMany = true;
            return count;
        }
        found[count] = resource;
        return count + 1;
    }
}
