package io.rdmaverbs.verbs;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import io.rdmaverbs.verbs.attr.AccessFlag;
import io.rdmaverbs.verbs.provider.MrHandle;
import io.rdmaverbs.verbs.provider.VerbsProvider;

import org.jspecify.annotations.Nullable;

/** A registered memory region ({@code struct ibv_mr}); it keeps its protection domain busy. */
public final class MemoryRegion extends VerbsResource {

    final MrHandle handle;
    private final VerbsProvider provider;
    private final ProtectionDomain pd;
    private final MemorySegment segment;
    private final EnumSet<AccessFlag> access = EnumSet.noneOf(AccessFlag.class);
    /** {@link #access} as reports show it, worded once: it never changes. */
    private final String accessText;
    private final @Nullable Arena ownedMemory;

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
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("length", length());
        m.put("lkey", lkey());
        m.put("rkey", rkey());
        m.put("access", accessText);
        return m;
    }

    @Override
    void release() {
        provider.memoryRegionVerbs().deregMr(handle);
    }

    /**
     * Closes the arena {@link ProtectionDomain#allocateMemory} made. Its close fails while another thread
     * still uses the memory (a downcall holding the segment): the region is deregistered all the same, and
     * the memory stays allocated, which is reported.
     */
    @Override
    void freeOwned() {
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
