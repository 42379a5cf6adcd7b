package io.rdmaverbs.verbs;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

import io.rdmaverbs.verbs.attr.AccessFlag;
import io.rdmaverbs.verbs.attr.AddressVector;
import io.rdmaverbs.verbs.attr.DeviceAttributes;
import io.rdmaverbs.verbs.attr.QpCapabilities;
import io.rdmaverbs.verbs.attr.SendOpcode;
import io.rdmaverbs.verbs.attr.SrqType;
import io.rdmaverbs.verbs.provider.PdHandle;
import io.rdmaverbs.verbs.provider.QpInitSpec;
import io.rdmaverbs.verbs.provider.SrqInitSpec;
import io.rdmaverbs.verbs.provider.VerbsProvider;

import org.jspecify.annotations.Nullable;

/**
 * A protection domain ({@code struct ibv_pd}). QPs, SRQs, memory regions and address handles are
 * created in it; {@code ibv_dealloc_pd} fails with {@code EBUSY} while any of them lives.
 */
public final class ProtectionDomain extends VerbsResource {

    final PdHandle handle;
    private final VerbsProvider provider;
    private final DeviceContext context;

    ProtectionDomain(DeviceContext context, PdHandle handle, @Nullable String name) {
        super(context.verbs, ResourceKind.PROTECTION_DOMAIN, List.of(context), name);
        this.handle = handle;
        this.provider = context.verbs.provider();
        this.context = context;
    }

    @Override
    public DeviceContext context() {
        return context;
    }

    /**
     * {@code ibv_reg_mr(3)} on memory the caller owns. The segment must be native and stay alive while the
     * region is registered.
     */
    public MemoryRegion registerMemory(MemorySegment buffer, Set<AccessFlag> access) {
        return newRegisteredMemory(buffer, access, null);
    }

    /** {@link #registerMemory(MemorySegment, Set)}, named {@code name} in reports. */
    public MemoryRegion registerMemory(MemorySegment buffer, Set<AccessFlag> access, String name) {
        return newRegisteredMemory(buffer, access, Objects.requireNonNull(name, "name"));
    }

    private MemoryRegion newRegisteredMemory(MemorySegment buffer, Set<AccessFlag> access, @Nullable String name) {
        checkRegistrable(buffer, access);
        return verbs.create(this, List.of(this),
                () -> new MemoryRegion(this, provider.memoryRegionVerbs().regMr(handle, buffer,
                        AccessFlag.mask(access)), buffer, access, null, name));
    }

    /**
     * Allocates {@code size} bytes of page-aligned native memory and registers it; the memory is freed
     * when the region is closed.
     */
    public MemoryRegion allocateMemory(long size, Set<AccessFlag> access) {
        return newAllocatedMemory(size, access, null);
    }

    /** {@link #allocateMemory(long, Set)}, named {@code name} in reports. */
    public MemoryRegion allocateMemory(long size, Set<AccessFlag> access, String name) {
        return newAllocatedMemory(size, access, Objects.requireNonNull(name, "name"));
    }

    private MemoryRegion newAllocatedMemory(long size, Set<AccessFlag> access, @Nullable String name) {
        if (size <= 0) {
            throw new IllegalArgumentException("a memory region needs at least one byte, asked for " + size);
        }
        // max_mr_size is a u64: soft-RoCE reports 0xffffffffffffffff, which bounds nothing.
        long maxMrSize = context.attributes().maxMrSize();
        if (Long.compareUnsigned(size, maxMrSize) > 0) {
            throw new IllegalArgumentException("a memory region on " + context.device().name() + " is at most "
                    + Long.toUnsignedString(maxMrSize) + " bytes (max_mr_size), asked for " + size);
        }
        checkAccess(access);
        Arena arena = Arena.ofShared();
        MemorySegment buffer;
        try {
            buffer = arena.allocate(size, 4096);
        } catch (OutOfMemoryError e) {
            // The arena's answer to a size no malloc can satisfy is a bare OutOfMemoryError.
            arena.close();
            throw new IllegalArgumentException("could not allocate " + size + " bytes of native memory for a memory "
                    + "region on " + context.device().name() + " (max_mr_size allows "
                    + Long.toUnsignedString(maxMrSize) + "): the process cannot have that much; register smaller "
                    + "regions", e);
        }
        try {
            return verbs.create(this, List.of(this),
                    () -> new MemoryRegion(this, provider.memoryRegionVerbs().regMr(handle, buffer,
                            AccessFlag.mask(access)), buffer, access, arena, name));
        } catch (RuntimeException | Error e) {
            // Not registered: nothing else can hold the memory.
            arena.close();
            throw e;
        }
    }

