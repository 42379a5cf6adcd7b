package io.rdmaverbs.verbs;

import java.util.Objects;

import io.rdmaverbs.verbs.attr.SrqType;

import org.jspecify.annotations.Nullable;

/**
 * What {@link ProtectionDomain#createSharedReceiveQueue(SharedReceiveQueueSpec)} creates: a basic SRQ
 * feeding QPs of its protection domain ({@code ibv_create_srq(3)}), or an XRC SRQ receiving for an XRC
 * domain and completing on a CQ of its own ({@code ibv_create_srq_ex(3)}). The device's bounds
 * ({@code max_srq_wr}, {@code max_srq_sge}) are checked when the SRQ is created.
 *
 * <pre>{@code
 * pd.createSharedReceiveQueue(SharedReceiveQueueSpec.basic(256).withMaxSge(2).withLimit(16), "srq");
 * pd.createSharedReceiveQueue(SharedReceiveQueueSpec.xrc(xrcd, cq, 256), "xsrq");
 * }</pre>
 *
 * @param type basic or XRC
 * @param xrcDomain the XRC domain an XRC SRQ receives for; {@code null} for a basic SRQ
 * @param completionQueue the CQ an XRC SRQ completes on; {@code null} for a basic SRQ (its QPs' receive
 *        CQs take the completions)
 * @param maxWr outstanding receive work requests, 1..{@code max_srq_wr}
 * @param maxSge scatter/gather entries per work request, 1..{@code max_srq_sge}
 * @param limit the SRQ limit that raises {@code IBV_EVENT_SRQ_LIMIT_REACHED}, 0 (off)..{@code maxWr};
 *        basic SRQs only
 */
public record SharedReceiveQueueSpec(SrqType type, @Nullable XrcDomain xrcDomain,
        @Nullable CompletionQueue completionQueue, int maxWr, int maxSge, int limit) {

    /**
     * Refuses sizes no device accepts, and a domain, CQ or limit that does not fit the type, naming the
     * field.
     */
    public SharedReceiveQueueSpec {
        Objects.requireNonNull(type, "type");
        if (maxWr < 1) {
            throw new IllegalArgumentException("maxWr must be at least 1 (and at most the device's max_srq_wr), was "
                    + maxWr);
        }
        if (maxSge < 1) {
            throw new IllegalArgumentException("maxSge must be at least 1 (and at most the device's max_srq_sge), was "
                    + maxSge);
        }
        if (limit < 0 || limit > maxWr) {
            throw new IllegalArgumentException("limit must be 0..maxWr (" + maxWr + "), was " + limit);
        }
        if (type == SrqType.XRC) {
            if (xrcDomain == null || completionQueue == null) {
                throw new IllegalArgumentException((xrcDomain == null ? "xrcDomain" : "completionQueue")
                        + " is missing: an XRC SRQ receives for an XRC domain and completes on a CQ of its own");
            }
            if (limit != 0) {
                throw new IllegalArgumentException("limit applies to basic SRQs only; an XRC SRQ is created with "
                        + "limit 0, was " + limit);
            }
        } else if (xrcDomain != null || completionQueue != null) {
            throw new IllegalArgumentException("xrcDomain and completionQueue belong to XRC SRQs; a basic SRQ has "
                    + "neither (use SharedReceiveQueueSpec.xrc)");
        }
    }

    /** A basic SRQ holding {@code maxWr} receive work requests of one scatter/gather entry, no limit. */
    public static SharedReceiveQueueSpec basic(int maxWr) {
        return new SharedReceiveQueueSpec(SrqType.BASIC, null, null, maxWr, 1, 0);
    }

    /**
     * An XRC SRQ receiving for {@code xrcDomain} and completing on {@code completionQueue}, holding
     * {@code maxWr} receive work requests of one scatter/gather entry.
     */
    public static SharedReceiveQueueSpec xrc(XrcDomain xrcDomain, CompletionQueue completionQueue, int maxWr) {
        return new SharedReceiveQueueSpec(SrqType.XRC, xrcDomain, completionQueue, maxWr, 1, 0);
    }

    /** The same SRQ with up to {@code entries} scatter/gather entries per work request. */
    public SharedReceiveQueueSpec withMaxSge(int entries) {
        return new SharedReceiveQueueSpec(type, xrcDomain, completionQueue, maxWr, entries, limit);
    }

    /** The same (basic) SRQ, armed to raise {@code IBV_EVENT_SRQ_LIMIT_REACHED} below {@code srqLimit}. */
    public SharedReceiveQueueSpec withLimit(int srqLimit) {
        return new SharedReceiveQueueSpec(type, xrcDomain, completionQueue, maxWr, maxSge, srqLimit);
    }
}
