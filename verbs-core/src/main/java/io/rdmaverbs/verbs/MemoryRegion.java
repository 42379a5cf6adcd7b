package io.rdmaverbs.verbs;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import io.rdmaverbs.verbs.attr.AccessFlag;
import io.rdmaverbs.verbs.attr.RemoteAccess;
import io.rdmaverbs.verbs.provider.MrHandle;
import io.rdmaverbs.verbs.provider.VerbsProvider;

import org.jspecify.annotations.Nullable;

/**
 * A registered memory region ({@code struct ibv_mr}); it keeps its protection domain busy. While slices of
 * it are exported to connections' peers ({@link RemoteExport}), those hold it: a strict close is refused, a
 * cascade revokes them first. While Java readers {@linkplain #holdMemory() hold} the memory it allocated, a
 * close deregisters it and leaves the memory to the last of them to free.
 */
public final class MemoryRegion extends VerbsResource {

    final MrHandle handle;
    private final VerbsProvider provider;
    private final ProtectionDomain pd;
    private final MemorySegment segment;
    private final EnumSet<AccessFlag> access = EnumSet.noneOf(AccessFlag.class);
    /** {@link #access} as reports show it, worded once: it never changes. */
    private final String accessText;
    private final @Nullable Arena ownedMemory;
    private final List<RemoteExport> exports = new CopyOnWriteArrayList<>();
    /**
     * The {@link MemoryHold}s open, and {@link #FREE_PENDING} once the region asked to free its memory: one
     * word, so that a hold taken and a free asked for at once agree on who frees (the free, seeing no hold;
     * or the last hold, seeing the free asked for), and a hold is refused once the free was asked for.
     */
    private final AtomicInteger memoryHolds = new AtomicInteger();
    private static final int FREE_PENDING = 1 << 30;

    MemoryRegion(ProtectionDomain pd, MrHandle handle, MemorySegment segment, Set<AccessFlag> access,
            @Nullable Arena ownedMemory, @Nullable String name) {
        super(pd.verbs, ResourceKind.MEMORY_REGION, List.of(pd), name);
        this.handle = handle;
        this.provider = pd.verbs.provider();
        this.pd = pd;
        this.segment = segment;
        this.access.addAll(access);
        this.accessText = this.access.toString().intern();
        this.ownedMemory = ownedMemory;
    }

    @Override
    public DeviceContext context() {
        return pd.context();
    }

    public ProtectionDomain protectionDomain() {
        return pd;
    }

    /** The registered memory. Do not use it after the region is closed if the region owned it. */
    public MemorySegment segment() {
        checkOpen();
        return segment;
    }

    /**
     * Refuses to let the device touch memory whose arena was closed while it was registered (the
     * pages stay pinned, but the application may reuse the addresses).
     */
    void checkMemoryAlive() {
        if (!segment.scope().isAlive()) {
            throw new IllegalStateException("the memory of " + ref() + " was freed (its arena closed) while it was "
                    + "still registered; close the region before its memory");
        }
    }

    public int lkey() {
        return handle.lkey();
    }

    public int rkey() {
        return handle.rkey();
    }

    public long address() {
        return handle.address();
    }

    public long length() {
        return handle.length();
    }

    public Set<AccessFlag> access() {
        return EnumSet.copyOf(access);
    }

    @Override
    public Map<String, Object> details() {
        Map<String, Object> m = new Details(5);
        m.put("length", length());
        m.put("lkey", lkey());
        m.put("rkey", rkey());
        m.put("access", accessText);
        List<RemoteExport> live = exports();
        if (!live.isEmpty()) {
            m.put("exports", live.stream().map(e -> Map.of("id", e.id(), "holder", e.holder(), "offset", e.offset(),
                    "length", e.length(), "access", e.access().toString(), "since", e.since().toString())).toList());
        }
        int holds = memoryHoldCount();
        if (holds > 0) {
            m.put("memoryHolds", holds);
        }
        return m;
    }

    // ---- remote exports -------------------------------------------------------------------------