    private void checkRegistrable(MemorySegment buffer, Set<AccessFlag> access) {
        Objects.requireNonNull(buffer, "buffer");
        if (!buffer.isNative()) {
            throw new IllegalArgumentException("only native memory can be registered (the device DMAs into it); "
                    + "got a heap segment: allocate it from an Arena");
        }
        if (buffer.byteSize() == 0) {
            throw new IllegalArgumentException("cannot register an empty segment");
        }
        if (!buffer.scope().isAlive()) {
            throw new IllegalArgumentException("the segment's arena is already closed");
        }
        checkAccess(access);
    }

    private static void checkAccess(Set<AccessFlag> access) {
        Objects.requireNonNull(access, "access");
        boolean remoteWriteOrAtomic = access.contains(AccessFlag.REMOTE_WRITE)
                || access.contains(AccessFlag.REMOTE_ATOMIC);
        if (remoteWriteOrAtomic && !access.contains(AccessFlag.LOCAL_WRITE)) {
            // The kernel's ib_check_mr_access answers EINVAL; say why before asking it.
            throw new IllegalArgumentException("REMOTE_WRITE and REMOTE_ATOMIC require LOCAL_WRITE, got " + access);
        }
    }

    /** {@code ibv_create_ah(3)}: where UD sends go. */
    public AddressHandle createAddressHandle(AddressVector address) {
        return newAddressHandle(address, null);
    }

    /** {@link #createAddressHandle(AddressVector)}, named {@code name} in reports. */
    public AddressHandle createAddressHandle(AddressVector address, String name) {
        return newAddressHandle(address, Objects.requireNonNull(name, "name"));
    }

    private AddressHandle newAddressHandle(AddressVector address, @Nullable String name) {
        Objects.requireNonNull(address, "address");
        context.checkPort(address.portNumber());
        return verbs.create(this, List.of(this),
                () -> new AddressHandle(this, provider.addressHandleVerbs().createAh(handle, address), address, name));
    }

    /**
     * {@code ibv_create_srq(3)} of a basic SRQ in this domain, or {@code ibv_create_srq_ex(3)} of an XRC
     * SRQ (its XRC domain and CQ from {@code spec}), after checking {@code spec} against this device's
     * {@code max_srq_wr} and {@code max_srq_sge}, and that its XRC domain and CQ belong to this context.
     */
    public SharedReceiveQueue createSharedReceiveQueue(SharedReceiveQueueSpec spec) {
        return newSharedReceiveQueue(spec, null);
    }

    /** {@link #createSharedReceiveQueue(SharedReceiveQueueSpec)}, named {@code name} in reports. */
    public SharedReceiveQueue createSharedReceiveQueue(SharedReceiveQueueSpec spec, String name) {
        return newSharedReceiveQueue(spec, Objects.requireNonNull(name, "name"));
    }

    private SharedReceiveQueue newSharedReceiveQueue(SharedReceiveQueueSpec spec, @Nullable String name) {
        Objects.requireNonNull(spec, "spec");
        checkSrq(context.attributes(), spec);
        XrcDomain xrcd = spec.xrcDomain();
        CompletionQueue cq = spec.completionQueue();
        List<VerbsResource> guards = new ArrayList<>(List.of(context, this));
        if (xrcd != null) {
            context.requireSameContext(xrcd, "XRC domain");
            guards.add(xrcd);
        }
        if (cq != null) {
            context.requireSameContext(cq, "CQ");
            guards.add(cq);
        }
        SrqInitSpec init = new SrqInitSpec(spec.type(), handle, xrcd == null ? null : xrcd.handle,
                cq == null ? null : cq.handle, spec.maxWr(), spec.maxSge(), spec.limit());
        return verbs.create(this, guards, () -> new SharedReceiveQueue(this, xrcd, cq,
                provider.sharedReceiveQueueVerbs().createSrq(context.handle, init), spec.type(), spec.maxWr(), spec.maxSge(), name));
    }

