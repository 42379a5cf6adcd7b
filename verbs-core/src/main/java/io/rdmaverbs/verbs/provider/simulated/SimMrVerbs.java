package io.rdmaverbs.verbs.provider.simulated;

import static io.rdmaverbs.verbs.provider.simulated.SimUverbs.locked;

import java.lang.foreign.MemorySegment;
import java.util.Objects;

import io.rdmaverbs.verbs.attr.AccessFlag;
import io.rdmaverbs.verbs.error.Errno;
import io.rdmaverbs.verbs.error.VerbsException;
import io.rdmaverbs.verbs.provider.MemoryRegionVerbs;
import io.rdmaverbs.verbs.provider.MrHandle;
import io.rdmaverbs.verbs.provider.PdHandle;

/**
 * Memory regions: {@code ibv_reg_mr} with the kernel's access checks, and {@code ibv_dereg_mr}. The
 * segment registered is the memory data later moves through.
 */
final class SimMrVerbs implements MemoryRegionVerbs {

    private final SimUverbs uverbs;

    SimMrVerbs(SimUverbs uverbs) {
        this.uverbs = uverbs;
    }

    /**
     * {@code ibv_reg_mr}: the kernel's {@code ib_check_mr_access} (remote write or atomic need local
     * write), zero length is EINVAL ({@code ib_umem_get}), heap memory cannot be registered at all. Data
     * movement later reads and writes through this segment, so its arena must stay open and be
     * accessible from the posting threads (shared or global arenas).
     */
    @Override
    public MrHandle regMr(PdHandle pd, MemorySegment buffer, int access) {
        SimPd p = uverbs.own(pd, SimPd.class);
        uverbs.call("ibv_reg_mr", p);
        Objects.requireNonNull(buffer, "buffer");
        if (!buffer.isNative()) {
            throw new IllegalArgumentException("only native memory can be registered; " + buffer
                    + " is on the Java heap (allocate it from an Arena)");
        }
        SimDevice d = p.device;
        String verb = "ibv_reg_mr";
        return locked(d, () -> {
            p.requireUsable();
            d.requireAlive(verb, p.describe());
            if (buffer.byteSize() == 0) {
                throw new VerbsException(verb, p.describe(), Errno.EINVAL, "cannot register zero bytes");
            }
            int known = 0;
            for (AccessFlag flag : AccessFlag.values()) {
                known |= flag.bit();
            }
            if ((access & ~known) != 0) {
                throw new VerbsException(verb, p.describe(), Errno.EINVAL, "unknown access bits 0x"
                        + Integer.toHexString(access & ~known));
            }
            int localWrite = AccessFlag.LOCAL_WRITE.bit();
            if ((access & (AccessFlag.REMOTE_WRITE.bit() | AccessFlag.REMOTE_ATOMIC.bit())) != 0
                    && (access & localWrite) == 0) {
                throw new VerbsException(verb, p.describe(), Errno.EINVAL,
                        "REMOTE_WRITE and REMOTE_ATOMIC need LOCAL_WRITE as well");
            }
            if ((access & AccessFlag.ON_DEMAND.bit()) != 0 && !d.profile.onDemandPaging()) {
                throw new VerbsException(verb, p.describe(), d.driver().onDemandPagingUnsupported(), d.name()
                        + " does not support on-demand paging");
            }
            d.allocate(KernelObjectKind.MR, verb, p.describe());
            int lkey = d.allocateKey();
            SimMr mr = new SimMr(p.context(), d.nextId(KernelObjectKind.MR), p, buffer, access, lkey,
                    d.driver().rkey(lkey, access));
            d.mrs.put(lkey, mr);
            p.usecnt++;
            p.context().adopt(mr);
            return mr;
        });
    }

    @Override
    public void deregMr(MrHandle mr) {
        SimMr m = uverbs.own(mr, SimMr.class);
        uverbs.call("ibv_dereg_mr", m);
        SimDevice d = m.device;
        locked(d, () -> {
            m.requireUsable();
            d.mrs.remove(m.lkey());
            m.pd.usecnt--;
            d.free(KernelObjectKind.MR);
            m.context().release(m);
            m.markDestroyed();
        });
    }
}
