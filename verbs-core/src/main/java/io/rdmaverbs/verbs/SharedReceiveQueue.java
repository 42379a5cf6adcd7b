package io.rdmaverbs.verbs;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import io.rdmaverbs.verbs.attr.SrqType;
import io.rdmaverbs.verbs.error.VerbsException;
import io.rdmaverbs.verbs.provider.SharedReceiveQueueVerbs;
import io.rdmaverbs.verbs.provider.SrqHandle;

import org.jspecify.annotations.Nullable;

/**
 * A shared receive queue ({@code struct ibv_srq}): basic (feeding QPs of its PD) or XRC (receiving
 * for an XRC domain, completing on its own CQ). {@code ibv_destroy_srq} fails with {@code EBUSY}
 * while QPs use it.
 */
public final class SharedReceiveQueue extends VerbsResource {

    final SrqHandle handle;
    /* Kept rather than asked of the provider per call: posting is the data path. */
    private final SharedReceiveQueueVerbs srqVerbs;
    private final ProtectionDomain pd;
    private final @Nullable XrcDomain xrcd;
    private final @Nullable CompletionQueue cq;
    private final SrqType type;
    private final int maxWr;
    private final int maxSge;

    SharedReceiveQueue(ProtectionDomain pd, @Nullable XrcDomain xrcd, @Nullable CompletionQueue cq, SrqHandle handle,
            SrqType type, int maxWr, int maxSge, @Nullable String name) {
        super(pd.verbs, ResourceKind.SHARED_RECEIVE_QUEUE, parents(pd, xrcd, cq), name);
        this.handle = handle;
        this.srqVerbs = pd.verbs.provider().sharedReceiveQueueVerbs();
        this.pd = pd;
        this.xrcd = xrcd;
        this.cq = cq;
        this.type = type;
        this.maxWr = maxWr;
        this.maxSge = maxSge;
    }

    private static List<VerbsResource> parents(ProtectionDomain pd, @Nullable XrcDomain xrcd,
            @Nullable CompletionQueue cq) {
        List<VerbsResource> p = new ArrayList<>(List.of(pd.context(), pd));
        if (xrcd != null) {
            p.add(xrcd);
        }
        if (cq != null) {
            p.add(cq);
        }
        return p;
    }

    @Override
    public DeviceContext context() {
        return pd.context();
    }

    public SrqType type() {
        return type;
    }

    public ProtectionDomain protectionDomain() {
        return pd;
    }

    public @Nullable XrcDomain xrcDomain() {
        return xrcd;
    }

    /** The XRC SRQ number remote XRC senders address ({@code ibv_get_srq_num}); 0 for a basic SRQ. */
    public int srqNum() {
        return handle.srqNum();
    }

    /** A reusable receive request with room for {@code maxSge} entries. */
    public ReceiveRequest newReceiveRequest(int maxSge) {
        if (maxSge < 1 || maxSge > this.maxSge) {
            throw new IllegalArgumentException(ref() + " takes 1.." + this.maxSge + " scatter/gather entries, asked for "
                    + maxSge);
        }
        return new ReceiveRequest(pd.verbs.provider().queuePairVerbs().newRecvWr(maxSge));
    }

    /** A reusable chain of up to {@code capacity} receive requests, for {@link #postReceive(ReceiveBatch)}. */
    public ReceiveBatch newReceiveBatch(int capacity, int maxSge) {
        if (maxSge < 1 || maxSge > this.maxSge) {
            throw new IllegalArgumentException(ref() + " takes 1.." + this.maxSge + " scatter/gather entries, asked for "
                    + maxSge);
        }
        if (capacity < 1) {
            throw new IllegalArgumentException(ref() + ": a batch holds at least one request, asked for " + capacity);
        }
        return new ReceiveBatch(pd.verbs.provider().queuePairVerbs().newRecvChain(capacity, maxSge));
    }

    /**
     * {@code ibv_post_srq_recv} of the batch's requests in one call, in order: the refill path.
     *
     * @throws io.rdmaverbs.verbs.error.PostFailedException naming the first request not posted ({@code bad_wr})
     */
    public void postReceive(ReceiveBatch batch) {
        // Not entered, as QueuePair#postReceive: the provider guards the post (SharedReceiveQueueVerbs#destroySrq).
        checkOpen();
        batch.checkPostable(context());
        try {
            srqVerbs.postSrqRecv(handle, batch.chain());
        } catch (VerbsException e) {
            throw e.about(ref().toString());
        } catch (IllegalStateException e) {
            throw closedOr(e);
        }
    }

    /** {@code ibv_post_srq_recv}. */
    public void postReceive(ReceiveRequest request) {
        checkOpen();
        request.checkPostable(context());
        try {
            srqVerbs.postSrqRecv(handle, request.wr());
        } catch (VerbsException e) {
            throw e.about(ref().toString());
        } catch (IllegalStateException e) {
            throw closedOr(e);
        }
    }

    @Override
    public Map<String, Object> details() {
        Map<String, Object> m = new Details();
        m.put("type", type.name());
        m.put("maxWr", maxWr);
        m.put("maxSge", maxSge);
        if (type == SrqType.XRC) {
            m.put("srqNum", srqNum());
            m.put("cq", cq == null ? "none" : cq.name());
        }
        return m;
    }

    @Override
    SrqHandle eventHandle() {
        return handle;
    }

    @Override
    void release() {
        srqVerbs.destroySrq(handle);
    }
}
