package io.rdmaverbs.verbs.provider.ffm;

import static io.rdmaverbs.verbs.provider.ffm.Layouts.C_INT;
import static io.rdmaverbs.verbs.provider.ffm.Layouts.PTHREAD_MUTEX_T;
import static java.lang.foreign.ValueLayout.ADDRESS;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.StructLayout;

/** {@code struct ibv_context}: what {@code ibv_open_device} returns. */
final class IbvContext {

    static final StructLayout LAYOUT = MemoryLayout.structLayout(
            ADDRESS.withName("device"),
            IbvContextOps.LAYOUT.withName("ops"),
            C_INT.withName("cmd_fd"),
            C_INT.withName("async_fd"),
            C_INT.withName("num_comp_vectors"),
            MemoryLayout.paddingLayout(4),
            PTHREAD_MUTEX_T.withName("mutex"),
            ADDRESS.withName("abi_compat"))
            .withName("ibv_context");

    static final Field.OfAddress DEVICE = Field.ofAddress(LAYOUT, "device");
    static final long OPS = Field.offset(LAYOUT, "ops");
    static final Field.OfInt ASYNC_FD = Field.ofInt(LAYOUT, "async_fd");
    static final Field.OfInt NUM_COMP_VECTORS = Field.ofInt(LAYOUT, "num_comp_vectors");
    static final Field.OfAddress ABI_COMPAT = Field.ofAddress(LAYOUT, "abi_compat");

    private IbvContext() {
    }
}
