package io.rdmaverbs.verbs.provider.ffm;

import static java.lang.foreign.ValueLayout.ADDRESS;

import java.lang.foreign.Arena;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;

import io.rdmaverbs.verbs.attr.DeviceInfo;
import io.rdmaverbs.verbs.attr.NodeType;

/**
 * A {@code struct verbs_context} built in off-heap memory, as a provider library would allocate it,
 * with the ops a test fills in. Lets the inline dispatch and the data path run without a device:
 * handles made here point into this memory, never at a real kernel object.
 */
final class FakeVerbsContext {

    private final Arena arena;
    private final MemorySegment verbsContext;
    private final MemorySegment context;

    FakeVerbsContext(Arena arena) {
        this.arena = arena;
        this.verbsContext = arena.allocate(VerbsContext.LAYOUT);
        this.context = verbsContext.asSlice(VerbsContext.CONTEXT, IbvContext.LAYOUT.byteSize());
        size(VerbsContext.LAYOUT.byteSize());
        abiCompat(VerbsContext.VERBS_ABI_IS_EXTENDED);
    }

    /** {@code &vctx->context}: what {@code ibv_open_device} would have returned. */
    MemorySegment context() {
        return context;
    }

    FakeVerbsContext size(long sz) {
        VerbsContext.SZ.set(verbsContext, sz);
        return this;
    }

    FakeVerbsContext abiCompat(long value) {
        IbvContext.ABI_COMPAT.set(context, MemorySegment.ofAddress(value));
        return this;
    }

    /** Sets an op of {@code struct verbs_context} (a member from {@link VerbsContext}). */
    FakeVerbsContext op(Field.OfAddress op, MemorySegment function) {
        op.set(verbsContext, function);
        return this;
    }

    /** Sets an op of {@code ctx->ops} (a member from {@link IbvContextOps}). */
    FakeVerbsContext contextOp(Field.OfAddress op, MemorySegment function) {
        op.set(context, IbvContext.OPS, function);
        return this;
    }

    /** A zeroed C object of {@code layout} whose first field, {@code context}, points at this context. */
    MemorySegment object(MemoryLayout layout) {
        MemorySegment object = arena.allocate(layout);
        object.set(ADDRESS, 0, context);
        return object;
    }

    NativeContext handle(NativeVerbsProvider provider, String deviceName) {
        return new NativeContext(provider, context, new DeviceInfo(deviceName, 0x0002c9030001_2345L, NodeType.CA), 2,
                -1, WakeDescriptor.NONE);
    }
}
