package io.rdmaverbs.verbs.provider.ffm;

import java.lang.foreign.MemorySegment;

import io.rdmaverbs.verbs.attr.QpCapabilities;
import io.rdmaverbs.verbs.attr.QpType;
import io.rdmaverbs.verbs.provider.QpHandle;

import org.jspecify.annotations.Nullable;

/**
 * A queue pair, created or opened, with its context's {@code post_send} and {@code post_recv} ops
 * read once at creation.
 */
final class NativeQp extends NativeHandle implements QpHandle {

    static {
        // Loaded (not initialized) with this class, as NativeCq's poller: exOps() sits on every post, and C2
        // does not inline it while its return type is not loaded (a process with no send-ops QP).
        NativeQpExOps.class.getName();
    }

    private final NativeContext context;
    private final QpType type;
    private final int qpNum;
    /** What the create asked for; {@link #capabilities} is what it returned. */
    private final QpCapabilities requested;
    private final QpCapabilities capabilities;
    private final MemorySegment postSend;
    private final MemorySegment postRecv;
    /** The new post API of a QP created with send ops; null for another. */
    private @Nullable NativeQpExOps exOps;
    /** What posts hold while in flight; {@code destroyQp} quiesces them first. */
    private final CallGuards calls = new CallGuards();

    NativeQp(NativeVerbsProvider provider, MemorySegment pointer, NativeContext context, QpType type, int qpNum,
            QpCapabilities requested, QpCapabilities capabilities, MemorySegment postSend, MemorySegment postRecv) {
        super(provider, "ibv_qp", pointer);
        this.context = context;
        this.type = type;
        this.qpNum = qpNum;
        this.requested = requested;
        this.capabilities = capabilities;
        this.postSend = postSend;
        this.postRecv = postRecv;
    }

    @Override
    public int qpNum() {
        return qpNum;
    }

    @Override
    public QpType type() {
        return type;
    }

    QpCapabilities requested() {
        return requested;
    }

    @Override
    public QpCapabilities capabilities() {
        return capabilities;
    }

    NativeContext context() {
        return context;
    }

    MemorySegment postSend() {
        return postSend;
    }

    MemorySegment postRecv() {
        return postRecv;
    }

    /** Created with send ops: the function pointers of its {@code ibv_qp_ex}. Right after the create only. */
    void extend(NativeQpExOps ops) {
        exOps = ops;
    }

    @Nullable NativeQpExOps exOps() {
        return exOps;
    }

    CallGuards calls() {
        return calls;
    }
}