    private static void checkSrq(DeviceAttributes a, SharedReceiveQueueSpec spec) {
        if (spec.maxWr() > a.maxSrqWr()) {
            throw new IllegalArgumentException("an SRQ holds 1.." + a.maxSrqWr() + " work requests (max_srq_wr), asked for "
                    + spec.maxWr());
        }
        if (spec.maxSge() > a.maxSrqSge()) {
            throw new IllegalArgumentException("an SRQ work request has 1.." + a.maxSrqSge()
                    + " scatter/gather entries (max_srq_sge), asked for " + spec.maxSge());
        }
    }

    /** {@code ibv_create_qp_ex(3)} for RC, UC, UD and XRC send QPs in this domain. */
    public QueuePair createQueuePair(QueuePairSpec spec) {
        return newQueuePair(spec, null);
    }

    /** {@link #createQueuePair(QueuePairSpec)}, named {@code name} in reports. */
    public QueuePair createQueuePair(QueuePairSpec spec, String name) {
        return newQueuePair(spec, Objects.requireNonNull(name, "name"));
    }

    private QueuePair newQueuePair(QueuePairSpec spec, @Nullable String name) {
        Objects.requireNonNull(spec, "spec");
        checkCapabilities(context.attributes(), spec.capabilities(), spec.srq() != null);
        context.requireSameContext(spec.sendCq(), "send CQ");
        if (spec.recvCq() != null) {
            context.requireSameContext(spec.recvCq(), "receive CQ");
        }
        if (spec.srq() != null) {
            context.requireSameContext(spec.srq(), "SRQ");
            if (spec.srq().type() != SrqType.BASIC) {
                throw new IllegalArgumentException("only a basic SRQ can feed a " + spec.type() + " QP; "
                        + spec.srq().ref() + " is an XRC SRQ");
            }
        }
        List<VerbsResource> guards = new ArrayList<>(List.of(context, this, spec.sendCq()));
        if (spec.recvCq() != null) {
            guards.add(spec.recvCq());
        }
        if (spec.srq() != null) {
            guards.add(spec.srq());
        }
        checkSendOps(spec);
        QpInitSpec init = new QpInitSpec(spec.type(), handle, null, spec.sendCq().handle,
                spec.recvCq() == null ? null : spec.recvCq().handle, spec.srq() == null ? null : spec.srq().handle,
                spec.capabilities(), spec.signalAll(), spec.sendOpsFlags());
        return verbs.create(this, guards, () -> new QueuePair(context, this, null, spec.sendCq(), spec.recvCq(),
                spec.srq(), provider.queuePairVerbs().createQp(context.handle, init), spec.sendOps(), name));
    }

    /** Atomics for the new post API on a device whose {@code atomic_cap} is {@code IBV_ATOMIC_NONE}: refused here. */
    private void checkSendOps(QueuePairSpec spec) {
        boolean atomics = spec.sendOps().contains(SendOpcode.ATOMIC_FETCH_AND_ADD)
                || spec.sendOps().contains(SendOpcode.ATOMIC_CMP_AND_SWP);
        if (atomics && !context.attributes().supportsAtomics()) {
            throw new IllegalArgumentException("send ops " + spec.sendOps() + " refused: device "
                    + context.device().name() + " reports atomic_cap " + context.attributes().atomicCap()
                    + " (IBV_ATOMIC_NONE), it executes no atomic work requests");
        }
    }

    static void checkCapabilities(DeviceAttributes a, QpCapabilities c, boolean withSrq) {
        if (c.maxSendWr() > a.maxQpWr() || (!withSrq && c.maxRecvWr() > a.maxQpWr())) {
            throw new IllegalArgumentException("a queue on this device holds at most " + a.maxQpWr()
                    + " work requests (max_qp_wr), asked for " + c);
        }
        if (c.maxSendSge() > a.maxSge() || (!withSrq && c.maxRecvSge() > a.maxSge())) {
            throw new IllegalArgumentException("a work request on this device has at most " + a.maxSge()
                    + " scatter/gather entries (max_sge), asked for " + c);
        }
    }

    @Override
    public Map<String, Object> details() {
        return new Details(0);
    }

    @Override
    void release() {
        provider.domainVerbs().deallocPd(handle);
    }
}
