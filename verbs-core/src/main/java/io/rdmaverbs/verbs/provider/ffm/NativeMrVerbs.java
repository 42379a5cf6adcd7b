package io.rdmaverbs.verbs.provider.ffm;

import static io.rdmaverbs.verbs.provider.ffm.InlineVerbs.isNull;
import static io.rdmaverbs.verbs.provider.ffm.VerbChecks.errnoOfNull;
import static io.rdmaverbs.verbs.provider.ffm.VerbChecks.failure;
import static io.rdmaverbs.verbs.provider.ffm.VerbChecks.memlockHint;
import static io.rdmaverbs.verbs.provider.ffm.VerbChecks.released;

import java.lang.foreign.MemorySegment;

import io.rdmaverbs.verbs.error.Errno;
import io.rdmaverbs.verbs.provider.MemoryRegionVerbs;
import io.rdmaverbs.verbs.provider.MrHandle;
import io.rdmaverbs.verbs.provider.PdHandle;

/** The memory region verbs of {@link NativeVerbsProvider}: registering and deregistering a buffer. */
final class NativeMrVerbs implements MemoryRegionVerbs {

    /** {@code IBV_ACCESS_OPTIONAL_RANGE}: access flags only {@code ibv_reg_mr_iova2} understands. */
    static final int IBV_ACCESS_OPTIONAL_RANGE = 0x3ff0_0000;

    private final NativeVerbsProvider provider;

    NativeMrVerbs(NativeVerbsProvider provider) {
        this.provider = provider;
    }

    @Override
    public MrHandle regMr(PdHandle pd, MemorySegment buffer, int access) {
        NativePd p = provider.live(pd, NativePd.class);
        if (!buffer.isNative()) {
            throw new IllegalArgumentException("ibv_reg_mr needs off-heap memory the device can reach; " + buffer
                    + " is a heap segment: allocate the buffer from an Arena");
        }
        MemorySegment state = CallState.current();
        // As the ibv_reg_mr macro of verbs.h: only optional access flags need ibv_reg_mr_iova2.
        MemorySegment mr = (access & IBV_ACCESS_OPTIONAL_RANGE) == 0
                ? Libibverbs.ibv_reg_mr(state, p.pointer(), buffer, buffer.byteSize(), access)
                : Libibverbs.ibv_reg_mr_iova2(state, p.pointer(), buffer, buffer.byteSize(), buffer.address(), access);
        if (isNull(mr)) {
            int errno = errnoOfNull(state);
            Errno e = Errno.of(errno);
            throw failure("ibv_reg_mr", p, errno, e.equals(Errno.EINVAL)
                    ? "access flags 0x" + Integer.toHexString(access) + " were refused (remote write and atomic "
                            + "access need LOCAL_WRITE too) or the length " + buffer.byteSize() + " is invalid"
                    : e.equals(Errno.EFAULT)
                            ? "the buffer 0x" + Long.toHexString(buffer.address()) + " is not mapped memory"
                            : "could not register " + buffer.byteSize() + " bytes" + memlockHint(errno));
        }
        MemorySegment fields = mr.reinterpret(IbvMr.LAYOUT.byteSize());
        return new NativeMr(provider, mr, p, buffer, IbvMr.LKEY.get(fields), IbvMr.RKEY.get(fields),
                IbvMr.ADDR.get(fields).address(), IbvMr.LENGTH.get(fields));
    }

    @Override
    public void deregMr(MrHandle mr) {
        NativeMr m = provider.live(mr, NativeMr.class);
        MemorySegment state = CallState.current();
        released("ibv_dereg_mr", m, Libibverbs.ibv_dereg_mr(state, m.pointer()), state,
                "a memory window is still bound to it",
                "could not deregister the memory region");
    }
}
