package io.rdmaverbs.verbs;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

import io.rdmaverbs.verbs.attr.AccessFlag;
import io.rdmaverbs.verbs.attr.AddressVector;
import io.rdmaverbs.verbs.attr.DeviceAttributes;
import io.rdmaverbs.verbs.attr.QpCapabilities;
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
     * {@code ibv_reg_mr} on memory the caller owns. The segment must be native and stay alive while the
     * region is registered.
     */
    public MemoryRegion registerMemory(MemorySegment buffer, Set<AccessFlag> access) {
        return registerMemory(buffer, access, null);
    }

    public MemoryRegion registerMemory(MemorySegment buffer, Set<AccessFlag> access, @Nullable String name) {
        checkRegistrable(buffer, access);
        return verbs.create(this, List.of(this),
                () -> new MemoryRegion(this, provider.memoryRegionVerbs().regMr(handle, buffer,
                        AccessFlag.mask(access)), buffer, access, null, name));
    }

    /**
     * Allocates {@code size} bytes of page-aligned native memory and registers it; the memory is freed
     * when the region is closed.
     */
    public MemoryRegion allocateMemory(long size, Set<AccessFlag> access, @Nullable String name) {
        if (size <= 0) {
            throw new IllegalArgumentException("a memory region needs at least one byte, asked for " + size);
        }
        // max_mr_size is a u64: soft-RoCE reports 0xffffffffffffffff.
        if (Long.compareUnsigned(size, context.attributes().maxMrSize()) > 0) {
            throw new IllegalArgumentException("a memory region on " + context.device().name() + " is at most "
                    + context.attributes().maxMrSize() + " bytes (max_mr_size), asked for " + size);
        }
        checkAccess(access);
        Arena arena = Arena.ofShared();
        try {
            MemorySegment buffer = arena.allocate(size, 4096);
            return verbs.create(this, List.of(this),
                    () -> new MemoryRegion(this, provider.memoryRegionVerbs().regMr(handle, buffer,
                            AccessFlag.mask(access)), buffer, access, arena, name));
        } catch (RuntimeException | Error e) {
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

    /** {@code ibv_create_ah}: where UD sends go. */
    public AddressHandle createAddressHandle(AddressVector address) {
        return createAddressHandle(address, null);
    }

    public AddressHandle createAddressHandle(AddressVector address, @Nullable String name) {
        Objects.requireNonNull(address, "address");
        context.checkPort(address.portNumber());
        return verbs.create(this, List.of(this),
                () -> new AddressHandle(this, provider.addressHandleVerbs().createAh(handle, address), address, name));
    }

    /** {@code ibv_create_srq} (a basic SRQ in this domain). */
    public SharedReceiveQueue createSharedReceiveQueue(int maxWr, int maxSge, int limit, @Nullable String name) {
        checkSrq(context.attributes(), maxWr, maxSge, limit);
        return verbs.create(this, List.of(this), () -> new SharedReceiveQueue(this, null, null,
                provider.sharedReceiveQueueVerbs().createSrq(context.handle,
                        new SrqInitSpec(SrqType.BASIC, handle, null, null, maxWr, maxSge, limit)),
                SrqType.BASIC, maxWr, maxSge, name));
    }

    static void checkSrq(DeviceAttributes a, int maxWr, int maxSge, int limit) {
        if (maxWr < 1 || maxWr > a.maxSrqWr()) {
            throw new IllegalArgumentException("an SRQ holds 1.." + a.maxSrqWr() + " work requests (max_srq_wr), asked for "
                    + maxWr);
        }
        if (maxSge < 1 || maxSge > a.maxSrqSge()) {
            throw new IllegalArgumentException("an SRQ work request has 1.." + a.maxSrqSge()
                    + " scatter/gather entries (max_srq_sge), asked for " + maxSge);
        }
        if (limit < 0 || limit > maxWr) {
            throw new IllegalArgumentException("the SRQ limit must be 0.." + maxWr + ", was " + limit);
        }
    }

    /** {@code ibv_create_qp_ex} for RC, UC, UD and XRC send QPs in this domain. */
    public QueuePair createQueuePair(QueuePairSpec spec) {
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
        QpInitSpec init = new QpInitSpec(spec.type(), handle, null, spec.sendCq().handle,
                spec.recvCq() == null ? null : spec.recvCq().handle, spec.srq() == null ? null : spec.srq().handle,
                spec.capabilities(), spec.signalAll());
        return verbs.create(this, guards, () -> new QueuePair(context, this, null, spec.sendCq(), spec.recvCq(),
                spec.srq(), provider.queuePairVerbs().createQp(context.handle, init), spec.name()));
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
        return new LinkedHashMap<>();
    }

    @Override
    void release() {
        provider.domainVerbs().deallocPd(handle);
    }
}
