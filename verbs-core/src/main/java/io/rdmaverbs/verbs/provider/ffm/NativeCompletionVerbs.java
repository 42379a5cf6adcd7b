package io.rdmaverbs.verbs.provider.ffm;

import static io.rdmaverbs.verbs.provider.ffm.InlineVerbs.isNull;
import static io.rdmaverbs.verbs.provider.ffm.VerbChecks.errnoOfNull;
import static io.rdmaverbs.verbs.provider.ffm.VerbChecks.failure;
import static io.rdmaverbs.verbs.provider.ffm.VerbChecks.memlockHint;
import static io.rdmaverbs.verbs.provider.ffm.VerbChecks.released;
import static io.rdmaverbs.verbs.provider.ffm.VerbChecks.requireOp;
import static io.rdmaverbs.verbs.provider.ffm.VerbChecks.returnedErrno;
import static java.lang.foreign.ValueLayout.ADDRESS;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Map;

import io.rdmaverbs.verbs.attr.WorkCompletions;
import io.rdmaverbs.verbs.error.Errno;
import io.rdmaverbs.verbs.error.VerbsException;
import io.rdmaverbs.verbs.provider.CompChannelHandle;
import io.rdmaverbs.verbs.provider.CompletionVerbs;
import io.rdmaverbs.verbs.provider.ContextHandle;
import io.rdmaverbs.verbs.provider.CqExPoller;
import io.rdmaverbs.verbs.provider.CqHandle;

import org.jspecify.annotations.Nullable;

/**
 * The completion verbs of {@link NativeVerbsProvider}: completion channels, the life of a CQ, arming
 * and polling it (through the op pointers its handle read once), and reading and acknowledging its
 * completion events.
 */
final class NativeCompletionVerbs implements CompletionVerbs {

    private final NativeVerbsProvider provider;
    /* The provider's address -> CQ map, to turn the CQ of a completion event back into its handle. */
    private final Map<Long, NativeCq> cqs;

    NativeCompletionVerbs(NativeVerbsProvider provider, Map<Long, NativeCq> cqs) {
        this.provider = provider;
        this.cqs = cqs;
    }

    @Override
    public CompChannelHandle createCompChannel(ContextHandle context) {
        NativeContext c = provider.live(context, NativeContext.class);
        MemorySegment state = CallState.current();
        MemorySegment channel = Libibverbs.ibv_create_comp_channel(state, c.pointer());
        if (isNull(channel)) {
            throw failure("ibv_create_comp_channel", c, errnoOfNull(state),
                    "could not create a completion channel on " + c.deviceName());
        }
        WakeDescriptor wake;
        try {
            wake = WakeDescriptor.open(state, c.deviceName() + "'s completion channel");
        } catch (VerbsException e) {
            Libibverbs.ibv_destroy_comp_channel(state, channel);
            throw e;
        }
        int fd = IbvCompChannel.FD.get(channel.reinterpret(IbvCompChannel.LAYOUT.byteSize()));
        NativeCompChannel handle = new NativeCompChannel(provider, channel, c, fd, wake);
        // getCqEvent polls the descriptor with a timeout, then reads; the read must never block.
        int errno = EventDescriptors.makeNonBlocking(fd, state);
        if (errno != 0) {
            Libibverbs.ibv_destroy_comp_channel(state, channel);
            wake.close();
            throw new VerbsException("fcntl", handle.describe(), Errno.of(errno),
                    "could not make the completion channel's descriptor " + fd + " non-blocking");
        }
        return handle;
    }

    @Override
    public void destroyCompChannel(CompChannelHandle channel) {
        NativeCompChannel ch = provider.live(channel, NativeCompChannel.class);
        MemorySegment state = CallState.current();
        released("ibv_destroy_comp_channel", ch, Libibverbs.ibv_destroy_comp_channel(state, ch.pointer()), state,
                "a CQ still reports to it: destroy the CQs first",
                "could not destroy the completion channel");
        // Only now: a failed destroy leaves the channel usable, and its waiters wakeable.
        ch.wake().close();
    }

    @Override
    public void wakeCqEventWaiters(CompChannelHandle channel) {
        NativeCompChannel ch = provider.identify(channel, NativeCompChannel.class);
        // No liveness check: the wake touches only the descriptor, which is a no-op once closed.
        ch.wake().wake();
    }