    /**
     * Records that bytes {@code offset..offset+length} of the region are handed, with its rkey, to
     * {@code holder} (a connection's peer) for {@code access}: the region is held until the export ends.
     * Refused once a close has begun, as a lease is.
     *
     * @param id the exporter's number for it
     * @param revocation how the exporter withdraws it (a cascade close calls it)
     * @throws IllegalArgumentException when the slice is outside the region or the region's access flags do
     *         not allow {@code access}
     */
    public RemoteExport exportRemotely(long id, String holder, long offset, long length, Set<RemoteAccess> access,
            RemoteExport.Revocation revocation) {
        Objects.requireNonNull(holder, "holder");
        Objects.requireNonNull(revocation, "revocation");
        if (access.isEmpty()) {
            throw new IllegalArgumentException("an export of " + ref() + " needs at least one of " + EnumSet.allOf(
                    RemoteAccess.class));
        }
        if (offset < 0 || length < 1 || offset > length() - length) {
            throw new IllegalArgumentException("bytes " + offset + ".." + (offset + length) + " are not within the "
                    + length() + " bytes of " + ref());
        }
        for (RemoteAccess a : access) {
            if (!this.access.contains(a.accessFlag())) {
                throw new IllegalArgumentException(ref() + " is registered with " + this.access + " on "
                        + pd.ref() + ": exporting it for " + access + " needs " + a.accessFlag() + " (ibv_reg_mr(3))");
            }
        }
        enter();
        try {
            RemoteExport e = new RemoteExport(this, id, holder, offset, length, access, revocation);
            exports.add(e);
            return e;
        } finally {
            exit();
        }
    }

    /** The exports holding the region now, oldest first. */
    public List<RemoteExport> exports() {
        return List.copyOf(exports);
    }

    void exportEnded(RemoteExport export) {
        exports.remove(export);
    }

    @Override
    boolean hasOwnHolds() {
        return !exports.isEmpty();
    }

    @Override
    void ownStuckReferences(ResourceRef self, List<StuckReference> out) {
        for (RemoteExport e : exports) {
            out.add(e.stuckReference(self));
        }
    }

    @Override
    List<String> cascadePreparations() {
        List<String> out = new ArrayList<>(super.cascadePreparations());
        for (RemoteExport e : exports) {
            out.add(e.revocationPlan());
        }
        return out;
    }

    /** A cascade revokes every export before {@code ibv_dereg_mr(3)}: the peers stop using the rkey first. */
    @Override
    void prepareCascade() {
        for (RemoteExport e : exports()) {
            e.revoke();
        }
    }

    @Override
    void release() {
        provider.memoryRegionVerbs().deregMr(handle);
    }

    // ---- Java readers of the memory ---------------------------------------------------------------

    /**
     * A hold on the region's memory for a Java reader (a handler reading what arrived in it), or null once the
     * region is closed (or closing, its memory about to be freed): the caller then must not read it. A close
     * of the region while holds are open deregisters it and leaves the memory the region allocated to the
     * last hold's {@link MemoryHold#close()} to free; memory the application registered is its own either way.
     */
    public @Nullable MemoryHold holdMemory() {
        for (;;) {
            int holds = memoryHolds.get();
            if ((holds & FREE_PENDING) != 0 || !isOpen()) {
                return null;
            }
            if (memoryHolds.compareAndSet(holds, holds + 1)) {
                return new MemoryHold(this);
            }
        }
    }

    /** The memory holds open now. */
    public int memoryHoldCount() {
        return memoryHolds.get() & ~FREE_PENDING;
    }

    void memoryHoldEnded() {
        if (memoryHolds.decrementAndGet() == FREE_PENDING) {
            // The region was closed while this hold was the last: its free was left to here.
            try {
                freeNow();
            } catch (RuntimeException e) {
                System.getLogger(MemoryRegion.class.getName()).log(System.Logger.Level.WARNING,
                        () -> "the memory of " + ref() + ", freed as its last hold ended, could not be freed", e);
            }
        }
    }

    /**
     * Closes the arena {@link ProtectionDomain#allocateMemory} made, once no {@link MemoryHold} is open (else
     * the last to end frees it). Its close fails while another thread still uses the memory (a downcall
     * holding the segment): the region is deregistered all the same, and the memory stays allocated, which
     * is reported.
     */
    @Override
    void freeOwned() {
        if ((memoryHolds.getAndUpdate(h -> h | FREE_PENDING) & ~FREE_PENDING) == 0) {
            freeNow();
        }
    }

    private void freeNow() {
        if (ownedMemory == null) {
            return;
        }
        try {
            ownedMemory.close();
        } catch (IllegalStateException e) {
            throw new IllegalStateException("the " + segment.byteSize() + " bytes " + ref() + " allocated stay "
                    + "allocated: they are still in use (" + e.getMessage() + ")", e);
        }
    }
}