    @Override
    public CqHandle createCq(ContextHandle context, int cqe, @Nullable CompChannelHandle channel, int compVector) {
        NativeContext c = provider.live(context, NativeContext.class);
        NativeCompChannel ch = channel == null ? null : provider.live(channel, NativeCompChannel.class);
        MemorySegment state = CallState.current();
        MemorySegment cq = Libibverbs.ibv_create_cq(state, c.pointer(), cqe, MemorySegment.NULL,
                ch == null ? MemorySegment.NULL : ch.pointer(), compVector);
        if (isNull(cq)) {
            int errno = errnoOfNull(state);
            throw failure("ibv_create_cq", c, errno, Errno.of(errno).equals(Errno.EINVAL)
                    ? "cqe " + cqe + " must be 1..max_cqe of the device and comp_vector " + compVector
                            + " below num_comp_vectors (" + c.numCompVectors() + ")"
                    : "could not create a CQ of " + cqe + " entries on " + c.deviceName() + memlockHint(errno));
        }
        return register(cq, c, ch, false);
    }

    private NativeCq register(MemorySegment cq, NativeContext c, @Nullable NativeCompChannel ch, boolean extended) {
        int capacity = IbvCq.CQE.get(cq.reinterpret(IbvCq.LAYOUT.byteSize()));
        NativeCq handle = new NativeCq(provider, cq, c, capacity, ch,
                InlineVerbs.contextOp(cq, IbvCq.CONTEXT, IbvContextOps.POLL_CQ),
                InlineVerbs.contextOp(cq, IbvCq.CONTEXT, IbvContextOps.REQ_NOTIFY_CQ));
        if (extended) {
            try {
                handle.extend(cq);
            } catch (RuntimeException e) {
                Libibverbs.ibv_destroy_cq(CallState.current(), cq);   // not handed out: nobody else can release it
                throw e;
            }
        }
        cqs.put(cq.address(), handle);
        return handle;
    }

    /**
     * {@code ibv_create_cq_ex(3)}. The {@code struct ibv_cq_ex} begins with a {@code struct ibv_cq}
     * ({@code ibv_cq_ex_to_cq} is a cast), so the handle polls, arms and is destroyed as a classic CQ is;
     * its polling functions are read once, here.
     */
    @Override
    public CqHandle createCqEx(ContextHandle context, int cqe, @Nullable CompChannelHandle channel, int compVector,
            long wcFlags) {
        NativeContext c = provider.live(context, NativeContext.class);
        NativeCompChannel ch = channel == null ? null : provider.live(channel, NativeCompChannel.class);
        MemorySegment state = CallState.current();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment attr = arena.allocate(IbvCqInitAttrEx.LAYOUT);
            IbvCqInitAttrEx.CQE.set(attr, cqe);
            IbvCqInitAttrEx.CHANNEL.set(attr, ch == null ? MemorySegment.NULL : ch.pointer());
            IbvCqInitAttrEx.COMP_VECTOR.set(attr, compVector);
            IbvCqInitAttrEx.WC_FLAGS.set(attr, wcFlags);
            MemorySegment cq = InlineVerbs.ibv_create_cq_ex(state, c.pointer(), attr);
            if (isNull(cq)) {
                int errno = errnoOfNull(state);
                Errno e = Errno.of(errno);
                throw failure("ibv_create_cq_ex", c, errno, e.equals(Errno.EOPNOTSUPP)
                        ? c.deviceName() + " cannot report wc_flags 0x" + Long.toHexString(wcFlags)
                                + " (or has no extended CQs): ask for fewer fields (rxe reports no timestamps)"
                        : e.equals(Errno.EINVAL)
                                ? "cqe " + cqe + " must be 1..max_cqe of the device and comp_vector " + compVector
                                        + " below num_comp_vectors (" + c.numCompVectors() + ")"
                                : "could not create a CQ of " + cqe + " entries on " + c.deviceName()
                                        + memlockHint(errno));
            }
            return register(cq, c, ch, true);
        }
    }

    @Override
    public CqExPoller cqExPoller(CqHandle cq) {
        NativeCq q = provider.live(cq, NativeCq.class);
        NativeCqExPoller poller = q.exPoller();
        if (poller == null) {
            throw new IllegalArgumentException(q.describe() + " was created with ibv_create_cq, not ibv_create_cq_ex");
        }
        return poller;
    }

    @Override
    public void destroyCq(CqHandle cq) {
        NativeCq q = provider.live(cq, NativeCq.class);
        // No poll is in flight from here on, from any thread: ibv_destroy_cq(3) frees what poll_cq reads.
        q.calls().destroyQuiesced(() -> {
            MemorySegment state = CallState.current();
            released("ibv_destroy_cq", q, Libibverbs.ibv_destroy_cq(state, q.pointer()), state,
                    "QPs or SRQs still use it: destroy them first",
                    "could not destroy the CQ");
        });
        cqs.remove(q.pointer().address(), q);
    }

    @Override
    public void reqNotifyCq(CqHandle cq, boolean solicitedOnly) {
        NativeCq q = provider.identify(cq, NativeCq.class);
        requireOp("ibv_req_notify_cq", q, q.reqNotifyCq());
        NativeCqExPoller ex = q.exPoller();
        if (ex != null) {
            // irdma's req_notify_cq takes the CQ lock a batch holds (rxe's and mlx5's take none).
            ex.batch().refuseHeldByCaller("ibv_req_notify_cq");
        }
        // Guarded as a poll is, so that destroyCq waits for it; the CQ's pointer is a global segment already.
        q.arming().enter();
        int rc;
        try {
            rc = ex == null ? InlineVerbs.ibv_req_notify_cq(q.reqNotifyCq(), q.objectAddress(), solicitedOnly ? 1 : 0)
                    : InlineVerbs.ibv_req_notify_cq_contended(q.reqNotifyCq(), q.objectAddress(), solicitedOnly ? 1 : 0);
        } finally {
            q.arming().exit();
        }
        if (rc != 0) {
            throw failure("ibv_req_notify_cq", q, returnedErrno(rc), "could not arm the CQ for an event");
        }
    }

    @Override
    public int pollCq(CqHandle cq, WorkCompletions completions, int max) {
        NativeCq q = provider.identify(cq, NativeCq.class);
        if (!(completions instanceof NativeWorkCompletions wc)) {
            throw new IllegalArgumentException(completions + " was not created by the native provider "
                    + "(use newWorkCompletions)");
        }
        // Binding refuses a closed buffer and a CQ destroyed or being destroyed; after that, the guard does.
        NativeWorkCompletions.Bound b = wc.boundTo(q);
        if (max < 0 || max > wc.capacity()) {
            throw new IllegalArgumentException("max must be 0.." + wc.capacity() + ", was " + max);
        }
        requireOp("ibv_poll_cq", q, q.pollCq());
        NativeCqExPoller ex = q.exPoller();
        if (ex != null) {
            // poll_cq takes the CQ lock a batch holds (rxe, mlx5): not on the batch's own thread.
            ex.batch().refuseHeldByCaller("ibv_poll_cq");
        }
        CallGuard guard = b.guard();
        if (!guard.enter()) {
            throw wc.refusal(guard);
        }
        int n;
        try {
            n = ex == null ? InlineVerbs.ibv_poll_cq(q.pollCq(), b.cqPointer(), max, b.entries())
                    : InlineVerbs.ibv_poll_cq_contended(q.pollCq(), b.cqPointer(), max, b.entries());
        } finally {
            guard.exit();
        }
        if (n < 0) {
            // poll_cq reports errors by a negative count and no errno.
            throw new VerbsException("ibv_poll_cq", q.describe(), null, "the provider returned " + n
                    + ": the CQ is in error (overrun?) and can only be destroyed");
        }
        return n;
    }

    @Override
    public WorkCompletions newWorkCompletions(int capacity) {
        return new NativeWorkCompletions(capacity);
    }

    @Override
    public @Nullable CqHandle getCqEvent(CompChannelHandle channel, long timeoutMillis) {
        NativeCompChannel ch = provider.live(channel, NativeCompChannel.class);
        MemorySegment state = CallState.current();
        long deadline = EventDescriptors.deadline(timeoutMillis);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment pollFds = EventDescriptors.pollFds(arena);
            MemorySegment cqOut = arena.allocate(ADDRESS);
            MemorySegment cqContextOut = arena.allocate(ADDRESS);
            while (true) {
                if (!EventDescriptors.awaitReadable(ch, ch.fd(), ch.wake(), pollFds, deadline, state)) {
                    return null;
                }
                if (Libibverbs.ibv_get_cq_event(state, ch.pointer(), cqOut, cqContextOut) == 0) {
                    break;
                }
                int errno = CallState.errno(state);
                if (errno != Errno.EAGAIN.number() && errno != Errno.EINTR.number()) {
                    throw failure("ibv_get_cq_event", ch, errno, "could not read a completion event");
                }
                // EAGAIN: another thread read the event between poll and read; wait for the next one.
            }
            MemorySegment cq = cqOut.get(ADDRESS, 0);
            NativeCq handle = cqs.get(cq.address());
            if (handle == null) {
                // Acked so that whoever owns that CQ can still destroy it.
                Libibverbs.ibv_ack_cq_events(cq, 1);
                throw new IllegalStateException("completion event on " + ch.describe() + " for ibv_cq@0x"
                        + Long.toHexString(cq.address()) + ", which this provider did not create");
            }
            return handle;
        }
    }

    @Override
    public void ackCqEvents(CqHandle cq, int count) {
        NativeCq q = provider.live(cq, NativeCq.class);
        if (count < 0) {
            throw new IllegalArgumentException("count must be >= 0, was " + count);
        }
        Libibverbs.ibv_ack_cq_events(q.pointer(), count);
    }
}
